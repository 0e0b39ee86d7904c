"""`quizapp` with no subcommand: a database that cannot be opened is one line on stderr and exit 2."""

from __future__ import annotations

from quizapp.cli import main


def test_unopenable_database_is_one_line_and_exit_2(tmp_path, tiny_bank_dir, capsys):
    not_a_db = tmp_path / "garbage.sqlite3"
    not_a_db.write_bytes(b"this is not a sqlite database at all" * 100)
    code = main(["--db", str(not_a_db), "--content", str(tiny_bank_dir)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("quizapp: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_the_app_runs_without_animations_unless_the_environment_asks(tmp_path, tiny_bank_dir, monkeypatch):
    from quizapp.cli.app import run_app
    from quizapp.tui.app import QuizApp

    seen = []
    monkeypatch.setattr(QuizApp, "run", lambda self: seen.append(self.animation_level))
    options = type("Options", (), {"db_path": tmp_path / "q.sqlite3", "content_dirs": (tiny_bank_dir,),
                                   "lang": "en", "lang_given": True})()
    monkeypatch.delenv("TEXTUAL_ANIMATIONS", raising=False)
    assert run_app(options) == 0
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "basic")
    assert run_app(options) == 0
    assert seen == ["none", "basic"]
