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
