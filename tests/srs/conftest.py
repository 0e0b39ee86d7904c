"""Fixtures for the SRS tests: a small database whose every card state, log row and flag is written out
below, so each search's expected cards can be read off the construction (tests/srs/test_search.py)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from quizapp.clock import FakeClock
from quizapp.content import CardSpec
from quizapp.store import SchedulerConfig, Store
from quizapp.store.search import SearchIndex, stored_time

UTC = timezone.utc
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)  # FakeClock's start; the study day began at 04:00 UTC

A, B, C, D = "q1/question/main", "q1/followup/f1", "q1/drill/d1", "q2/question/main"
E, F, G, H = "q2/drill/d2", "q3/question/main", "q4/question/main", "q4/followup/f2"
ORPHAN = "q5/question/main"
ALL = (A, B, C, D, E, F, G, H)

TOPICS = {"q1": "serving", "q2": "training", "q3": "serving-moe", "q4": "training", "q5": "serving"}
TAGS = {"q1": ("kv-cache", "vllm"), "q2": ("zero",), "q3": ("moe",), "q4": ("checkpointing",), "q5": ()}
TEXTS = {
    A: "kv cache size for [brackets] llama",
    B: "kv cache size for [brackets] llama\nwhat about paged attention?",
    C: "kv cache size for [brackets] llama\ncompute the kv bytes per token",
    D: "zero stages on one gpu",
    E: "zero stages on one gpu\nadamw memory of 7b",
    F: "expert parallel all-to-all",
    G: "gradient checkpointing cost",
    H: "gradient checkpointing cost\nwhich layers to recompute?",
}


def _spec(card_id: str, order: int) -> CardSpec:
    qid, kind, item = card_id.split("/")
    return CardSpec(card_id, qid, kind, item, TOPICS[qid], order)  # type: ignore[arg-type]


def _t(delta: timedelta) -> str:
    return stored_time(NOW + delta)


DAY_END = datetime(2026, 11, 30, 4, 0, tzinfo=UTC)
# card -> (state, stability, difficulty, last_review, due, reps, lapses, suspended, leech, buried_until)
STATES = {
    A: (2, 30.0, 5.0, timedelta(days=-10), timedelta(days=20), 5, 0, 0, 0, None),
    B: (2, 2.0, 8.0, timedelta(days=-5), timedelta(days=-1), 3, 2, 0, 0, None),
    D: (3, 1.5, 9.0, timedelta(minutes=-10), timedelta(minutes=10), 9, 8, 1, 1, None),
    E: (1, 0.5, 6.0, timedelta(minutes=-1), timedelta(minutes=9), 1, 0, 0, 0, None),
    F: (2, 100.0, 2.0, timedelta(days=-50), timedelta(days=50), 4, 0, 0, 0, DAY_END),
    H: (2, 10.0, 4.0, timedelta(days=-9), timedelta(days=1, hours=1), 2, 1, 0, 0, None),
}
# (card, when, rating, mode, verdict, mistake)
LOGS = [
    (A, timedelta(days=-10), 3, "review", None, None),
    (B, timedelta(days=-5), 1, "review", None, None),
    (D, timedelta(minutes=-10), 1, "review", None, None),
    (E, timedelta(days=-1), 1, "review", "wrong", "m-other"),
    (E, timedelta(minutes=-1), 3, "review", "wrong", "m-adam"),
    (C, timedelta(hours=-3), 1, "cram", "wrong", "m-kv"),
    (C, timedelta(hours=-2), 3, "cram", "correct", None),
    (H, timedelta(days=-9), 2, "review", None, None),
]
FLAGS = {A: 1, F: 4, H: 1}


def build_fixture(path) -> None:
    """Write the fixture database at `path` (see the tables above)."""
    clock = FakeClock()
    store = Store.open(path, clock, SchedulerConfig(tz=UTC, bury_siblings=False))
    try:
        store.sync([_spec(cid, i) for i, cid in enumerate((*ALL, ORPHAN))])
        store.sync([_spec(cid, i) for i, cid in enumerate(ALL)])  # q5 leaves the bank: orphaned
        with store.engine.begin() as conn:
            for cid, (state, s, d, last, due, reps, lapses, susp, leech, buried) in STATES.items():
                conn.exec_driver_sql(
                    "UPDATE card SET state=?, step=?, stability=?, difficulty=?, last_review=?, due=?, reps=?, "
                    "lapses=?, suspended=?, leech=?, buried_until=? WHERE card_id=?",
                    (state, None if state == 2 else 0, s, d, _t(last), _t(due), reps, lapses, susp, leech,
                     stored_time(buried) if buried else None, cid))
            for cid, when, rating, mode, verdict, mistake in LOGS:
                conn.exec_driver_sql(
                    "INSERT INTO review_log (card_id, rating, reviewed_at, duration_ms, mode, verdict, mistake, "
                    "prev_state, prev_reps, card_before, buried_siblings) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (cid, rating, _t(when), 5000, mode, verdict, mistake, 2, 1, json.dumps({}), "{}"))
            for cid, flag in FLAGS.items():
                conn.exec_driver_sql("INSERT INTO card_flag (card_id, flag) VALUES (?, ?)", (cid, flag))
    finally:
        store.close()


@pytest.fixture
def fixture_db(tmp_path):
    path = tmp_path / "fixture.sqlite3"
    build_fixture(path)
    return path


@pytest.fixture
def fixture_store(fixture_db):
    store = Store.open(fixture_db, FakeClock(), SchedulerConfig(tz=UTC, bury_siblings=False))
    yield store
    store.close()


@pytest.fixture
def fixture_index() -> SearchIndex:
    return SearchIndex(TEXTS, {q: tuple(t) for q, t in TAGS.items()})
