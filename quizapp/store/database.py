"""Opening the database file safely: refuse foreign, corrupted or newer files before anything writes.

SQLAlchemy and SQLite are only let near the file once a read-only check has passed: the first 100
bytes must be SQLite's header (with quizapp's application id or none), and a read-only connection
that creates nothing beside the file (`connect_read_only`: a mode=ro URI, or an in-memory copy of a
cleanly closed WAL file; never `immutable`) runs `PRAGMA quick_check` and reads meta.schema_version.
A refused file is left byte for byte as it was, and a missing file is only created once we know it
is ours to create. Commands that only read use `open_read_only_engine`: an in-memory copy of the
file (an older schema is upgraded in the copy only), no create, no migration of the file, no WAL
switch, and every connection is `query_only`.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import bindparam, create_engine, event, select
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlmodel import SQLModel

import quizapp.store.mock_tables  # noqa: F401  (their tables belong to schema version 1)
import quizapp.store.srs_tables  # noqa: F401  (flags, card-operation journal, imported history)
from quizapp.store.errors import StoreError
from quizapp.store.migrations import MIGRATIONS, SCHEMA_VERSION, Migration
from quizapp.store.tables import Meta

SQLITE_HEADER = b"SQLite format 3\x00"
APPLICATION_ID = 0x5155495A  # "QUIZ" in PRAGMA application_id marks the file as quizapp's
BUSY_TIMEOUT_MS = 5000
UNTOUCHED = "the file was left untouched"


class NoHistory(StoreError):
    """A read-only open found no quizapp history: no file, an empty file or an SQLite file with no tables.

    Commands that only read catch it and show their empty result (exit 0); nothing was created.
    """


WAL_FORMAT = 2  # header bytes 18-19 (write/read format version): 2 = the file is in WAL mode
SNAPSHOT_TRIES = 3


def _stat(path: Path) -> os.stat_result | None:
    """os.stat, None for a missing file; StoreError for any other failure (a name too long, a loop)."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    except OSError as exc:
        raise StoreError(f"{path}: cannot use this database path: {exc.strerror or exc}") from None


def _read_header(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(100)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the database: {exc.strerror or exc}") from None


def _snapshot(path: Path) -> bytearray | None:
    """The whole file, read while no writer touched it (same inode, size, mtime; still no -wal), or None.

    Read straight into a bytearray: the caller edits its header and SQLite deserializes it, with no
    further copy of a file that reaches tens of MiB after a year of reviews."""
    wal = Path(f"{path}-wal")
    for _ in range(SNAPSHOT_TRIES):
        before = os.stat(path)
        data = bytearray(before.st_size)
        with open(path, "rb") as handle:
            got = handle.readinto(data)
            if got != before.st_size or handle.read(1):
                continue  # the file changed size while it was read: try again
        after = os.stat(path)
        same = (before.st_ino, before.st_size, before.st_mtime_ns) == (after.st_ino, after.st_size, after.st_mtime_ns)
        if same and len(data) == after.st_size and not os.path.lexists(wal):
            return data
    return None


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A query_only sqlite3 connection on `path` that creates, writes and leaves nothing beside it.

    A WAL-mode file with no -wal beside it (closed cleanly, so every commit is in the file itself) is
    read into memory and opened from there: SQLite opening such a file, even with mode=ro, creates
    -wal and -shm files that a read-only connection can never remove (it does not checkpoint), and
    that block the owner's writes if another user made them. Anything else (a file in rollback mode,
    or one a writer is using right now) is opened with a mode=ro URI, so SQLite takes its usual
    read locks and sees the writer's commits; never `immutable`, which ignores a concurrent writer.
    StoreError (naming the path) if it cannot be opened.
    """
    try:
        header = _read_header(path)
        data = None
        if len(header) >= 20 and header[19] == WAL_FORMAT and not os.path.lexists(f"{path}-wal"):
            data = _snapshot(path)
        if data is not None:
            data[18] = data[19] = 1  # an in-memory database cannot be in WAL mode; the file is not touched
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.deserialize(data)  # SQLite copies the buffer into its own
        else:
            conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, check_same_thread=False,
                                   timeout=BUSY_TIMEOUT_MS / 1000)
        conn.execute("PRAGMA query_only = ON")
        return conn
    except (sqlite3.Error, OSError) as exc:
        raise StoreError(f"{path}: cannot open the database read-only ({exc}); {UNTOUCHED}") from None


def inspect_file(path: Path, current: int = SCHEMA_VERSION) -> int | None:
    """The schema version of an existing quizapp database, or None if there is nothing there yet.

    Raises StoreError (naming the path) for a directory, an unreadable, foreign or corrupted file,
    or a database written by a newer version. Never writes to the file or beside it.
    """
    version, conn = _inspect(path, current, keep=False)
    return version


def _inspect(path: Path, current: int, keep: bool) -> tuple[int | None, sqlite3.Connection | None]:
    """inspect_file's checks; with keep=True the read-only connection they used is returned open."""
    found = _stat(path)
    if found is None:
        return None, None
    if not stat.S_ISREG(found.st_mode):
        kind = ("a directory" if stat.S_ISDIR(found.st_mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(found.st_mode)
                else "a device or socket")
        raise StoreError(f"{path}: not a database file (it is {kind}); give the path of a quizapp database file")
    header = _read_header(path)
    if not header:
        return None, None  # an empty file holds no data: SQLite treats it as a new database
    if len(header) < 100 or not header.startswith(SQLITE_HEADER):
        raise StoreError(f"{path}: not a quizapp database (not an SQLite file); {UNTOUCHED}")
    if int.from_bytes(header[68:72], "big") not in (0, APPLICATION_ID):  # refused before SQLite opens it
        raise StoreError(f"{path}: an SQLite database of another application, not quizapp's; {UNTOUCHED}")
    conn = connect_read_only(path)
    try:
        check = conn.execute("PRAGMA quick_check").fetchall()
        if check != [("ok",)]:
            raise StoreError(f"{path}: the database is corrupted ({check[0][0]}); {UNTOUCHED}")
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        if app_id not in (0, APPLICATION_ID):
            raise StoreError(f"{path}: an SQLite database of another application, not quizapp's; {UNTOUCHED}")
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        user_version = conn.execute("PRAGMA user_version").fetchone()[0]
        if user_version != 0 and "meta" not in tables:  # quizapp never sets it: another program's file
            raise StoreError(f"{path}: an SQLite database of another application (user_version {user_version}), "
                             f"not quizapp's; {UNTOUCHED}")
        if not tables:
            conn.close()
            return None, None  # an empty SQLite database: ours to initialise
        if "meta" not in tables:
            raise StoreError(f"{path}: an SQLite database but not a quizapp one (no meta table); {UNTOUCHED}")
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.Error as exc:
        conn.close()
        raise StoreError(f"{path}: the database is corrupted or unreadable ({exc}); {UNTOUCHED}") from None
    except BaseException:
        conn.close()
        raise
    try:
        version = int(row[0]) if row is not None else None
    except (TypeError, ValueError):
        version = None
    if version is None or version < 1:
        conn.close()
        raise StoreError(f"{path}: the database has no valid schema version; {UNTOUCHED}")
    if version > current:
        conn.close()
        raise StoreError(
            f"{path}: written by a newer quizapp (schema version {version}, this one reads up to "
            f"{current}); upgrade quizapp; {UNTOUCHED}"
        )
    if not keep:
        conn.close()
        return version, None
    return version, conn


def open_read_only_engine(
    path: Path,
    current: int = SCHEMA_VERSION,
    migrations: Mapping[int, Migration] = MIGRATIONS,
) -> Engine:
    """An engine that only reads the quizapp database at `path`: for commands that change nothing.

    It reads a copy of the database in memory, taken when it opens (the file's bytes for a cleanly
    closed file, else SQLite's backup through a mode=ro connection, which sees what a running app has
    committed to its -wal). A file from an older quizapp is upgraded in that copy only, and tables
    added since the file was made are created there, so every query of this version works; the file
    itself is never written, migrated or switched to WAL, and nothing is created beside it. Every
    connection is query_only (a write fails with "attempt to write a readonly database").
    NoHistory if there is no history to read (missing, empty, or an SQLite file with no tables);
    StoreError for a foreign, damaged or newer file, left untouched.
    """
    found = _stat(path)
    if found is None:
        raise NoHistory(f"{path}: no review history yet (there is no database file; the app creates it)")
    version, conn = _inspect(path, current, keep=True)
    if version is None:
        raise NoHistory(f"{path}: no review history yet (the file holds no quizapp data); {UNTOUCHED}")
    assert conn is not None
    missing = [v for v in range(version, current) if v not in migrations]
    if missing:
        conn.close()
        raise StoreError(f"{path}: no migration from schema version {missing[0]}; {UNTOUCHED}")
    try:
        memory = _copy_in_memory(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise StoreError(f"{path}: cannot read the database ({exc}); {UNTOUCHED}") from None
    if memory is not conn:
        conn.close()  # the file's read-only connection: done with it, nothing was left beside the file
    engine = create_engine("sqlite://", creator=lambda: memory, poolclass=StaticPool)
    _configure(engine)
    try:
        with engine.execution_options(immediate=True).begin() as copy:
            for step in range(version, current):
                migrations[step](copy)
                _set_version(copy, step + 1)
            SQLModel.metadata.create_all(copy)  # tables this version has that the file predates
        memory.execute("PRAGMA query_only = ON")
    except (SQLAlchemyError, sqlite3.Error) as exc:
        engine.dispose()
        reason = getattr(exc, "orig", None) or exc
        raise StoreError(f"{path}: cannot read the database: {reason}; {UNTOUCHED}") from None
    return engine


def empty_engine() -> Engine:
    """A new, empty quizapp database in memory (nothing on disk): what a read-only view starts from
    when the user has no database yet, so the bank's cards can be shown as new ones."""
    memory = sqlite3.connect(":memory:", check_same_thread=False)
    engine = create_engine("sqlite://", creator=lambda: memory, poolclass=StaticPool)
    _configure(engine)
    with engine.execution_options(immediate=True).begin() as conn:
        SQLModel.metadata.create_all(conn)
        _set_version(conn, SCHEMA_VERSION)
    return engine


def set_query_only(engine: Engine, on: bool) -> None:
    """Lock (or unlock) the in-memory copy a read-only engine reads; its file is never involved."""
    raw = engine.raw_connection()
    try:
        raw.driver_connection.execute(f"PRAGMA query_only = {'ON' if on else 'OFF'}")
    finally:
        raw.close()


def _is_memory(conn: sqlite3.Connection) -> bool:
    return conn.execute("PRAGMA database_list").fetchone()[2] == ""


def _copy_in_memory(conn: sqlite3.Connection) -> sqlite3.Connection:
    """`conn`'s database as a writable in-memory connection (itself when it already is one)."""
    if _is_memory(conn):
        conn.execute("PRAGMA query_only = OFF")
        return conn
    memory = sqlite3.connect(":memory:", check_same_thread=False)
    conn.backup(memory)
    return memory


def ensure_directory(directory: Path) -> None:
    """Create the database's folder and every missing parent, each readable by the user only.

    One mkdir per missing level: Path.mkdir(parents=True) gives intermediate folders the default
    mode (0777 less the umask), not `mode`. Folders that already exist are left as they are.
    """
    if directory.is_dir():
        return
    missing: list[Path] = []
    folder = directory
    while not os.path.lexists(folder):
        missing.append(folder)
        folder = folder.parent
    if not folder.is_dir():
        raise StoreError(f"{folder}: exists and is not a folder; cannot create the database folder there")
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            if folder.is_dir():  # another instance created it just now
                continue
            raise StoreError(f"{folder}: exists and is not a folder; cannot create the database folder there") from None
        except OSError as exc:
            raise StoreError(f"{folder}: cannot create the database folder: {exc.strerror or exc}") from None
        try:
            os.chmod(folder, 0o700)  # mkdir's mode is reduced by the umask
        except OSError as exc:
            raise StoreError(f"{folder}: cannot make the folder private: {exc.strerror or exc}") from None


def make_engine(path: Path) -> Engine:
    """A SQLAlchemy engine with busy_timeout, synchronous=NORMAL and explicit transactions.

    synchronous=NORMAL is SQLite's advice for WAL: every commit is atomic and survives the app being
    killed; only a power cut or OS crash can roll back the last few commits (never corrupting the
    file). FULL would fsync on every answer (several ms each).

    pysqlite's own transaction handling is switched off (isolation_level=None) and BEGIN is issued
    on SQLAlchemy's "begin" event: plain BEGIN for readers, BEGIN IMMEDIATE for connections with the
    execution option immediate=True (the store's writes). IMMEDIATE takes the write lock up front,
    so a read-then-write transaction waits on busy_timeout instead of failing with "database is locked".
    """
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
    )
    _configure(engine)
    return engine


def _configure(engine: Engine) -> None:
    """The connection settings and BEGIN handling make_engine describes (read-only engines share them)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get("immediate", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _backup(engine: Engine, path: Path, version: int) -> Path:
    """Copy the database (SQLite's online backup) to <path>.v<version>.bak before migrating it."""
    target = Path(f"{path}.v{version}.bak")
    n = 1
    while target.exists():
        n += 1
        target = Path(f"{path}.v{version}.{n}.bak")
    copy_database(engine, target)
    return target


def copy_database(engine: Engine, target: Path) -> None:
    """Write a consistent copy of the database to `target` (SQLite's online backup; the source only reads)."""
    raw = engine.raw_connection()
    try:
        dest = sqlite3.connect(target)
        try:
            raw.driver_connection.backup(dest)
        finally:
            dest.close()
    finally:
        raw.close()


META = Meta.__table__
_INSERT_VERSION = sqlite_insert(META).values(key="schema_version", value=bindparam("version"))
SET_VERSION = _INSERT_VERSION.on_conflict_do_update(index_elements=[META.c.key],
                                                   set_={"value": _INSERT_VERSION.excluded.value})


def _read_version(conn: Connection) -> int | None:
    value = conn.execute(select(META.c.value).where(META.c.key == "schema_version")).scalar_one_or_none()
    return int(value) if value is not None else None


def _set_version(conn: Connection, version: int) -> None:
    conn.execute(SET_VERSION, {"version": str(version)})


def open_engine(
    path: Path,
    *,
    migrations: Mapping[int, Migration] = MIGRATIONS,
    current: int = SCHEMA_VERSION,
) -> Engine:
    """Check, create or migrate the database at `path` and return an engine on it."""
    version = inspect_file(path, current)
    if path.exists():
        _check_writable(path)
    if version is None and not path.exists():
        ensure_directory(path.parent)
        try:
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))  # user-only, like its folder
        except OSError as exc:
            raise StoreError(f"{path}: cannot create the database: {exc.strerror or exc}") from None
    engine = make_engine(path)
    try:
        if version is not None and version < current:
            missing = [v for v in range(version, current) if v not in migrations]
            if missing:
                raise StoreError(f"{path}: no migration from schema version {missing[0]}; {UNTOUCHED}")
            _backup(engine, path, version)
        _retry_while_locked(lambda: _switch_to_wal(engine, path))
        _retry_while_locked(lambda: _initialise(engine, path, migrations, current))
    except StoreError:
        engine.dispose()
        raise
    except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
        engine.dispose()
        reason = getattr(exc, "orig", None) or exc
        raise StoreError(f"{path}: cannot open the database: {reason}") from None
    return engine


def _check_writable(path: Path) -> None:
    """Refuse a file we may not write before SQLite opens it: SQLite would open it read-only anyway and
    leave a -wal and -shm beside it in a writable folder, then fail on the first write."""
    try:
        os.close(os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0)))  # opens for writing, writes nothing
    except OSError as exc:
        raise StoreError(f"{path}: cannot write the database ({exc.strerror or exc}); commands that only read "
                         f"still work; {UNTOUCHED}") from None


def _switch_to_wal(engine: Engine, path: Path) -> None:
    """WAL is a property of the file (kept across connections), set once when opening."""
    raw = engine.raw_connection()
    try:
        mode = raw.driver_connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    finally:
        raw.close()
    if mode != "wal":
        raise StoreError(f"{path}: cannot switch the database to WAL mode (got {mode})")


def _initialise(engine: Engine, path: Path, migrations: Mapping[int, Migration], current: int) -> None:
    """Create the tables of a new file, or migrate an old one, in one IMMEDIATE transaction."""
    with engine.execution_options(immediate=True).begin() as conn:
        found = _read_version(conn) if conn.dialect.has_table(conn, "meta") else None
        if found is None:
            SQLModel.metadata.create_all(conn)
            conn.exec_driver_sql(f"PRAGMA application_id = {APPLICATION_ID}")
            _set_version(conn, current)
        else:
            if found > current:  # another, newer quizapp got there between the check and now
                raise StoreError(f"{path}: written by a newer quizapp (schema version {found}); {UNTOUCHED}")
            for step in range(found, current):
                migrations[step](conn)
                _set_version(conn, step + 1)
            SQLModel.metadata.create_all(conn)  # tables added to this version since the file was made


def _retry_while_locked(action) -> None:
    """Run `action`, retrying while another process holds the lock at creation time.

    Two instances creating the same new file at once can see SQLITE_BUSY without the busy handler
    being consulted (switching a fresh file to WAL needs an exclusive lock); retry up to the busy timeout.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return action()
        except OperationalError as exc:
            locked = "locked" in str(exc.orig) or "busy" in str(exc.orig)
            if not locked or time.monotonic() > deadline:
                raise
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(0.05)
