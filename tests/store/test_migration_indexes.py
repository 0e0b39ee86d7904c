"""Schema 1 -> 2 also adds the partial index of wrong answers (srs_tables.WRONG_ANSWERS_INDEX) that a
version-1 file lacks: create_all skips an existing table and so its new indexes. Schema 3 -> 4 adds
the graded-answers index (srs_tables.GRADED_ANSWERS_INDEX) the same way."""

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
    # a mistake search walks an index of the answers, never the table: the wrong answers' index, or
    # (since schema 4) the graded answers' covering index, which SQLite may prefer at the same cost
    plan = _plan(path)
    assert "INDEX ix_review_log_wrong" in plan or "COVERING INDEX ix_review_log_graded" in plan, plan
    conn = sqlite3.connect(path)
    try:
        conn.execute("DROP INDEX ix_review_log_graded")
    finally:
        conn.close()
    assert "ix_review_log_wrong" in _plan(path)  # and without that one, the migrated index serves it


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


def _version_3_file(path, clock):
    """A file as schema version 3 left it: without the graded-answers index."""
    Store.open(path, clock).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DROP INDEX ix_review_log_graded")
        conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    conn.close()


def _graded_index(path):
    conn = sqlite3.connect(path)
    try:
        cols = [r[2] for r in conn.execute("PRAGMA index_info(ix_review_log_graded)")]
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'ix_review_log_graded'").fetchone()
        plan = " ".join(str(r[-1]) for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT c.topic, l.verdict, count(*) FROM review_log l JOIN card c"
            " ON c.card_id = l.card_id WHERE c.kind = 'drill' AND l.verdict IN ('correct', 'wrong') GROUP BY 1, 2"))
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    finally:
        conn.close()
    return cols, sql[0] if sql else None, plan, version


def test_a_version_3_file_gets_the_graded_answers_index_as_a_new_file_has_it(tmp_path, clock):
    from quizapp.store.migrations import SCHEMA_VERSION

    new = tmp_path / "new.sqlite3"
    Store.open(new, clock).close()
    old = tmp_path / "old.sqlite3"
    _version_3_file(old, clock)
    assert _graded_index(old)[1] is None
    Store.open(old, clock).close()
    assert (tmp_path / "old.sqlite3.v3.bak").exists()
    for path in (old, new):
        cols, sql, plan, version = _graded_index(path)
        assert cols == ["card_id", "verdict", "mistake"] and "WHERE verdict IS NOT NULL" in sql
        assert "COVERING INDEX ix_review_log_graded" in plan  # what the statistics' accuracy query walks
        assert version == (str(SCHEMA_VERSION),)


def test_a_read_only_view_of_a_version_3_file_upgrades_only_its_copy(tmp_path, clock):
    import hashlib

    path = tmp_path / "old.sqlite3"
    _version_3_file(path, clock)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with Store.open(path, clock, read_only=True) as store:
        from quizapp.store import stats

        assert stats.drill_accuracy(store)[-1].topic == ""  # the total row, from the upgraded copy
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert _graded_index(path)[1] is None
