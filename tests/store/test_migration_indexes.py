"""Schema 1 -> 2 also adds the partial index of wrong answers (srs_tables.WRONG_ANSWERS_INDEX) that a
version-1 file lacks: create_all skips an existing table and so its new indexes."""

from __future__ import annotations

import sqlite3

from test_mock_migration import make_version_1

from quizapp.store import Store


def _index(path) -> str | None:
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'ix_review_log_wrong'").fetchone()
    finally:
        conn.close()
    return row[0] if row else None


def _plan(path) -> str:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("EXPLAIN QUERY PLAN SELECT card_id, max(id) FROM review_log WHERE verdict = 'wrong'"
                            " AND mistake = 'no-optimizer' GROUP BY card_id").fetchall()
    finally:
        conn.close()
    return " ".join(str(r[-1]) for r in rows)


def test_a_version_1_file_gets_the_wrong_answers_index(tmp_path, clock):
    path = tmp_path / "quizapp.sqlite3"
    make_version_1(path, clock)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DROP INDEX IF EXISTS ix_review_log_wrong")  # version 1 never had it
    conn.close()
    assert _index(path) is None

    Store.open(path, clock).close()
    assert _index(path) is not None
    assert "ix_review_log_wrong" in _plan(path)  # the index SQLite actually uses for a mistake search


def test_the_migrated_index_matches_a_new_files(tmp_path, clock):
    new = tmp_path / "new.sqlite3"
    Store.open(new, clock).close()
    old = tmp_path / "old.sqlite3"
    make_version_1(old, clock)
    conn = sqlite3.connect(old)
    with conn:
        conn.execute("DROP INDEX IF EXISTS ix_review_log_wrong")
    conn.close()
    Store.open(old, clock).close()

    def columns_and_condition(path):
        conn = sqlite3.connect(path)
        try:
            cols = [r[2] for r in conn.execute("PRAGMA index_info(ix_review_log_wrong)")]
            partial = conn.execute("SELECT partial FROM pragma_index_list('review_log')"
                                   " WHERE name = 'ix_review_log_wrong'").fetchone()
        finally:
            conn.close()
        return cols, partial

    assert columns_and_condition(old) == columns_and_condition(new) == (["card_id", "id", "mistake"], (1,))
    assert "verdict = 'wrong'" in _index(old) and "verdict = 'wrong'" in _index(new)
