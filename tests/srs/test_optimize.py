"""Optimize and evaluate with fsrs-rs: the two FSRS libraries agree, a synthetic learner's parameters are
recovered well enough to predict held-out reviews better than the defaults, and the scheduler then uses
what was saved."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import fsrs_rs_python as rs
import pytest
from fsrs import Card, Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS as PY_DEFAULTS

from quizapp.cli import main
from quizapp.clock import FakeClock
from quizapp.store import SchedulerConfig, Store
from quizapp.store.optimize import MIN_ITEMS, NotEnoughHistory, evaluate, health_check, optimize, review_history
from tests.srs.synthetic import TRUE_PARAMETERS, Review, simulate, write

UTC = timezone.utc
SEQUENCES = [  # (rating, days since the previous answer) histories, learning steps as delta 0
    [(3, 0), (3, 0), (3, 1), (3, 3), (3, 8)],
    [(1, 0), (3, 0), (3, 1), (1, 2), (3, 0), (3, 1), (4, 4)],
    [(4, 0), (3, 15), (2, 20), (3, 9)],
    [(2, 0), (1, 0), (3, 0), (3, 2), (3, 5), (1, 12), (3, 0), (3, 2)],
]


def _py_state(parameters, sequence):
    """py-fsrs's memory state after `sequence`, steps off so that only the memory model is compared."""
    scheduler = Scheduler(parameters=parameters, learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    card, moment = Card(card_id=1), datetime(2025, 1, 1, 9, tzinfo=UTC)
    for rating, delta in sequence:
        moment += timedelta(days=delta, minutes=10)
        card, _ = scheduler.review_card(card, Rating(rating), moment)
    return card.stability, card.difficulty


def _rs_state(parameters, sequence):
    state = rs.FSRS(list(parameters)).memory_state(rs.FSRSItem([rs.FSRSReview(r, d) for r, d in sequence]))
    return state.stability, state.difficulty


def test_the_two_libraries_share_the_default_parameters():
    assert list(PY_DEFAULTS) == pytest.approx(rs.DEFAULT_PARAMETERS, rel=1e-6)  # fsrs-rs keeps float32


@pytest.mark.parametrize("sequence", SEQUENCES)
def test_default_memory_states_agree(sequence):
    assert _py_state(PY_DEFAULTS, sequence) == pytest.approx(_rs_state(PY_DEFAULTS, sequence), rel=1e-4)


@pytest.fixture(scope="module")
def synthetic():
    return simulate(300, 200, seed=7)


@pytest.fixture
def synthetic_db(tmp_path, synthetic):
    path = tmp_path / "history.sqlite3"
    with Store.open(path, FakeClock(), SchedulerConfig(tz=UTC)) as store:
        write(store, *synthetic)
    return path


def _items(reviews: list[Review]):
    by: dict[str, list[Review]] = {}
    for r in reviews:
        by.setdefault(r.card_id, []).append(r)
    items = []
    for seq in by.values():
        steps, last = [], None
        for r in seq:
            day = (r.reviewed_at - timedelta(hours=4)).date().toordinal()
            delta = 0 if last is None else day - last
            steps.append(rs.FSRSReview(r.rating, delta))
            last = day
            if delta > 0:
                items.append(rs.FSRSItem(list(steps)))
    return items


def test_parameters_fitted_by_fsrs_rs_schedule_in_py_fsrs(synthetic_db):
    with Store.open(synthetic_db, FakeClock(), SchedulerConfig(tz=UTC)) as store:
        fitted = rs.FSRS(rs.DEFAULT_PARAMETERS).compute_parameters(review_history(store).items)
    assert fitted != pytest.approx(rs.DEFAULT_PARAMETERS)
    scheduler = Scheduler(parameters=fitted)  # py-fsrs accepts them (its bounds checks pass)
    card, _ = scheduler.review_card(Card(card_id=1), Rating.Good, datetime(2025, 1, 1, tzinfo=UTC))
    assert card.stability == pytest.approx(fitted[2], rel=1e-6)  # S0(Good) = w2 in both
    for sequence in SEQUENCES:
        assert _py_state(fitted, sequence) == pytest.approx(_rs_state(fitted, sequence), rel=1e-3)


def test_optimize_beats_the_defaults_on_held_out_reviews_and_the_scheduler_uses_the_fit(synthetic_db):
    clock = FakeClock()
    with Store.open(synthetic_db, clock) as store:  # the stored settings: what the app does
        assert store.config.parameters == tuple(PY_DEFAULTS)
        result = optimize(store)
    assert result.saved
    assert result.evaluation.fitted.log_loss < result.evaluation.defaults.log_loss
    assert result.evaluation.fitted.rmse_bins < result.evaluation.defaults.rmse_bins
    # a second learner drawn from the same true parameters, never seen by the optimizer
    held_out = _items(simulate(200, 150, seed=99, prefix="new")[0])
    assert rs.FSRS(list(result.parameters)).evaluate(held_out).log_loss < \
        rs.FSRS(rs.DEFAULT_PARAMETERS).evaluate(held_out).log_loss
    with Store.open(synthetic_db, clock) as store:
        assert store.config.parameters == result.parameters
        assert store._scheduler.parameters == result.parameters
        store.sync([_card("fresh/question/main")])
        after = store.review("fresh/question/main", 3, duration_ms=1000)
        # a first Good answer: S0 = w2 of the saved parameters (the defaults would give 2.3065)
        assert after.stability == pytest.approx(result.parameters[2], rel=1e-6)


def _card(card_id: str):
    from quizapp.content import CardSpec

    qid, kind, item = card_id.split("/")
    return CardSpec(card_id, qid, kind, item, "t", 0)  # type: ignore[arg-type]


def test_optimize_keeps_parameters_that_are_not_beaten(synthetic_db):
    clock = FakeClock()
    with Store.open(synthetic_db, clock) as store:
        first = optimize(store)
    with Store.open(synthetic_db, clock) as store:
        # now the current parameters were fitted on all of this history: a per-fold fit cannot beat them
        second = optimize(store)
        assert not second.saved and store.config.parameters == first.parameters


def test_too_little_history_changes_nothing(tmp_path):
    path = tmp_path / "small.sqlite3"
    reviews, final = simulate(20, 30, seed=3)
    with Store.open(path, FakeClock(), SchedulerConfig(tz=UTC)) as store:
        write(store, reviews, final)
    with Store.open(path, FakeClock()) as store:
        have = len(review_history(store))
        assert have < MIN_ITEMS
        with pytest.raises(NotEnoughHistory) as caught:
            optimize(store)
        assert (caught.value.have, caught.value.need) == (have, MIN_ITEMS)
        assert store.stored_settings() == {}


def test_cli_says_how_many_reviews_are_missing(tmp_path, capsys):
    path = tmp_path / "small.sqlite3"
    with Store.open(path, FakeClock(), SchedulerConfig(tz=UTC)) as store:
        write(store, *simulate(20, 30, seed=3))
        have = len(review_history(store))
    assert main(["--db", str(path), "optimize", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["enough_history"] is False and out["missing"] == MIN_ITEMS - have and not out["saved"]
    assert main(["--db", str(path), "optimize"]) == 0
    assert f"{MIN_ITEMS - have} more to go" in capsys.readouterr().out


def _digest(path) -> str:
    import hashlib

    return "".join(hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.parent.glob(path.name + "*")))


def test_cli_optimize_and_evaluate(synthetic_db, capsys):
    untouched = _digest(synthetic_db)
    assert main(["--db", str(synthetic_db), "evaluate", "--json"]) == 0
    assert _digest(synthetic_db) == untouched  # evaluate opens the database read-only
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["saved"] is False and evaluated["fitted_is_better"]
    assert main(["--db", str(synthetic_db), "optimize"]) == 0
    text = capsys.readouterr().out
    assert "saved the fitted parameters" in text and "log loss" in text
    with Store.open(synthetic_db, FakeClock()) as store:
        assert store.config.parameters != tuple(PY_DEFAULTS)
    assert main(["--db", str(synthetic_db), "optimize", "--topic", "nope"]) == 2


def _write_logs(store, rows):
    """rows: (card_id, reviewed_at, rating, mode, prev_reps)."""
    from quizapp.store.search import stored_time

    store.sync([_card(cid) for cid in sorted({r[0] for r in rows})])
    with store.engine.begin() as conn:
        for cid, at, rating, mode, prev_reps in rows:
            conn.exec_driver_sql(
                "INSERT INTO review_log (card_id, rating, reviewed_at, duration_ms, mode, prev_state, prev_reps, "
                "card_before, buried_siblings) VALUES (?, ?, ?, 1000, ?, 2, ?, '{}', '{}')",
                (cid, rating, stored_time(at), mode, prev_reps))


def test_history_counts_one_review_per_day_and_keeps_same_day_steps(tmp_path):
    day = datetime(2025, 3, 1, 9, tzinfo=UTC)
    rows = [
        ("a/question/main", day, 3, "review", 0),
        ("a/question/main", day + timedelta(minutes=10), 3, "review", 1),
        ("a/question/main", day + timedelta(days=1, hours=-7), 2, "cram", 2),  # cram: left out
        ("a/question/main", day + timedelta(days=2), 3, "review", 2),
        ("a/question/main", day + timedelta(days=2, minutes=5), 1, "review", 3),  # same day: history only
        ("a/question/main", day + timedelta(days=5, hours=-7), 3, "mock", 4),  # 02:00 on day 5 = day 4
        ("b/question/main", day, 3, "review", 0),
        ("b/question/main", day + timedelta(days=3), 1, "review", 1),
        ("b/question/main", day + timedelta(days=9), 3, "review", 0),  # prev_reps 0 again: it was reset
        ("b/question/main", day + timedelta(days=10), 3, "review", 1),
    ]
    with Store.open(tmp_path / "h.sqlite3", FakeClock(), SchedulerConfig(tz=UTC)) as store:
        _write_logs(store, rows)
        history = review_history(store)
    got = [tuple(steps) for steps in history.steps]
    expected = {
        ((3, 0), (3, 0), (3, 2)),
        ((3, 0), (3, 0), (3, 2), (1, 0), (3, 2)),
        ((3, 0), (3, 1)),  # b before its reset is dropped, as Anki drops what precedes a "forget"
    }
    assert set(got) == expected and len(got) == 3
    assert history.times == sorted(history.times)
    assert history.reviews == 7 and history.cards == 2


def _health_db(tmp_path, again_to: int | None):
    reviews, final = simulate(120, 120, seed=5)
    if again_to is not None:
        reviews = [Review(r.card_id, r.reviewed_at, again_to if r.rating == 1 and r.prev_state == 2 else r.rating,
                          r.prev_state, r.prev_reps, r.duration_ms) for r in reviews]
    store = Store.open(tmp_path / f"health{again_to}.sqlite3", FakeClock(), SchedulerConfig(tz=UTC))
    write(store, reviews, final)
    return store


def test_health_check_is_quiet_for_an_honest_learner(tmp_path):
    with _health_db(tmp_path, None) as store:
        assert health_check(store) == []


def test_health_check_sees_hard_used_for_forgotten_cards_and_no_again(tmp_path):
    with _health_db(tmp_path, 2) as store:  # every forgotten review card answered Hard
        codes = [w.code for w in health_check(store)]
    assert codes == ["health.again_never", "health.hard_as_fail"]


def test_evaluate_reports_the_same_folds_for_every_parameter_set(synthetic_db):
    with Store.open(synthetic_db, FakeClock(), SchedulerConfig(tz=UTC)) as store:
        history = review_history(store)
    evaluation = evaluate(history, tuple(TRUE_PARAMETERS))
    assert evaluation.tested == 5 * (len(history) // 6)
    assert evaluation.current.log_loss < evaluation.defaults.log_loss  # the truth predicts better than defaults


def test_cli_optimize_one_topic(synthetic_db, capsys):
    assert main(["--db", str(synthetic_db), "optimize", "--topic", "synthetic", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["topic"] == "synthetic" and out["saved"] and out["fitted"]["log_loss"] < out["defaults"]["log_loss"]
    assert main(["--db", str(synthetic_db), "evaluate", "--topic", "synthetic"]) == 0
    assert "topic synthetic" in capsys.readouterr().out
