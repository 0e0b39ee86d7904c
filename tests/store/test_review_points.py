"""Key-point ticks stored with a review (review_point, schema version 3): written in the review's
transaction, removed by its undo, migrated into a version-2 file, read by the statistics and by the
`missed:POINT` search."""

from __future__ import annotations

import sqlite3

from quizapp.content.bank import CardSpec
from quizapp.store import Store
from quizapp.store.migrations import SCHEMA_VERSION
from quizapp.vocab import CardKind, Rating

CARDS = [CardSpec("kv/question/main", "kv", CardKind.QUESTION, "main", "inference", 0),
         CardSpec("kv/followup/gqa", "kv", CardKind.FOLLOWUP, "gqa", "inference", 1),
         CardSpec("zero/question/main", "zero", CardKind.QUESTION, "main", "llm-training", 2)]


def _rows(path, sql, *params):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def test_ticks_are_stored_with_the_review_and_undo_removes_them(open_store, db_path):
    store = open_store()
    store.sync(CARDS)
    store.review("kv/question/main", Rating.Hard, duration_ms=900, points={"formula": True, "kv-heads": False})
    assert _rows(db_path, "SELECT p.card_id, p.point, p.covered, l.rating FROM review_point p"
                          " JOIN review_log l ON l.id = p.review_id ORDER BY p.point") == [
        ("kv/question/main", "formula", 1, 2), ("kv/question/main", "kv-heads", 0, 2)]
    assert store.undo() == "kv/question/main"
    assert _rows(db_path, "SELECT count(*) FROM review_point") == [(0,)]
    assert _rows(db_path, "SELECT count(*) FROM review_log") == [(0,)]


def test_a_review_without_points_writes_none(open_store, db_path):
    store = open_store()
    store.sync(CARDS)
    store.review("kv/question/main", Rating.Good, duration_ms=900)
    assert _rows(db_path, "SELECT count(*) FROM review_point") == [(0,)]


def test_a_version_2_file_gets_the_points_table_and_column_after_a_backup(tmp_path, clock):
    path = tmp_path / "quizapp.sqlite3"
    Store.open(path, clock).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DROP TABLE review_point")
        conn.execute("ALTER TABLE mock_item DROP COLUMN points")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    conn.close()
    assert SCHEMA_VERSION >= 3
    store = Store.open(path, clock)
    store.sync(CARDS)
    store.review("kv/question/main", Rating.Good, duration_ms=10, points={"formula": True})
    store.close()
    assert _rows(path, "SELECT value FROM meta WHERE key = 'schema_version'") == [(str(SCHEMA_VERSION),)]
    assert "points" in {r[1] for r in _rows(path, "PRAGMA table_info(mock_item)")}
    assert _rows(path, "SELECT point, covered FROM review_point") == [("formula", 1)]
    assert (tmp_path / "quizapp.sqlite3.v2.bak").exists()
    indexes = {r[1] for r in _rows(path, "PRAGMA index_list(review_point)")}
    assert {"ix_review_point_review", "ix_review_point_missed"} <= indexes


def test_statistics_list_the_points_missed_most_in_the_window(open_store, clock):
    from quizapp.store import stats

    store = open_store()
    store.sync(CARDS)
    store.review("kv/question/main", Rating.Again, duration_ms=10, points={"formula": False, "linear": False})
    clock.advance(40 * 86400)
    store.review("kv/question/main", Rating.Hard, duration_ms=10, points={"formula": False, "linear": True})
    store.review("zero/question/main", Rating.Good, duration_ms=10, points={"sixteen": True})
    store.review("kv/followup/gqa", Rating.Hard, duration_ms=10, points={"shrinks": False})
    figures = stats.collect(store)
    # 30 days: only the second kv review and the follow-up; "sixteen" was never missed
    assert [(p.card_id, p.point, p.topic, p.missed, p.seen) for p in figures.points] == [
        ("kv/followup/gqa", "shrinks", "inference", 1, 1), ("kv/question/main", "formula", "inference", 1, 1)]
    # 90 days: formula missed twice of two, linear once of two
    assert [(p.point, p.missed, p.seen) for p in figures.points_90] == [
        ("formula", 2, 2), ("linear", 1, 2), ("shrinks", 1, 1)]
    assert stats.to_json(figures, 90)["points"][0] == {"card_id": "kv/question/main", "point": "formula",
                                                        "topic": "inference", "missed": 2, "seen": 2}


def test_missed_search_finds_cards_whose_last_answer_missed_the_point(open_store, clock):
    from quizapp.store.search import find_ids

    store = open_store()
    store.sync(CARDS)
    store.review("kv/question/main", Rating.Hard, duration_ms=10, points={"formula": False})
    store.review("zero/question/main", Rating.Hard, duration_ms=10, points={"formula": False})
    clock.advance(3 * 86400)
    store.review("zero/question/main", Rating.Good, duration_ms=10, points={"formula": True})  # covered since
    assert find_ids(store, "missed:formula") == ["kv/question/main"]
    assert find_ids(store, "missed:form*") == ["kv/question/main"]
    assert find_ids(store, "-missed:formula") == ["kv/followup/gqa", "zero/question/main"]
    assert find_ids(store, "missed:nothing") == []
