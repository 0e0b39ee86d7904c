"""Store speed on a big collection: 5,000 cards and 200,000 review_log rows (issue 4's figures).

Run: /tmp/venv/bin/python benchmarks/bench_store.py [--keep DIR]
Prints: start-up sync of a 1,000-question bank (~5,000 cards) into a new and into a full database,
opening the full database (with its read-only pre-check), picking the next card and recording one
review (targets: under 10 ms each), undo, counts() and today().
The history is simulated with fsrs itself (50 weekly answers per card for 4,000 cards), so card states,
due dates and log rows look like a real year of use; it is written in bulk, then timed calls go
through the public Store API on a file-backed database (WAL, synchronous=NORMAL, as the app runs it).
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from importlib.metadata import version
from pathlib import Path

import fsrs
from sqlalchemy import bindparam, insert, update

from quizapp.clock import FakeClock
from quizapp.content import CardSpec
from quizapp.store import SchedulerConfig, Store
from quizapp.store.tables import Card, ReviewLog

QUESTIONS = 1000
KINDS = [("question", "main"), ("followup", "f0"), ("followup", "f1"), ("drill", "d0"), ("drill", "d1")]
REVIEWED_CARDS = 4000
ANSWERS_PER_CARD = 50  # 4,000 x 50 = 200,000 log rows


def make_bank() -> list[CardSpec]:
    specs = []
    for q in range(QUESTIONS):
        qid = f"question-{q:04d}"
        for kind, item in KINDS:
            specs.append(CardSpec(f"{qid}/{kind}/{item}", qid, kind, item, f"topic-{q % 12}", len(specs)))
    return specs


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def report(name: str, samples: list[float]) -> None:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, int(len(samples) * 0.95))]
    print(f"{name:44s} median {statistics.median(samples):8.3f} ms   p95 {p95:8.3f} ms   "
          f"max {samples[-1]:8.3f} ms   (n={len(samples)})")


def simulate_history(specs: list[Spec], now: datetime, rng: random.Random):
    """fsrs-scheduled answers for the first REVIEWED_CARDS cards: weekly for the past year."""
    scheduler = fsrs.Scheduler(enable_fuzzing=False)
    card_rows, log_rows = [], []
    for spec in specs[:REVIEWED_CARDS]:
        card = fsrs.Card(card_id=1)
        offset = timedelta(minutes=rng.randrange(60 * 24 * 7))
        reps = lapses = 0
        for i in range(ANSWERS_PER_CARD):
            # one answer a week for a year, the last ones 2 to 3 weeks ago (today starts empty)
            when = now - timedelta(days=365) + timedelta(days=7 * i) + offset
            rating = fsrs.Rating(rng.choices((1, 2, 3, 4), (10, 10, 70, 10))[0])
            prev_state, prev_reps = int(card.state), reps
            card, _ = scheduler.review_card(card, rating, when)
            lapses += prev_state == 2 and rating == 1
            reps += 1
            log_rows.append(dict(card_id=spec.card_id, rating=int(rating), reviewed_at=when,
                                 duration_ms=rng.randrange(60_000), mode="review", prev_state=prev_state,
                                 prev_reps=prev_reps, card_before=json.dumps({"reps": prev_reps}),
                                 buried_siblings="{}"))
        card_rows.append(dict(b_id=spec.card_id, state=int(card.state), step=card.step,
                              stability=card.stability, difficulty=card.difficulty,
                              due=now - timedelta(days=rng.uniform(-30, 10)), last_review=card.last_review,
                              reps=reps, lapses=lapses))
    return card_rows, log_rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="folder to build the database in (kept afterwards)")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="quizapp-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bench.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    clock = FakeClock()
    config = SchedulerConfig(tz=timezone.utc, fuzz_seed=1, new_per_day=10_000, reviews_per_day=10_000)
    specs = make_bank()
    rng = random.Random(42)
    print(f"python {sys.version.split()[0]}, fsrs {version('fsrs')}, sqlite {sqlite3.sqlite_version}, database {path}")

    store = Store.open(path, clock, config)
    start = time.perf_counter()
    added = store.sync(specs)
    print(f"{'sync, new database (' + str(added.added) + ' cards)':44s} {(time.perf_counter() - start) * 1000:8.1f} ms")

    started = time.perf_counter()
    card_rows, log_rows = simulate_history(specs, clock.now(), rng)
    with store.engine.begin() as conn:
        conn.execute(update(Card.__table__).where(Card.__table__.c.card_id == bindparam("b_id")).values(
            **{k: bindparam(k) for k in card_rows[0] if k != "b_id"}), card_rows)
        conn.execute(insert(ReviewLog.__table__), log_rows)
    store.close()
    print(f"(built {len(log_rows):,} log rows for {len(card_rows):,} cards in {time.perf_counter() - started:.1f} s; "
          f"file {path.stat().st_size / 1e6:.1f} MB)")

    open_ms = timed(lambda: Store.open(path, clock, config).close(), 5)
    report("Store.open on the full database", open_ms)
    store = Store.open(path, clock, config)
    report("sync, unchanged bank, full database", timed(lambda: store.sync(specs), 5))
    counts = store.counts()[""]
    print(f"(due today {counts.due:,}, new {counts.new:,}, learned {counts.learned:,})")

    report("next_card()", timed(store.next_card, 200))
    report("next_card(topic)", timed(lambda: store.next_card("topic-3"), 200))

    def review_next() -> None:
        card = store.next_card()
        store.review(card.card_id, rng.choice((1, 3, 3, 3, 4)), duration_ms=5000)

    preview_card = store.next_card().card_id
    review_ms = []
    for _ in range(200):
        card = store.next_card()
        t0 = time.perf_counter()
        store.review(card.card_id, rng.choice((1, 3, 3, 3, 4)), duration_ms=5000)
        review_ms.append((time.perf_counter() - t0) * 1000)
        clock.advance(seconds=7)
    report("review() one answer (one transaction)", review_ms)
    report("next_card() + review()", timed(review_next, 100))
    report("undo()", timed(store.undo, 100))
    report("counts()", timed(store.counts, 20))
    report("today()", timed(store.today, 20))
    report("preview()", timed(lambda: store.preview(preview_card), 50))
    store.close()
    if not args.keep:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        folder.rmdir()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
