"""Arbitrary text in every argument of every subcommand (quizapp.cli.SUBCOMMANDS, so subcommands added
later are covered too) ends with exit 0, 1 or 2 and at most a one-line error: never a traceback, never
a raw terminal escape on stderr. Each example runs in a child process with a timeout and a memory limit;
a command that would start the TUI returns instead (see conftest.DRIVER)."""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

import pytest
from reliability_helpers import assert_clean_failure, run_quizapp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizapp.cli import SUBCOMMANDS, build_parser

MEMORY_LIMIT = 2 << 30
SMALL_BANK = Path(__file__).resolve().parents[1] / "content" / "fixtures" / "good"  # fast to load


def _small_bank(folder: Path) -> str:
    """A copy of the one-question fixture bank (`new` writes into the first content folder: never the repo's)."""
    target = folder / "bank"
    shutil.copytree(SMALL_BANK, target)
    return str(target)
NASTY = ["", " ", "-", "--", "-1", "0", "1", "1e999", "nan", "-inf", "9" * 5000, "a" * 5000, "x/" * 3000,
         "\x1b[2J", "\x1b]0;pwned\x07", "\u202eevil", "💥", "七十亿", "99999999999999999999d", "1m " * 50,
         "none", "default", "/dev/null", ".", "..", "-h"[:1] + "x", "1,5", "0x10", "1_000"]
VALUE = st.one_of(
    st.sampled_from(NASTY),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40),
    st.from_regex(r"[0-9]{1,30}[a-zA-Z%]{0,3}", fullmatch=True),
)


def _actions(name: str) -> tuple[list[argparse.Action], list[argparse.Action]]:
    """(optional, positional) actions of subcommand `name`, without --help."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    parser = sub.choices[name]
    optional = [a for a in parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]
    positional = [a for a in parser._actions if not a.option_strings]
    return optional, positional


@st.composite
def argv_for(draw, name: str) -> list[str]:
    optional, positional = _actions(name)
    argv = [name]
    for action in positional:
        if action.nargs in ("?", "*") and draw(st.booleans()):
            continue
        argv += draw(st.lists(VALUE, min_size=1, max_size=2)) if action.nargs in ("*", "+") else [draw(VALUE)]
    if optional:
        for action in draw(st.lists(st.sampled_from(optional), max_size=3, unique_by=id)):
            flag = draw(st.sampled_from(action.option_strings))
            argv.append(flag)
            if action.nargs != 0:
                argv.append(draw(VALUE))
    if draw(st.booleans()):
        argv = draw(st.sampled_from([["--db", draw(VALUE)], ["--content", draw(VALUE)], []])) + argv
    return argv


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_arbitrary_arguments_never_crash(name, tmp_path_factory):
    work = tmp_path_factory.mktemp(f"fuzz-{name}")
    env = {"HOME": str(work), "XDG_DATA_HOME": str(work / "data"), "XDG_CONFIG_HOME": str(work / "config"),
           "QUIZAPP_DB": str(work / "q.sqlite3"), "COLUMNS": "100",
           "QUIZAPP_CONTENT": _small_bank(work)}

    @settings(max_examples=int(os.environ.get("QUIZAPP_FUZZ_EXAMPLES", "2")), deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(argv_for(name))
    def check(argv):
        result = run_quizapp(argv, cwd=work, env=env, timeout=60, memory_limit=MEMORY_LIMIT)
        assert_clean_failure(result)
        if result.returncode == 2:
            assert result.stderr.strip().count("\n") == 0 or "usage:" in result.stderr, result.stderr[-2000:]

    before = sorted(SMALL_BANK.rglob("*"))
    check()
    assert sorted(SMALL_BANK.rglob("*")) == before  # the repository's fixtures are never written


REGRESSIONS = [
    ["calc", "--model", "llama-2-7b", "--batch", "9" * 5000],
    ["settings", "learning_steps", "99999999999999999999d"],
    ["settings", "learning_steps", ""],
    ["settings", "learning_steps", *(["1m"] * 5000)],
    ["--db", "d" * 5000, "stats"],
    ["new", "n" * 10_000],
    ["validate", "v" * 5000],
    ["preview", "p" * 5000],
    ["settings", "\x1b[2Jx", "1"],
    ["mock", "--topic", "\x1b[2J"],
    ["drill", "\x1b[2J/x"],
    ["--content", "c" * 5000, "validate"],
]


@pytest.mark.parametrize("argv", REGRESSIONS, ids=lambda a: " ".join(a)[:40])
def test_the_reported_inputs_are_one_line_errors(argv, tmp_path):
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), "QUIZAPP_DB": str(tmp_path / "q.sqlite3"),
           "QUIZAPP_CONTENT": _small_bank(tmp_path)}
    result = run_quizapp(argv, cwd=tmp_path, env=env, timeout=60, memory_limit=MEMORY_LIMIT)
    assert_clean_failure(result, codes=(2,))
    assert result.stderr.count("\n") == 1, result.stderr
    if argv[0] == "settings":
        assert not Path(tmp_path / "q.sqlite3").exists()  # a refused value stores nothing (creates no database)
