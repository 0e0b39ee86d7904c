"""Forward schema migrations: MIGRATIONS[n] turns a version-n database into version n+1.

Each function runs inside the opening transaction (all or nothing), after a backup copy of the file
was written beside it (`<db>.v<n>.bak`, store/database.py). Add entries here (never edit a released
one) and bump SCHEMA_VERSION. Tables that are new in a version need no entry: they are created
after the migrations run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from sqlalchemy.engine import Connection

SCHEMA_VERSION = 4

Migration = Callable[[Connection], None]


def _columns(conn: Connection, table: str) -> set[str]:
    return {row[1] for row in conn.exec_driver_sql(f"PRAGMA table_info({table})")}


def mock_mistakes_by_id(conn: Connection) -> None:
    """1 -> 2: a mock item keeps its misconception as an id, named in the reader's language when shown.

    Version 1 also stored the name in the language of the day (`mistake_label`), so a debrief recorded
    in Chinese stayed Chinese. Every graded row already has its id (a question's own extra mistake is
    identified by its label); any row with only a label keeps it as the id; then the column goes.
    """
    if "mistake_label" not in _columns(conn, "mock_item"):
        return
    conn.exec_driver_sql("UPDATE mock_item SET mistake_id = mistake_label"
                         " WHERE mistake_id IS NULL AND mistake_label IS NOT NULL")
    conn.exec_driver_sql("ALTER TABLE mock_item DROP COLUMN mistake_label")


def wrong_answers_index(conn: Connection) -> None:
    """1 -> 2: the partial index of wrong answers that `mistake:ID` searches use (srs_tables.py).

    A new file gets it with its tables; create_all skips a table that exists, and its new indexes with
    it, so a version-1 file gets it here, with the same definition.
    """
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_review_log_wrong ON review_log (card_id, id, mistake)"
                         " WHERE verdict = 'wrong'")


def to_version_2(conn: Connection) -> None:
    """1 -> 2: mistakes stored by id in mock items; the wrong-answers index on review_log."""
    mock_mistakes_by_id(conn)
    wrong_answers_index(conn)


def to_version_3(conn: Connection) -> None:
    """2 -> 3: the key points each self-graded answer covered (review_point, tables.py), so history
    keeps what was covered, created here with its indexes as create_all would make them; and the
    debrief's ticks of a mock item (mock_item.points)."""
    from quizapp.store.tables import ReviewPoint

    ReviewPoint.__table__.create(conn, checkfirst=True)
    if "points" not in _columns(conn, "mock_item"):  # the debrief's ticks of a mock item
        conn.exec_driver_sql("ALTER TABLE mock_item ADD COLUMN points VARCHAR")


def to_version_4(conn: Connection) -> None:
    """3 -> 4: the partial, covering index of graded drill answers that the statistics' drill accuracy
    and top mistakes walk (srs_tables.py), with the definition a new file gets from create_all."""
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_review_log_graded ON review_log (card_id, verdict, mistake)"
                         " WHERE verdict IS NOT NULL")


MIGRATIONS: Mapping[int, Migration] = MappingProxyType({1: to_version_2, 2: to_version_3, 3: to_version_4})
