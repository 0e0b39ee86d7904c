"""Schema 1 -> 2: a mock item's misconception becomes its id only (the stored label in the language of the
day goes); the file is backed up first, as every migration is."""

from __future__ import annotations

import sqlite3

from quizapp.store import Store
from quizapp.store.migrations import SCHEMA_VERSION


def make_version_1(path, clock) -> None:
    """A database as schema version 1 left it: mock_item with its mistake_label column, labels in Chinese."""
    Store.open(path, clock).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("ALTER TABLE mock_item ADD COLUMN mistake_label VARCHAR")
        conn.execute("INSERT INTO mock_session (id, started_at, completed, question_count, minutes, followups,"
                     " topics, strict, elapsed_s, applied) VALUES (1, '2026-11-29 12:00:00.000000', 1, 1, 5, 0, '',"
                     " 0, 10, 0)")
        for item_id, mistake_id, label in ((1, "no-optimizer", "看起来漏算了优化器状态"), (2, None, "作者自己的标签"),
                                           (3, None, None)):
            conn.execute("INSERT INTO mock_item (id, session_id, position, question_index, kind, card_id, question_id,"
                         " item_id, topic, prompt, budget_s, elapsed_s, auto_advanced, draft, mistake_id, mistake_label)"
                         " VALUES (?, 1, ?, 0, 'drill', 'q/drill/d', 'q', 'd', 't', 'p', 60, 10, 0, '', ?, ?)",
                         (item_id, item_id - 1, mistake_id, label))
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    conn.close()


def test_labels_become_ids_and_the_column_goes_after_a_backup(tmp_path, clock):
    path = tmp_path / "quizapp.sqlite3"
    make_version_1(path, clock)
    Store.open(path, clock).close()

    conn = sqlite3.connect(path)
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(mock_item)")}
        rows = conn.execute("SELECT id, mistake_id FROM mock_item ORDER BY id").fetchall()
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    finally:
        conn.close()
    assert "mistake_label" not in columns
    assert rows == [(1, "no-optimizer"), (2, "作者自己的标签"), (3, None)]  # an author's own label is its id
    assert int(version) == SCHEMA_VERSION

    backup = tmp_path / "quizapp.sqlite3.v1.bak"
    assert backup.exists()
    old = sqlite3.connect(backup)
    try:
        assert old.execute("SELECT mistake_label FROM mock_item WHERE id = 1").fetchone() == ("看起来漏算了优化器状态",)
    finally:
        old.close()
