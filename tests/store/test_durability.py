"""The file on disk: refused files stay byte-identical, folders are private, crashes and a second
process lose nothing, and old schemas migrate forward after a backup."""

from __future__ import annotations

import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import fsrs
import pytest
from sqlmodel import Session, select
from store_helpers import bank, sha256

from quizapp.clock import SystemClock
from quizapp.store.migrations import SCHEMA_VERSION
from quizapp.store import SchedulerConfig, Store, StoreError
from quizapp.store.database import open_engine
from quizapp.store.tables import ReviewLog

ROOT = Path(__file__).resolve().parents[2]


def _listing(folder: Path) -> dict[str, str]:
    return {p.name: sha256(p) if p.is_file() else "dir" for p in sorted(folder.iterdir())}


def _refused(path: Path, clock, match: str) -> None:
    folder = path.parent
    before = _listing(folder)
    with pytest.raises(StoreError, match=match) as err:
        Store.open(path, clock)
    assert str(err.value).startswith(str(path))
    assert "\n" not in str(err.value)
    assert _listing(folder) == before  # same files, same bytes; no -wal or -shm appeared


def _made_database(path: Path, clock) -> None:
    with Store.open(path, clock) as store:
        store.sync(bank(20))
        for card in store.cards()[:5]:
            store.review(card.card_id, 3, duration_ms=1)


def test_a_foreign_file_is_refused_untouched(tmp_path, clock):
    path = tmp_path / "notes.txt"
    path.write_bytes(os.urandom(8192))
    _refused(path, clock, "not a quizapp database")
    short = tmp_path / "short"
    short.write_text("hello")
    _refused(short, clock, "not a quizapp database")


def test_another_applications_sqlite_file_is_refused_untouched(tmp_path, clock):
    path = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('ada')")
    conn.commit()
    conn.close()
    _refused(path, clock, "not a quizapp one")


def test_a_corrupted_database_is_refused_untouched(tmp_path, clock):
    path = tmp_path / "quizapp.sqlite3"
    _made_database(path, clock)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    assert len(data) >= 4 * page
    data[2 * page: 3 * page] = os.urandom(page)  # scribble over a b-tree page
    path.write_bytes(bytes(data))
    _refused(path, clock, "corrupted")


def test_a_database_from_a_newer_version_is_refused_untouched(tmp_path, clock):
    path = tmp_path / "quizapp.sqlite3"
    _made_database(path, clock)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    assert not Path(f"{path}-wal").exists()
    _refused(path, clock, "newer quizapp .*schema version 99")


def test_refusing_creates_nothing(tmp_path, clock):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create the database folder") as err:
        Store.open(blocker / "sub" / "quizapp.sqlite3", clock)
    assert str(err.value).startswith(f"{blocker}: exists and is not a folder")
    with pytest.raises(StoreError, match="directory"):
        Store.open(tmp_path, clock)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "home"]


def test_default_location_is_a_private_folder(clock, tmp_path):
    from quizapp.locations import default_db_path

    with Store.open(None, clock) as store:
        assert store.path == default_db_path()
        assert str(store.path).startswith(str(tmp_path))  # the hermetic XDG_DATA_HOME
    folder = default_db_path().parent
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(default_db_path().stat().st_mode) & 0o077 == 0


def test_every_missing_parent_folder_is_private(tmp_path, clock):
    old = os.umask(0o022)  # the common umask: a plain mkdir would give 0755
    try:
        (tmp_path / "existing").mkdir(mode=0o755)
        path = tmp_path / "existing" / "a" / "b" / "c" / "quizapp.sqlite3"
        with Store.open(path, clock):
            pass
    finally:
        os.umask(old)
    for folder in (tmp_path / "existing" / "a", tmp_path / "existing" / "a" / "b", path.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE((tmp_path / "existing").stat().st_mode) == 0o755  # not ours: left alone


def test_wal_mode_and_busy_timeout(open_store):
    store = open_store()
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5000


def test_an_empty_file_becomes_a_new_database(tmp_path, clock):
    path = tmp_path / "empty.sqlite3"
    path.touch()
    with Store.open(path, clock) as store:
        assert store.sync(bank(1)).added == 2


def test_old_schema_is_migrated_forward_after_a_backup(tmp_path, clock):
    path = tmp_path / "quizapp.sqlite3"
    _made_database(path, clock)
    original = sha256(path)

    def add_note_column(conn):
        conn.exec_driver_sql("ALTER TABLE card ADD COLUMN note TEXT NOT NULL DEFAULT ''")

    now = SCHEMA_VERSION  # the file is made at this version; a next one adds a column
    with pytest.raises(StoreError, match=f"no migration from schema version {now + 1}"):
        open_engine(path, migrations={now: add_note_column}, current=now + 2)
    assert sha256(path) == original
    engine = open_engine(path, migrations={now: add_note_column}, current=now + 1)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT value FROM meta WHERE key='schema_version'").scalar() == str(now + 1)
            assert conn.exec_driver_sql("SELECT count(*) FROM card WHERE note = ''").scalar() == 40
    finally:
        engine.dispose()
    backup = sqlite3.connect(tmp_path / f"quizapp.sqlite3.v{now}.bak")
    assert backup.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == (str(now),)
    assert backup.execute("SELECT count(*) FROM review_log").fetchone() == (5,)
    backup.close()
    # this version of quizapp now refuses the migrated file, untouched
    _refused(path, clock, "newer quizapp")


def test_mock_tables_exist_in_version_one(open_store):
    store = open_store()
    with store.engine.connect() as conn:
        names = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"card", "review_log", "meta"} <= names
    from sqlmodel import SQLModel

    import quizapp.store.mock_tables  # noqa: F401

    assert set(SQLModel.metadata.tables) <= names | {t for t in SQLModel.metadata.tables if t.startswith("test")}


# --- processes ----------------------------------------------------------------------------------

REVIEWER = textwrap.dedent(
    """
    import random, sys
    from pathlib import Path
    from datetime import timezone
    sys.path.insert(0, {tests!r})
    from store_helpers import bank
    from quizapp.clock import SystemClock
    from quizapp.store import SchedulerConfig, Store

    path, seed, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    store = Store.open(path, SystemClock(), SchedulerConfig(enable_fuzzing=False, tz=timezone.utc))
    store.sync(bank(10))
    ids = [c.card_id for c in store.cards()]
    print("ready", flush=True)
    n = 0
    while count == 0 or n < count:
        store.review(rng.choice(ids), rng.choice((1, 2, 3, 3, 3, 4)), duration_ms=rng.randrange(90000))
        n += 1
        print(n, flush=True)
    store.close()
    """
).format(tests=str(Path(__file__).parent))


def _reviewer(path: Path, seed: int, count: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-c", REVIEWER, str(path), str(seed), str(count)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _assert_cards_agree_with_log(path: Path) -> int:
    """integrity_check passes, and replaying each card's log through fsrs gives its stored row."""
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()
    scheduler = fsrs.Scheduler(enable_fuzzing=False)
    with Store.open(path, SystemClock(), SchedulerConfig(enable_fuzzing=False)) as store:
        with Session(store.engine) as session:
            logs = session.exec(select(ReviewLog).order_by(ReviewLog.id)).all()
        for card in store.cards():
            mine = [log for log in logs if log.card_id == card.card_id]
            assert card.reps == len(mine)
            expected = fsrs.Card(card_id=1)
            for log in mine:
                expected, _ = scheduler.review_card(expected, fsrs.Rating(log.rating), log.reviewed_at)
            if mine:
                assert (card.state, card.step, card.stability, card.difficulty, card.due, card.last_review) == (
                    int(expected.state), expected.step, expected.stability, expected.difficulty,
                    expected.due, expected.last_review), card.card_id
            assert all(0 <= log.duration_ms <= 60_000 for log in mine)
        return len(logs)


@pytest.mark.slow
def test_sigkill_loses_at_most_the_review_in_flight(tmp_path):
    path = tmp_path / "quizapp.sqlite3"
    child = _reviewer(path, seed=3, count=0)
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        confirmed = 0
        while confirmed < 120:
            confirmed = int(child.stdout.readline())
        os.kill(child.pid, signal.SIGKILL)
        rest = child.stdout.read().split()
        confirmed = int(rest[-1]) if rest else confirmed
    finally:
        child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL
    logged = _assert_cards_agree_with_log(path)
    assert confirmed <= logged <= confirmed + 1


@pytest.mark.slow
def test_two_processes_review_the_same_database_concurrently(tmp_path):
    path = tmp_path / "quizapp.sqlite3"
    children = [_reviewer(path, seed=s, count=150) for s in (1, 2)]
    outputs = [child.communicate(timeout=120) for child in children]
    for child, (out, err) in zip(children, outputs):
        assert child.returncode == 0, err
        assert out.split()[-1] == "150"
    assert _assert_cards_agree_with_log(path) == 300
