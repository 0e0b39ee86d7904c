"""True retention (Anki's definition), the S/D/R distributions, desired retention per topic, and the
workload simulator."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from fsrs import Card, Scheduler, State

from quizapp.cli import main
from quizapp.clock import FakeClock
from quizapp.store import SchedulerConfig, Store
from quizapp.store.retention import RETENTIONS, distributions, simulate_workload, true_retention
from quizapp.store.search import stored_time
from tests.srs.conftest import NOW, STATES, UTC
from tests.srs.synthetic import simulate, write


def _spec(card_id: str, topic: str = "t"):
    from quizapp.content import CardSpec

    qid, kind, item = card_id.split("/")
    return CardSpec(card_id, qid, kind, item, topic, 0)  # type: ignore[arg-type]


def _log(conn, card_id, when, rating, *, ivl_days=None, prev_state=2, prev_reps=3, mode="review"):
    before = {}
    if ivl_days is not None:
        last = when - timedelta(days=ivl_days)
        before = {"due": stored_time(last + timedelta(days=ivl_days)), "last_review": stored_time(last)}
    conn.exec_driver_sql(
        "INSERT INTO review_log (card_id, rating, reviewed_at, duration_ms, mode, prev_state, prev_reps, card_before,"
        " buried_siblings) VALUES (?, ?, ?, 1000, ?, ?, ?, ?, '{}')",
        (card_id, rating, stored_time(when), mode, prev_state, prev_reps, json.dumps(before)))


def test_true_retention_counts_the_first_review_answer_of_the_day(tmp_path):
    with Store.open(tmp_path / "r.sqlite3", FakeClock(), SchedulerConfig(tz=UTC)) as store:
        ids = [f"c{i}/question/main" for i in range(6)]
        store.sync([_spec(c) for c in ids])
        today = NOW - timedelta(hours=1)  # 11:00 on 2026-11-29; the day began at 04:00
        with store.engine.begin() as conn:
            _log(conn, ids[0], today, 3, ivl_days=21)  # mature pass today
            _log(conn, ids[0], today + timedelta(minutes=5), 1, ivl_days=21)  # second of the day: ignored
            _log(conn, ids[1], today, 1, ivl_days=20)  # young fail today
            _log(conn, ids[2], today, 2, ivl_days=3)  # young pass (Hard passes)
            _log(conn, ids[3], today, 1, ivl_days=None, prev_state=1)  # a learning answer: not a review
            _log(conn, ids[4], today, 1, ivl_days=40, mode="cram")  # cram: never counted
            _log(conn, ids[5], NOW - timedelta(days=1), 1, ivl_days=30)  # mature fail yesterday
            _log(conn, ids[5], NOW - timedelta(days=10), 3, ivl_days=25)  # mature pass 10 days ago
        rows = {r.period: r for r in true_retention(store)}
    assert (rows["today"].young.passed, rows["today"].young.total) == (1, 2)
    assert (rows["today"].mature.passed, rows["today"].mature.total) == (1, 1)
    assert (rows["yesterday"].mature.passed, rows["yesterday"].mature.total) == (0, 1)
    assert rows["yesterday"].young.total == 0 and rows["yesterday"].young.rate is None
    assert (rows["week"].total.passed, rows["week"].total.total) == (2, 4)
    assert (rows["month"].mature.passed, rows["month"].mature.total) == (2, 3)
    assert rows["all"].total.total == 5 and rows["all"].total.rate == pytest.approx(3 / 5)


def test_distributions_of_the_fixture_cards(fixture_store):
    dists = distributions(fixture_store)
    stability = dict(dists.stability)
    assert stability == {"0-1": 1, "1-3": 2, "3-7": 0, "7-14": 1, "14-30": 0, "30-90": 1, "90-180": 1,
                         "180-365": 0, "365+": 0}
    difficulty = dict(dists.difficulty)
    expected_d: dict[str, int] = {}
    for _, s, d, *_ in STATES.values():
        tenth = min(9, int((d - 1) / 9 * 10))
        label = f"{10 * tenth}-{10 * (tenth + 1)}%"
        expected_d[label] = expected_d.get(label, 0) + 1
    assert {k: v for k, v in difficulty.items() if v} == expected_d
    # R from py-fsrs (whole elapsed days), binned in tenths
    scheduler = Scheduler()
    expected_r: dict[str, int] = {}
    for state, s, d, last, due, *_ in STATES.values():
        card = Card(card_id=1, state=State(state), stability=s, difficulty=d, last_review=NOW + last, due=NOW + due)
        tenth = min(9, int(scheduler.get_card_retrievability(card, NOW) * 10))
        label = f"{10 * tenth}-{10 * (tenth + 1)}%"
        expected_r[label] = expected_r.get(label, 0) + 1
    assert {k: v for k, v in dict(dists.retrievability).items() if v} == expected_r


def test_a_topic_retention_overrides_the_global_one(tmp_path):
    config = SchedulerConfig(tz=UTC, topic_retention=(("serving", 0.8),), enable_fuzzing=False)
    assert config.retention_for("serving") == 0.8 and config.retention_for("training") == 0.9
    with Store.open(tmp_path / "t.sqlite3", FakeClock(), config) as store:
        store.sync([_spec("s/question/main", "serving"), _spec("t/question/main", "training")])
        with store.engine.begin() as conn:
            conn.exec_driver_sql(
                "UPDATE card SET state = 2, step = NULL, stability = 10, difficulty = 5, reps = 3, last_review = ?,"
                " due = ?", (stored_time(NOW - timedelta(days=10)), stored_time(NOW)))
        serving, training = store.preview("s/question/main")[3], store.preview("t/question/main")[3]
        assert serving > training  # lower desired retention: longer intervals
        after = store.review("s/question/main", 3, duration_ms=1000)
        assert after.due - NOW == serving


def test_topic_retention_is_a_setting_the_store_reads(tmp_path, capsys):
    db = tmp_path / "s.sqlite3"
    assert main(["--db", str(db), "settings", "retention_by_topic", "serving=85%", "moe=0.92"]) == 0
    assert capsys.readouterr().out.startswith("retention_by_topic = moe=0.92 serving=0.85")
    with Store.open(db, FakeClock()) as store:
        assert store.config.topic_retention == (("moe", 0.92), ("serving", 0.85))
        assert store.config.retention_for("serving") == 0.85 and store.config.retention_for("other") == 0.9
    assert main(["--db", str(db), "settings", "retention_by_topic", "serving=2"]) == 2


def test_more_retention_costs_more_reviews(tmp_path):
    with Store.open(tmp_path / "w.sqlite3", FakeClock(), SchedulerConfig(tz=UTC)) as store:
        write(store, *simulate(200, 60, seed=2))
        workloads = simulate_workload(store, 120, RETENTIONS)
    reviews = [w.mean_reviews for w in workloads]
    assert reviews == sorted(reviews) and reviews[0] < reviews[-1]
    assert all(len(w.reviews_per_day) == 120 for w in workloads)


def test_simulate_cli(tmp_path, capsys):
    db = tmp_path / "w.sqlite3"
    with Store.open(db, FakeClock(), SchedulerConfig(tz=UTC)) as store:
        write(store, *simulate(50, 20, seed=2))
    assert main(["--db", str(db), "simulate", "--days", "30", "--retention", "0.87", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["retention"] == 0.87 and len(out["daily"]) == 30 and out["cards"] == 50
    assert 0.87 in [s["retention"] for s in out["summary"]]
    with pytest.raises(SystemExit) as caught:  # argparse refuses it, naming the flag
        main(["--db", str(db), "simulate", "--retention", "1.5"])
    assert caught.value.code == 2 and "--retention" in capsys.readouterr().err
    assert main(["--db", str(tmp_path / "none.sqlite3"), "simulate"]) == 1


async def test_the_statistics_screen_shows_the_memory_panel(fixture_db):
    from textual.widgets import DataTable

    from quizapp.content import Bank
    from quizapp.tui.app import AppSettings, make_app

    store = Store.open(fixture_db, FakeClock(), SchedulerConfig(tz=UTC))
    try:
        app = make_app(AppSettings(), store, Bank((), ()), FakeClock())
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.pause()
            app.open_stats()
            for _ in range(4):
                await pilot.pause()
                await app.workers.wait_for_complete()
            panel = app.screen.query_one("#memory-panel")
            table = panel.query_one("#true-retention", DataTable)
            assert table.row_count == 6
            assert "Stability" in str(panel.query_one("#memory-distributions").render())
    finally:
        store.close()
