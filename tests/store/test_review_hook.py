"""`Store.review(also=...)`: extra writes share the review's transaction, all or nothing."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import text

from store_helpers import bank


def _log_count(path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM review_log").fetchone()[0]


def test_a_failing_extra_write_rolls_the_review_back(open_store, db_path):
    store = open_store()
    store.sync(bank(1))
    card_id = store.next_card().card_id
    before = store.card(card_id)

    def fail(conn):
        raise RuntimeError("crash between the review and the extra write")

    with pytest.raises(RuntimeError):
        store.review(card_id, 3, duration_ms=1000, also=fail)
    assert _log_count(db_path) == 0
    assert store.card(card_id) == before


def test_an_extra_write_commits_with_the_review(open_store, db_path):
    store = open_store()
    store.sync(bank(1))
    card_id = store.next_card().card_id
    store.review(card_id, 3, duration_ms=1000,
                 also=lambda conn: conn.execute(text("INSERT INTO meta (key, value) VALUES ('probe', '1')")))
    assert _log_count(db_path) == 1
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'probe'").fetchone() == ("1",)
