"""Every argument that becomes a number, a path or a setting is checked with a one-line error naming
the flag (exit 2), and untrusted text in errors is quoted with control characters escaped."""

from __future__ import annotations

import argparse

import pytest
from reliability_helpers import run_in_process

from quizapp.cli.args import path, printable, quote, real_number, text, whole_number
from quizapp.store.config import MAX_STEPS, SettingError, parse_setting

ESC = "\x1b[2J"


def test_printable_escapes_controls_and_keeps_other_scripts():
    assert printable("ok 七十亿 💥") == "ok 七十亿 💥"
    assert printable(ESC) == "\\e[2J"
    assert printable("a\x07b\u202ec\n") == "a\\x07b\\u202ec\\n"
    assert "\x1b" not in quote(ESC) and quote(ESC) == "'\\e[2J'"
    shown = quote("9" * 5000)
    assert len(shown) < 100 and "5,000 characters" in shown


@pytest.mark.parametrize("value", ["9" * 5000, "1e3", "-5", "", "12abc", "0x10", "1" * 19])
def test_whole_number_refuses_with_a_reason(value):
    with pytest.raises(argparse.ArgumentTypeError, match="expected a whole number"):
        whole_number(0, 10**18)(value)


def test_whole_number_and_real_number_accept_their_range():
    assert whole_number(1, 10)("10") == 10 and whole_number(0)("1_000") == 1000
    assert real_number(0, 1)("0.25") == 0.25
    for bad in ("nan", "inf", "1e999", "2", "9" * 5000):
        with pytest.raises(argparse.ArgumentTypeError):
            real_number(0, 1)(bad)


@pytest.mark.parametrize("value, reason", [("p" * 5000, "path too long"), ("a/" + "n" * 300, "a name of 300"),
                                           ("", "empty")])
def test_path_refuses_what_the_system_would(value, reason):
    with pytest.raises(argparse.ArgumentTypeError, match=reason):
        path(value)


def test_text_has_a_limit():
    assert text(5)("abc") == "abc"
    with pytest.raises(argparse.ArgumentTypeError, match="too long"):
        text(5)("abcdef")


@pytest.mark.parametrize("argv, flag", [
    (["calc", "--model", "llama-2-7b", "--batch", "9" * 5000], "--batch"),
    (["calc", "--model", "llama-2-7b", "--seq", "9" * 5000], "--seq"),
    (["settings", "learning_steps", "99999999999999999999d"], "learning_steps"),
    (["--db", "d" * 5000, "stats"], "--db"),
    (["--content", "c" * 5000, "validate"], "--content"),
    (["new", "n" * 10_000], "ID"),
    (["validate", "v" * 5000], "PATH"),
    (["preview", "p" * 5000], "FILE"),
    (["drill", "x/y", "--seed", "9" * 5000], "--seed"),
])
def test_each_bad_argument_is_one_line_naming_its_flag(argv, flag, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_in_process(argv)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and flag in result.stderr, result.stderr
    if argv[0] != "calc":  # the calculator's own messages echo the whole value (one line still)
        assert len(result.stderr) < 600, result.stderr  # a 5,000-character value is cut, not echoed whole


@pytest.mark.parametrize("argv", [
    ["settings", ESC + "x", "1"],
    ["settings", ESC],
    ["mock", "--topic", ESC],
    ["drill", ESC + "/x"],
    ["validate", ESC + ".yaml"],
    ["--db", "/nonexistent-folder" + ESC + "/x/" + "q" * 10, "stats"],
])
def test_untrusted_text_is_never_echoed_raw(argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_in_process(argv)
    assert "\x1b" not in result.stderr and "\x1b" not in result.stdout, repr(result.stderr)
    if result.returncode:
        assert "\\e[2J" in result.stderr, repr(result.stderr)


def test_learning_steps_ranges():
    assert parse_setting("learning_steps", "none") == ()
    assert len(parse_setting("learning_steps", " ".join(["1m"] * MAX_STEPS))) == MAX_STEPS
    assert parse_setting("learning_steps", "1m 1d")[-1].days == 1
    for bad in ("", "   ", " ".join(["1m"] * (MAX_STEPS + 1)), "59s", "25h", "2d", "99999999999999999999d", "1e9m"):
        with pytest.raises(SettingError, match="1 to 10 steps, each 1 minute to 1 day"):
            parse_setting("learning_steps", bad)
    for bad in ("", "2d"):
        with pytest.raises(SettingError):
            parse_setting("relearning_steps", bad)


def test_an_empty_learning_steps_value_stores_nothing(tmp_path, monkeypatch):
    db = tmp_path / "q.sqlite3"
    result = run_in_process(["--db", db, "settings", "learning_steps", ""])
    assert result.returncode == 2 and "learning_steps" in result.stderr and "none" in result.stderr
    assert not db.exists()


def test_validate_escapes_a_file_name_from_a_cloned_folder(tmp_path):
    folder = tmp_path / "cloned"
    folder.mkdir()
    (folder / f"evil{ESC}.yaml").write_text("id: x\n", encoding="utf-8")
    result = run_in_process(["validate", folder])
    assert result.returncode == 1
    assert "\x1b" not in result.stdout and "evil\\e[2J.yaml:1:1:" in result.stdout
