"""Commands that only read open the database read-only: a foreign or empty SQLite file keeps its exact
bytes and gets no -wal/-shm beside it, nothing is created, and writes through such a Store fail."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from reliability_helpers import (assert_clean_failure, empty_sqlite_file, foreign_database, foreign_wal_database, listing,
                                 versioned_foreign_database,
                      run_in_process, run_quizapp)

from quizapp.cli import SUBCOMMANDS
from quizapp.clock import FakeClock
from quizapp.content import CardSpec
from quizapp.store import NoHistory, Store, StoreError

# The read-only commands of issue 15, with arguments that make them read; only those that exist run.
READ_ONLY = {
    "stats": [["stats"], ["stats", "--json"]],
    "settings": [["settings"], ["settings", "learning_steps"]],
    "queue": [["queue"]],
    "show": [["show", "single-gpu-requirements"]],
    "cards": [["cards"]],
    "evaluate": [["evaluate"]],
    "export": [["export", "anki", "out.apkg"], ["export", "revlog", "out.csv"]],
    "simulate": [["simulate", "--days", "30"]],  # also only reads (SRS)
}
REFUSE_FOREIGN = {"stats", "settings", "queue", "cards", "evaluate", "export revlog"}  # those that read the database
COMMANDS = [argv for name, runs in READ_ONLY.items() if name in SUBCOMMANDS for argv in runs]


def _own_database(path: Path) -> Path:
    with Store.open(path, FakeClock()) as store:
        store.sync([CardSpec(f"q{i}/question/main", f"q{i}", "question", "main", "t", i) for i in range(3)])
        store.review("q0/question/main", 3, duration_ms=1000)
    return path


KINDS = {
    "foreign": foreign_database,
    "foreign-wal": foreign_wal_database,
    "foreign-user-version": versioned_foreign_database,
    "empty-sqlite": empty_sqlite_file,
    "zero-bytes": lambda p: (p.write_bytes(b""), p)[1],
    "quizapp": _own_database,
}


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_read_only_command_changes_no_byte(tmp_path, workdir, kind, argv, monkeypatch):
    folder = tmp_path / "db"
    folder.mkdir()
    path = KINDS[kind](folder / "data.sqlite3")
    before = listing(folder)
    monkeypatch.chdir(workdir)
    result = run_in_process(["--db", path, *argv])
    assert_clean_failure(result)
    assert listing(folder) == before  # same bytes, no -wal, no -shm, no journal
    if kind in ("foreign", "foreign-wal", "foreign-user-version") and (argv[0] in REFUSE_FOREIGN or " ".join(argv[:2]) in REFUSE_FOREIGN):
        assert result.returncode == 2 and "quizapp" in result.stderr and "left untouched" in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_read_only_command_creates_no_database(tmp_path, workdir, argv, monkeypatch):
    path = tmp_path / "nothing" / "here.sqlite3"
    monkeypatch.chdir(workdir)
    result = run_in_process(["--db", path, *argv])
    assert_clean_failure(result)
    assert not path.parent.exists()


def test_stats_on_an_empty_sqlite_file_says_there_is_no_history(tmp_path, workdir):
    path = empty_sqlite_file(tmp_path / "other.sqlite3")
    result = run_in_process(["--db", path, "stats", "--json"])
    assert result.returncode == 0, result.stderr
    assert '"database_exists": false' in result.stdout
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)  # no quizapp tables written
    conn.close()


def test_store_opened_read_only_reads_and_refuses_writes(tmp_path):
    path = _own_database(tmp_path / "q.sqlite3")
    before = listing(tmp_path)
    with Store.open(path, FakeClock(), read_only=True) as store:
        assert store.read_only
        assert len(store.cards()) == 3 and store.card("q0/question/main").reps == 1
        with pytest.raises(StoreError, match="opened read-only"):
            store.review("q1/question/main", 3, duration_ms=1)
        with pytest.raises(StoreError, match="opened read-only"):
            store.set_setting("lang", "zh")
        with pytest.raises(StoreError, match="opened read-only"):
            store.sync([])
        with pytest.raises(Exception, match="readonly"):  # even straight through the engine
            with store.engine.begin() as conn:
                conn.exec_driver_sql("DELETE FROM review_log")
    assert listing(tmp_path) == before


@pytest.mark.parametrize("kind", ["missing", "zero-bytes", "empty-sqlite"])
def test_no_history_is_its_own_error_and_touches_nothing(tmp_path, kind):
    path = tmp_path / "q.sqlite3"
    if kind != "missing":
        KINDS[kind](path)
    before = listing(tmp_path)
    with pytest.raises(NoHistory, match="no review history yet"):
        Store.open(path, FakeClock(), read_only=True)
    assert listing(tmp_path) == before


def test_a_read_only_store_sees_what_a_running_writer_committed(tmp_path):
    path = _own_database(tmp_path / "q.sqlite3")
    with Store.open(path, FakeClock()) as writer:
        writer.set_setting("marker", 1)  # committed, still in the writer's -wal
        assert Path(f"{path}-wal").exists()
        with Store.open(path, FakeClock(), read_only=True) as reader:
            assert reader.get_setting("marker") == 1
            writer.set_setting("marker", 2)  # a copy taken at opening: later commits are not seen
            assert reader.get_setting("marker") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "q.sqlite3"]


def test_an_older_schema_is_upgraded_in_memory_only(tmp_path):
    """A reader of a file from an older quizapp migrates a copy in memory; the file keeps its bytes."""
    from quizapp.store.database import open_read_only_engine

    path = _own_database(tmp_path / "q.sqlite3")
    with Store.open(path, FakeClock(), read_only=True) as store, store.reading() as conn:
        current = int(conn.exec_driver_sql("SELECT value FROM meta WHERE key='schema_version'").scalar())
    before = listing(tmp_path)
    ran = []

    def add_note_column(conn):
        ran.append(True)
        conn.exec_driver_sql("ALTER TABLE card ADD COLUMN note TEXT NOT NULL DEFAULT 'x'")

    engine = open_read_only_engine(path, current=current + 1, migrations={current: add_note_column})
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM card WHERE note = 'x'").scalar() == 3
            with pytest.raises(Exception, match="readonly"):
                conn.exec_driver_sql("UPDATE card SET note = 'y'")
    finally:
        engine.dispose()
    assert ran and listing(tmp_path) == before
    with pytest.raises(StoreError, match="no migration from schema version"):
        open_read_only_engine(path, current=current + 2, migrations={current: add_note_column})
    assert listing(tmp_path) == before


def test_tables_newer_than_the_file_exist_for_a_reader(tmp_path):
    """A file made before a table was added (the app adds it on its next start) still reads."""
    path = _own_database(tmp_path / "q.sqlite3")
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE mock_item")
    conn.commit()
    conn.close()
    before = listing(tmp_path)
    with Store.open(path, FakeClock(), read_only=True) as store:
        with store.reading() as c:
            assert c.exec_driver_sql("SELECT count(*) FROM mock_item").scalar() == 0
    assert listing(tmp_path) == before


def _make_unwritable(paths: list[Path]) -> None:
    """Nobody may write these any more: chmod for a normal user; for root (who ignores modes) the
    immutable attribute, which even root cannot write through."""
    for path in paths:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "+i", str(path)], check=True, capture_output=True)
        else:
            os.chmod(path, 0o555 if path.is_dir() else 0o444)


def _make_writable(paths: list[Path]) -> None:
    for path in paths:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True)
        else:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)


def _can_make_unwritable(tmp_path: Path) -> bool:
    if os.geteuid() != 0:
        return True
    probe = tmp_path / "probe"
    probe.write_text("x")
    if not shutil.which("chattr") or subprocess.run(["chattr", "+i", str(probe)], capture_output=True).returncode:
        return False
    subprocess.run(["chattr", "-i", str(probe)], capture_output=True)
    probe.unlink()
    return True


@pytest.mark.parametrize("folder_writable", [True, False], ids=["file-read-only", "file-and-folder-read-only"])
def test_a_user_who_cannot_write_the_database_can_still_read(tmp_path, workdir, folder_writable):
    """stats reads a database the user cannot write (and, in the second case, whose folder it cannot
    write either), exit 0 with the figures, and leaves no -wal or -shm beside it."""
    if os.name != "posix" or not _can_make_unwritable(tmp_path):
        pytest.skip("cannot make a file unwritable here")
    folder = tmp_path / "db"
    folder.mkdir()
    path = _own_database(folder / "q.sqlite3")
    locked = [path] if folder_writable else [path, folder]
    before = listing(folder)
    _make_unwritable(locked)
    try:
        with pytest.raises(OSError):
            (folder / "q.sqlite3").open("ab").close()  # really not writable
        result = run_quizapp(["--db", path, "stats", "--json"], cwd=workdir)
        settings = run_quizapp(["--db", path, "settings"], cwd=workdir)
    finally:
        _make_writable(locked)
    assert result.returncode == 0, result.stderr
    assert '"database_exists": false' not in result.stdout and '"reviews_last_30_days": 1' in result.stdout
    assert settings.returncode == 0, settings.stderr
    assert listing(folder) == before


@pytest.mark.skipif(os.name != "posix" or not Path("/dev/zero").exists(), reason="needs FIFOs and /dev/zero")
@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_database_path_that_is_not_a_file_is_refused_without_reading_it(tmp_path, kind, monkeypatch):
    path = tmp_path / "db"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    monkeypatch.chdir(tmp_path)
    for argv in (["stats"], ["settings"], ["settings", "new_per_day", "5"]):
        result = run_in_process(["--db", path, *argv])  # a FIFO opened for reading would block here
        assert result.returncode == 2 and "not a database file" in result.stderr, result.stderr
