"""`quizapp show`, `quizapp queue`, global options after the subcommand, the user content folder."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quizapp.cli import build_parser, main, resolve_options


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree_sums(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): _sha(p) for p in sorted(folder.rglob("*")) if p.is_file()}


# --- global options after the subcommand ---------------------------------------------------------


@pytest.mark.parametrize("argv", [["mock", "--db", "X.db"], ["--db", "X.db", "mock"]])
def test_db_works_before_and_after_the_subcommand(argv):
    options = resolve_options(build_parser().parse_args(argv), {})
    assert options.db_path == Path("X.db")


def test_lang_and_content_after_the_subcommand(tmp_path):
    args = build_parser().parse_args(["--content", str(tmp_path / "a"), "stats", "--lang", "zh",
                                      "--content", str(tmp_path / "b")])
    options = resolve_options(args, {"QUIZAPP_LANG": "en"})
    assert options.lang == "zh" and options.lang_given
    assert options.content_dirs == (tmp_path / "a", tmp_path / "b")


def test_after_the_subcommand_wins_and_absent_changes_nothing():
    args = build_parser().parse_args(["--db", "before.db", "--lang", "zh", "settings", "--db", "after.db"])
    options = resolve_options(args, {})
    assert options.db_path == Path("after.db") and options.lang == "zh"


def test_a_real_subcommand_reads_the_db_given_after_it(tmp_path, capsys):
    db = tmp_path / "mine.sqlite3"
    assert main(["settings", "new_per_day", "7", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["--db", str(db), "settings", "new_per_day", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["new_per_day"]["value"] == "7"


# --- quizapp show ------------------------------------------------------------------------------


def test_show_prints_every_section_rendered(bundled_bank, capsys):
    question = max(bundled_bank.questions, key=lambda q: len(q.followups) + len(q.mistakes) + len(q.errata))
    assert main(["show", question.id]) == 0
    out = capsys.readouterr().out
    assert "{{" not in out
    assert out.startswith("# ")
    for heading in ("## Answer", "## Follow-ups", "## Common mistakes", "## Quick calculations"):
        assert heading in out
    if question.errata:
        assert "## Errata" in out
    for drill in question.drills:
        assert f"### {drill.id}" in out


def test_show_json_is_the_rendered_question(bundled_bank, capsys):
    question = next(q for q in bundled_bank.questions if any("{{" in m.why + m.right + m.wrong for m in q.mistakes)
                    or any("{{" in e.claim + e.correct + e.why for e in q.errata))
    assert main(["show", question.id, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["id"] == question.id
    assert len(data["followups"]) == len(question.followups)
    assert len(data["drills"]) == len(question.drills)
    assert "{{" not in json.dumps(data, ensure_ascii=False)
    assert all(d["expected"] for d in data["drills"])


def test_show_unknown_question_is_one_line_with_a_hint(bundled_bank, capsys):
    qid = bundled_bank.questions[0].id
    assert main(["show", qid[:-1] + "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"did you mean {qid!r}" in err


def test_show_can_be_piped():
    qid = "kv-cache"
    out = subprocess.run(f"{sys.executable} -m quizapp --lang en show {qid} | head -3", shell=True,
                         capture_output=True, text=True, env=dict(os.environ))
    assert out.returncode == 0 and "Traceback" not in out.stderr
    import yaml  # the title as the file says it, read without quizapp

    root = Path(__file__).resolve().parents[2] / "content"
    title = yaml.safe_load((root / "inference" / "kv-cache.yaml").read_text(encoding="utf-8"))["title"]["en"]
    assert out.stdout.splitlines() == [f"# {title}", "", "Topic inference · difficulty 3/5"]


# --- quizapp queue -----------------------------------------------------------------------------


def _studied_db(tmp_path, bundled_bank) -> Path:
    """A database with a day of practice in it (the app's own calls), closed."""
    from quizapp.clock import SystemClock
    from quizapp.store import Store

    db = tmp_path / "studied.sqlite3"
    with Store.open(db, SystemClock()) as store:
        store.sync(bundled_bank.cards())
        for _ in range(5):
            card = store.next_card()
            store.review(card.card_id, 3, duration_ms=1000)
    return db


def test_queue_lists_what_next_card_will_show_and_changes_nothing(tmp_path, bundled_bank, capsys):
    from quizapp.clock import SystemClock
    from quizapp.store import Store

    db = _studied_db(tmp_path, bundled_bank)
    before = _tree_sums(tmp_path)
    assert main(["queue", "--json", "--db", str(db)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert _tree_sums(tmp_path) == before  # same bytes, no -wal/-shm left behind
    today = data["days"][0]
    assert data["history"] is True
    assert today["counts"]["new"] == 5  # 10 a day, 5 already introduced
    # the first card listed is the one the app would show next
    with Store.open(db, SystemClock()) as store:
        assert store.next_card().card_id == today["cards"][0]["card_id"]
        assert store.day_counts().new == today["counts"]["new"]
    for card in today["cards"]:
        assert set(card) == {"card_id", "kind", "topic", "section", "due"}


def test_queue_days_previews_the_coming_days(tmp_path, bundled_bank, capsys):
    db = _studied_db(tmp_path, bundled_bank)
    before = _sha(db)
    assert main(["--db", str(db), "queue", "--days", "3"]) == 0
    out = capsys.readouterr().out
    assert _sha(db) == before
    assert out.startswith("Today (") and "Day 2 (" in out and "Day 3 (" in out


def test_queue_without_a_database_creates_none(tmp_path, capsys):
    db = tmp_path / "none" / "q.sqlite3"
    assert main(["queue", "--db", str(db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["history"] is False and data["days"][0]["counts"]["new"] == 10
    assert not db.exists() and not db.parent.exists()


def test_queue_refuses_bad_days(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["queue", "--days", "0"])
    assert exc.value.code == 2


# --- the user content folder -------------------------------------------------------------------


def test_the_user_folder_overrides_the_bundled_question_and_new_lands_there(bundled_bank, capsys):
    from quizapp.content.bank import load_content
    from quizapp.content.editable import editable_file
    from quizapp.locations import bundled_content_dir, user_content_dir

    from quizapp.content import load_bank

    bundled_sums = _tree_sums(bundled_content_dir())
    bundled_bank = load_bank([bundled_content_dir()])  # fresh: other people add questions as the tests run
    question = bundled_bank.question("kv-cache") or bundled_bank.questions[0]
    edit = editable_file(question, ())
    assert edit.where == "copied"
    assert edit.path.is_relative_to(user_content_dir())
    assert edit.path.read_bytes() == Path(question.source_path).read_bytes()
    edit.path.write_text(edit.path.read_text(encoding="utf-8").replace(question.title.en, "MY OWN TITLE", 1),
                         encoding="utf-8")
    assert _tree_sums(bundled_content_dir()) == bundled_sums  # the installed bank is untouched
    bank = load_content((), "en")
    assert bank.question(question.id).title == "MY OWN TITLE"
    assert bank.overridden == (question.id,)
    assert len(bank.questions) == len(bundled_bank.questions)
    assert [c.card_id for c in bank.cards()] == [c.card_id for c in bundled_bank.cards()]  # same cards, same order
    assert not [p for p in bank.problems if "duplicate" in p.message]  # an override is not a duplicate
    from quizapp.locations import content_dirs

    again = load_bank(content_dirs(()))  # what the app (and its reload after `e`) loads
    assert again.question(question.id).title.en == "MY OWN TITLE" and again.overridden == (question.id,)
    assert editable_file(bank.question(question.id), ()).where == "in_place"  # the copy itself next time
    assert editable_file(question, ()).where == "your_copy"  # never overwritten
    assert main(["new", "my-own-question", "--topic", "serving"]) == 0
    written = Path(capsys.readouterr().out.strip())
    assert written.is_relative_to(user_content_dir())
    assert load_content(()).question("my-own-question") is not None  # the app loads it without flags
    main(["validate", "--json"])  # exit 1 when the bundled bank has problems of its own: not this test's point
    data = json.loads(capsys.readouterr().out)
    assert not [e for e in data["errors"] if Path(e["file"]).name in (written.name, edit.path.name)
                and "duplicate" in e["message"]]
    assert _tree_sums(bundled_content_dir()) == bundled_sums


def test_content_flag_means_exactly_those_folders(tmp_path, bundled_bank, capsys):
    from quizapp.content.bank import load_content
    from quizapp.content.editable import editable_file
    from quizapp.locations import user_content_dir

    mine = tmp_path / "mine"
    assert main(["--content", str(mine), "new", "only-one"]) == 0
    editable = editable_file(bundled_bank.questions[0], ())  # makes a user folder with a copy
    assert editable.path.is_relative_to(user_content_dir())
    bank = load_content((mine,))
    assert [q.id for q in bank.questions] == ["only-one"] and bank.overridden == ()
    question = bank.question("only-one")
    assert editable_file(question, (mine,)).path == question.source_path  # edited in place


# --- the two new settings ----------------------------------------------------------------------


def test_settings_lists_new_order_and_type_answers_and_checks_them(tmp_path, capsys):
    db = tmp_path / "s.sqlite3"
    assert main(["settings", "--json", "--db", str(db)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["new_order"]["value"] == "mixed" and data["type_answers"]["value"] == "off"
    assert main(["settings", "type_answers", "on", "--db", str(db)]) == 0
    assert main(["settings", "new_order", "bank", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["settings", "new_order", "random", "--db", str(db)]) == 2
    assert "mixed or bank" in capsys.readouterr().err
    from quizapp.clock import FakeClock
    from quizapp.store import Store

    with Store.open(db, FakeClock()) as store:  # the stored values are what the store schedules with
        assert store.config.new_order == "bank" and store.config.type_answers is True


def test_validate_without_flags_checks_the_user_folder(capsys):
    from quizapp.locations import user_content_dir

    broken = user_content_dir() / "misc" / "broken-one.yaml"
    broken.parent.mkdir(parents=True)
    broken.write_text("id: broken-one\ntitle: no answer\ntopic: misc\n", encoding="utf-8")
    assert main(["validate", "--json"]) == 1
    errors = json.loads(capsys.readouterr().out)["errors"]
    assert any(Path(e["file"]).name == "broken-one.yaml" and "answer" in e["path"] + e["message"] for e in errors)
