"""Card operations (suspend, bury, reset, set due, flag): one transaction each, journaled, undoable,
also from the command line (`quizapp cards`), and undoable in the app after the command ran."""

from __future__ import annotations

import hashlib
import sqlite3
import json
from datetime import timedelta

import pytest

from quizapp.cli import main
from quizapp.clock import FakeClock
from quizapp.store import SchedulerConfig, Store, StoreError
from quizapp.store import card_ops
from quizapp.store.card_ops import DueSpec, DueSpecError, parse_due
from quizapp.store.search import find_ids, stored_time
from tests.srs.conftest import ALL, NOW, UTC, A, B, C, D, E, F, G, H


def _cards(store) -> dict[str, dict]:
    with store.engine.connect() as conn:
        return {r["card_id"]: dict(r) for r in conn.exec_driver_sql("SELECT * FROM card").mappings()}


def _logs(store) -> list[tuple]:
    with store.engine.connect() as conn:
        return conn.exec_driver_sql("SELECT * FROM review_log ORDER BY id").all()


def test_bulk_suspend_is_one_journaled_change_and_undo_restores_every_row(fixture_store):
    before = _cards(fixture_store)
    result = card_ops.apply(fixture_store, "suspend", list(ALL))
    assert set(result.changed) == set(ALL) - {D} and result.skipped == {D: "already"}
    after = _cards(fixture_store)
    assert all(after[c]["suspended"] == 1 for c in ALL)
    assert {c: {k: v for k, v in row.items() if k != "suspended"} for c, row in after.items()} == \
        {c: {k: v for k, v in row.items() if k != "suspended"} for c, row in before.items()}
    with fixture_store.engine.connect() as conn:
        ops = conn.exec_driver_sql("SELECT action, cards, undone FROM card_operation").all()
    assert ops == [("suspend", 7, 0)]
    undone = fixture_store.undo_operation()
    assert undone.action == "suspend" and set(undone.cards) == set(ALL) - {D}
    assert _cards(fixture_store) == before
    assert fixture_store.undo_operation() is None


def test_unsuspend_bury_and_flags(fixture_store):
    assert card_ops.apply(fixture_store, "unsuspend", [D, A]).changed == (D,)
    assert _cards(fixture_store)[D]["suspended"] == 0 and _cards(fixture_store)[D]["leech"] == 1  # the tag stays
    assert card_ops.apply(fixture_store, "bury", [A, F]).changed == (A,)  # F is buried until tomorrow already
    assert set(find_ids(fixture_store, "is:buried")) == {A, F}
    card_ops.apply(fixture_store, "flag", [B, C], 3)
    assert card_ops.flags(fixture_store, [A, B, C]) == {A: 1, B: 3, C: 3}
    card_ops.apply(fixture_store, "flag", [A], 0)
    assert card_ops.flags(fixture_store) == {B: 3, C: 3, F: 4, H: 1}
    fixture_store.undo_operation()  # the flag removal
    assert card_ops.flags(fixture_store)[A] == 1
    fixture_store.undo_operation()  # flag 3
    assert card_ops.flags(fixture_store) == {A: 1, F: 4, H: 1}


def test_reset_keeps_or_deletes_history_and_undo_brings_it_back(fixture_store):
    logs = _logs(fixture_store)
    before = _cards(fixture_store)
    card_ops.apply(fixture_store, "reset", [A, H])
    cards = _cards(fixture_store)
    for cid in (A, H):
        assert (cards[cid]["reps"], cards[cid]["lapses"], cards[cid]["stability"], cards[cid]["state"]) == (0, 0, None, 1)
        assert cards[cid]["due"] == stored_time(NOW)
    assert _logs(fixture_store) == logs and set(find_ids(fixture_store, "is:new")) == {A, C, G, H}
    fixture_store.undo_operation()
    assert _cards(fixture_store) == before
    card_ops.apply(fixture_store, "reset_history", [E])
    assert [log for log in _logs(fixture_store) if log[1] == E] == []
    fixture_store.undo_operation()
    assert _logs(fixture_store) == logs and _cards(fixture_store) == before


@pytest.mark.parametrize(("text", "spec"), [("0", DueSpec(0, 0)), ("3", DueSpec(3, 3)), ("3-7", DueSpec(3, 7)),
                                             (" 3 - 7 ", DueSpec(3, 7))])
def test_due_specs(text, spec):
    assert parse_due(text) == spec


@pytest.mark.parametrize("text", ["", "x", "-1", "7-3", "3-", "1.5", "3d", "40000"])
def test_bad_due_specs(text):
    with pytest.raises(DueSpecError):
        parse_due(text)


def test_set_due_today_in_days_and_in_a_range(fixture_store):
    start = fixture_store.day_bounds(NOW)[0]
    result = card_ops.apply(fixture_store, "due", [A, C, F], DueSpec(0, 0))
    assert result.changed == (A, F) and result.skipped == {C: "new"}
    assert set(find_ids(fixture_store, "is:due")) == {A, B, E, F}  # F's burying is lifted: due now is due now
    card_ops.apply(fixture_store, "due", [A], DueSpec(3, 3))
    assert _cards(fixture_store)[A]["due"] == stored_time(start + timedelta(days=3))
    card_ops.apply(fixture_store, "due", list(ALL), DueSpec(3, 7))
    for cid, row in _cards(fixture_store).items():
        if cid in ALL and row["reps"] > 0:
            assert stored_time(start + timedelta(days=3)) <= row["due"] <= stored_time(start + timedelta(days=7))
    assert set(find_ids(fixture_store, "prop:due>=3 prop:due<=7")) == {A, B, D, E, F, H}


def test_undo_refuses_when_the_card_changed_since(fixture_store):
    card_ops.apply(fixture_store, "suspend", [A])
    with fixture_store.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE card SET suspended = 0 WHERE card_id = ?", (A,))
    before = _cards(fixture_store)
    with pytest.raises(StoreError, match="was changed since"):
        fixture_store.undo_operation()
    assert _cards(fixture_store) == before


def _digest(path) -> str:
    return "".join(hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.parent.glob(path.name + "*")))


def test_cli_lists_read_only_and_changes_in_one_transaction_that_the_app_undoes(fixture_db, capsys, monkeypatch):
    monkeypatch.setattr("quizapp.cli.srs_support.load_bank", lambda options: _FakeBank())
    untouched = _digest(fixture_db)
    assert main(["--db", str(fixture_db), "cards", "is:review", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {c["card_id"] for c in listed["cards"]} == {A, B, D, F, H} and listed["total"] == 5
    assert _digest(fixture_db) == untouched  # read-only: not a byte changed
    assert main(["--db", str(fixture_db), "cards", "is:review -is:suspended", "--suspend"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "4 cards suspended" and all(c in out for c in (A, B, F, H))
    # the app, opened afterwards, undoes the command's change
    store = Store.open(fixture_db, FakeClock(), SchedulerConfig(tz=UTC, bury_siblings=False))
    try:
        assert set(find_ids(store, "is:suspended")) == {A, B, D, F, H}
        undone = store.undo_operation()
        assert undone.source == "cli" and set(undone.cards) == {A, B, F, H}
        assert set(find_ids(store, "is:suspended")) == {D}
    finally:
        store.close()
    assert main(["--db", str(fixture_db), "cards", "--flag", "2", "kind:drill"]) == 0
    assert "2 cards flag set to 2" in capsys.readouterr().out
    assert main(["--db", str(fixture_db), "cards", "--undo"]) == 0
    assert capsys.readouterr().out.startswith("Undid: flag set to 2 (2 cards)")
    assert main(["--db", str(fixture_db), "cards", "prop:ivl>"]) == 2
    assert capsys.readouterr().err.strip() == "quizapp: search, column 10: prop:ivl: '' is not a number"
    assert main(["--db", str(fixture_db), "cards", "is:review", "--due", "7-3"]) == 2


class _FakeBank:
    """The fixture's bank: its cards (so the read-only view syncs nothing away), no questions to index."""
    questions = ()
    problems = ()

    def cards(self):
        from tests.srs.conftest import _spec

        return [_spec(card_id, n) for n, card_id in enumerate(ALL)]


def test_a_database_without_the_new_tables_reads_as_unflagged(fixture_db, capsys, monkeypatch):
    """A database last written by an older quizapp, opened read-only: no card_flag table yet."""
    with sqlite3.connect(fixture_db) as conn:
        conn.execute("DROP TABLE card_flag")
    monkeypatch.setattr("quizapp.cli.srs_support.load_bank", lambda options: _FakeBank())
    assert main(["--db", str(fixture_db), "cards", "flag:0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == len(ALL)
    assert main(["--db", str(fixture_db), "cards", "flag:1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 0


def test_set_due_counts_study_days_across_a_dst_change(tmp_path):
    # New York, rollover 04:00. At 2026-10-31 12:00 UTC (08:00 EDT) today began 10-31 04:00 EDT = 08:00 UTC;
    # "due in 2 days" is the start of 11-02's study day, 04:00 EST = 09:00 UTC (the clocks fell back on
    # 11-01). Today's start + 48 h would be 11-02 08:00 UTC = 03:00 EST, still 11-01's study day: due
    # tomorrow, not in two days (what it did before study_day_start).
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from quizapp.content import CardSpec

    now = datetime(2026, 10, 31, 12, 0, tzinfo=UTC)
    store = Store.open(tmp_path / "ny.sqlite3", FakeClock(start=now), SchedulerConfig(tz=ZoneInfo("America/New_York")))
    try:
        store.sync([CardSpec(A, "q1", "question", "main", "serving", 0)])
        with store.engine.begin() as conn:
            conn.exec_driver_sql("UPDATE card SET state = 2, stability = 5, difficulty = 5, reps = 3, last_review = ?,"
                                 " due = ?", (stored_time(now - timedelta(days=5)), stored_time(now)))
        card_ops.apply(store, "due", [A], DueSpec(2, 2))
        assert _cards(store)[A]["due"] == stored_time(datetime(2026, 11, 2, 9, 0, tzinfo=UTC))
        assert find_ids(store, "prop:due=2") == [A]
    finally:
        store.close()
