"""Benchmarks of the SRS lane (issue 14): the search language over a big collection and the optimizer.

1. Search: 50,000 cards and 1,000,000 review_log rows (a decade of heavy use), each query of the
   search language timed through quizapp.store.search (find_ids: ids only; find: the browser's rows,
   first 2,000). Target: an indexed query under 50 ms.
2. Optimize: a synthetic learner's history of about 100,000 reviews (tests/srs/synthetic.py), timed
   end to end through quizapp.store.optimize.optimize (history, 5-fold time-series evaluation, the
   final fit, saving). Target: under 10 s.

    python benchmarks/bench_srs.py [--runs N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quizapp.clock import FakeClock  # noqa: E402
from quizapp.store import SchedulerConfig, Store  # noqa: E402
from quizapp.store.search import SearchIndex, find, find_ids, stored_time  # noqa: E402

UTC = timezone.utc
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
CARDS = 50_000
LOGS = 1_000_000
TOPICS = ("serving", "training", "quantization", "parallelism", "moe", "rlhf", "scaling", "systems", "inference", "kv")
QUERIES = (
    "topic:serving",
    "is:due",
    "is:new",
    "is:suspended",
    "flag:1",
    "prop:ivl>=21",
    "prop:due<0",
    "prop:lapses>3",
    "prop:s>100",
    "prop:r<0.8",
    "rated:1",
    "rated:7:1",
    "kind:drill topic:moe",
    "mistake:m-7",
    "attention",
    "(topic:serving or topic:moe) -is:new prop:ivl>=21",
    "",
)


def build_collection(path: Path, seed: int = 1) -> SearchIndex:
    rng = random.Random(seed)
    store = Store.open(path, FakeClock(), SchedulerConfig(tz=UTC))
    cards, texts, tags = [], {}, {}
    for i in range(CARDS):
        qid = f"q{i // 5:05d}"
        kind, item = [("question", "main"), ("followup", "f1"), ("followup", "f2"), ("drill", "d1"), ("drill", "d2")][i % 5]
        cid = f"{qid}/{kind}/{item}"
        new = rng.random() < 0.2
        s = None if new else rng.lognormvariate(2.5, 1.3)
        last = None if new else NOW - timedelta(days=rng.uniform(0, min(s * 1.5, 3000)))
        due = NOW if new else last + timedelta(days=max(s, 0.01))
        cards.append((cid, qid, kind, item, TOPICS[(i // 5) % len(TOPICS)], i, 1 if new else 2, 0 if new else None,
                      s, None if new else rng.uniform(1, 10), stored_time(due), stored_time(last) if last else None,
                      int(rng.random() < 0.03), 0 if new else rng.randint(0, 6), 0 if new else rng.randint(1, 40),
                      stored_time(NOW)))
        words = rng.sample(("attention", "kv", "cache", "tensor", "pipeline", "expert", "router", "zero", "flash",
                            "paged", "quant", "lora"), 3)
        texts[cid] = f"question {qid} about {' '.join(words)}"
        tags[qid] = tuple(words[:2])
    with store.engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO card (card_id, question_id, kind, item_id, topic, bank_order, orphaned, state, step, stability,"
            " difficulty, due, last_review, suspended, buried_until, leech, lapses, reps, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, ?, ?)", cards)
        conn.exec_driver_sql("INSERT INTO card_flag (card_id, flag) VALUES (?, ?)",
                             [(c[0], rng.randint(1, 4)) for c in cards if rng.random() < 0.05])
        seen = [c[0] for c in cards if c[6] == 2]
        start = NOW - timedelta(days=3650)
        batch = []
        for n in range(LOGS):
            moment = start + timedelta(seconds=n * 3650 * 86400 / LOGS)
            wrong = rng.random() < 0.05
            batch.append((rng.choice(seen), rng.choice((1, 2, 3, 3, 3, 4)), stored_time(moment), 8000, "review",
                          "wrong" if wrong else None, f"m-{rng.randint(1, 20)}" if wrong else None, 2, 5))
            if len(batch) == 50_000:
                conn.exec_driver_sql(
                    "INSERT INTO review_log (card_id, rating, reviewed_at, duration_ms, mode, verdict, mistake,"
                    " prev_state, prev_reps, card_before, buried_siblings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', '{}')",
                    batch)
                batch = []
    store.close()
    return SearchIndex(texts, tags)


def time_search(path: Path, index: SearchIndex, runs: int) -> None:
    store = Store.open(path, FakeClock(), SchedulerConfig(tz=UTC))
    print(f"search over {CARDS:,} cards and {LOGS:,} review_log rows ({path.stat().st_size / 2**20:.0f} MiB), "
          f"{runs} runs each; median / p95 ms")
    print(f"  {'query':<52} {'matches':>8} {'find_ids':>16} {'find (2,000 rows)':>20}")
    for query in QUERIES:
        ids_times, rows_times = [], []
        for _ in range(runs):
            t = time.perf_counter()
            ids = find_ids(store, query, index)
            ids_times.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            find(store, query, index, limit=2000)
            rows_times.append((time.perf_counter() - t) * 1000)

        def fmt(values):
            values = sorted(values)
            return f"{statistics.median(values):7.1f} / {values[int(0.95 * (len(values) - 1))]:6.1f}"

        print(f"  {query or '(everything)':<52} {len(ids):>8,} {fmt(ids_times):>16} {fmt(rows_times):>20}")
    store.close()


def time_optimize(folder: Path) -> None:
    from quizapp.store.optimize import optimize, review_history
    from tests.srs.synthetic import simulate, write

    path = folder / "optimize.sqlite3"
    t = time.perf_counter()
    reviews, final = simulate(8000, 420, seed=3, new_per_day=40)
    store = Store.open(path, FakeClock(), SchedulerConfig(tz=UTC))
    write(store, reviews, final)
    store.close()
    built = time.perf_counter() - t
    with Store.open(path, FakeClock(), SchedulerConfig(tz=UTC)) as store:
        t = time.perf_counter()
        history = review_history(store)
        read = time.perf_counter() - t
        t = time.perf_counter()
        result = optimize(store)
        total = time.perf_counter() - t
    print(f"optimize on {len(reviews):,} reviews of {len(final):,} cards ({len(history):,} cross-day reviews to predict;"
          f" built in {built:.1f} s)")
    print(f"  reading the history into FSRSItems: {read:.2f} s")
    print(f"  optimize() end to end (history, 5-fold evaluation, final fit, save): {total:.2f} s  (target < 10 s)")
    e = result.evaluation
    print(f"  log loss defaults {e.defaults.log_loss:.4f} -> fitted {e.fitted.log_loss:.4f}; "
          f"RMSE(bins) {e.defaults.rmse_bins:.4f} -> {e.fitted.rmse_bins:.4f}; saved: {result.saved}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keep", type=Path, help="build the databases in this folder and keep them")
    parser.add_argument("--only", choices=("search", "optimize"))
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-srs-"))
    folder.mkdir(parents=True, exist_ok=True)
    if args.only in (None, "search"):
        path = folder / "search.sqlite3"
        for p in folder.glob("search.sqlite3*"):
            p.unlink()
        t = time.perf_counter()
        index = build_collection(path)
        print(f"(built the collection in {time.perf_counter() - t:.1f} s)")
        time_search(path, index, args.runs)
    if args.only in (None, "optimize"):
        for p in folder.glob("optimize.sqlite3*"):
            p.unlink()
        time_optimize(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
