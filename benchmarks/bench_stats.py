"""Benchmark of the statistics (issue 21): `quizapp stats --json` and the statistics screen's figures on a
year of heavy use, 5,000 cards and 200,000 reviews. Target: under 1 s each.

    python benchmarks/bench_stats.py [--runs N]

Times, median of N: the whole command in a child process (interpreter start, imports, the read-only
view of the database with the bank's cards synced into its in-memory copy, every figure, JSON out), and
in this process the two calls the screen makes (stats.collect, retention.to_json) on the same file.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quizapp.clock import FakeClock  # noqa: E402
from quizapp.store import SchedulerConfig, Store  # noqa: E402
from quizapp.store.search import stored_time  # noqa: E402

UTC = timezone.utc
CARDS = 5_000
REVIEWS = 200_000
TOPICS = ("serving", "llm-training", "quantization", "parallelism", "moe", "rlhf", "scaling", "systems", "gpu", "kernels")


def build(path: Path, now: datetime, seed: int = 1) -> None:
    rng = random.Random(seed)
    store = Store.open(path, FakeClock(start=now), SchedulerConfig(tz=UTC))
    cards = []
    for i in range(CARDS):
        qid = f"q{i // 5:04d}"
        kind, item = [("question", "main"), ("followup", "f1"), ("followup", "f2"), ("drill", "d1"), ("drill", "d2")][i % 5]
        new = rng.random() < 0.15
        s = None if new else rng.lognormvariate(2.5, 1.2)
        last = None if new else now - timedelta(days=rng.uniform(0, min(s * 1.5, 360)))
        due = now if new else last + timedelta(days=max(s, 0.01))
        cards.append((f"{qid}/{kind}/{item}", qid, kind, item, TOPICS[(i // 5) % len(TOPICS)], i, 1 if new else 2,
                      0 if new else None, s, None if new else rng.uniform(1, 10), stored_time(due),
                      stored_time(last) if last else None, int(rng.random() < 0.02), 0 if new else rng.randint(0, 6),
                      0 if new else rng.randint(1, 60), stored_time(now - timedelta(days=365))))
    with store.engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO card (card_id, question_id, kind, item_id, topic, bank_order, orphaned, state, step, stability,"
            " difficulty, due, last_review, suspended, buried_until, leech, lapses, reps, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, ?, ?)", cards)
        seen = [c[0] for c in cards if c[6] == 2]
        start = now - timedelta(days=365)
        batch = []
        for n in range(REVIEWS):
            moment = start + timedelta(seconds=n * 365 * 86400 / REVIEWS)
            card = rng.choice(seen)
            drill = "/drill/" in card
            wrong = drill and rng.random() < 0.2
            interval = rng.lognormvariate(2.0, 1.2)  # the card as the store keeps it before an answer
            before = json.dumps({"state": 2, "due": stored_time(moment),
                                 "last_review": stored_time(moment - timedelta(days=interval)), "reps": 5})
            batch.append((card, rng.choice((1, 2, 3, 3, 3, 4)), stored_time(moment), 8000, "review",
                          ("wrong" if wrong else "correct") if drill else None,
                          f"m-{rng.randint(1, 20)}" if wrong else None, 2, 5, before))
            if len(batch) == 20_000:
                conn.exec_driver_sql(
                    "INSERT INTO review_log (card_id, rating, reviewed_at, duration_ms, mode, verdict, mistake,"
                    " prev_state, prev_reps, card_before, buried_siblings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}')",
                    batch)
                batch = []
    store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from quizapp.store import retention, stats

    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "year.sqlite3"
        t = time.perf_counter()
        build(path, now)
        print(f"built {CARDS:,} cards and {REVIEWS:,} reviews in {time.perf_counter() - t:.1f} s "
              f"({path.stat().st_size / 2**20:.0f} MiB)")
        # bytecode is cached as a pip install caches it, even where the environment sets
        # PYTHONDONTWRITEBYTECODE (otherwise every run would recompile quizapp from source)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update({"QUIZAPP_DB": str(path), "XDG_CACHE_HOME": str(Path(tmp) / "cache"),
                    "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "quizapp-bench-pycache-stats")})
        command = [sys.executable, "-m", "quizapp", "stats", "--json"]
        # a returning user: the app has written the bank cache (a read-only command like stats never
        # writes it), synced the bank's cards into the database (the built cards are not the bank's:
        # most become orphaned, as a removed question's do), counted the study days that are over for
        # true retention (Home does it in the background: retention.refresh_counted_days), and the
        # bytecode is compiled
        warm = ("from quizapp import locations; from quizapp.content.cache import load_bank_cached; "
                "load_bank_cached(locations.content_dirs(()), locations.cache_dir()); "
                "from pathlib import Path; from quizapp.clock import SystemClock; from quizapp.store import Store; "
                "from quizapp.store.retention import refresh_counted_days; "
                "from quizapp.content.bank import load_content; "
                f"s = Store.open(Path({str(path)!r}), SystemClock()); s.sync(load_content((), 'en').cards()); "
                "refresh_counted_days(s); s.close()")
        subprocess.run([sys.executable, "-c", warm], env=env, capture_output=True, check=True)
        subprocess.run(command, env=env, capture_output=True, check=True)
        cli = []
        for _ in range(args.runs):
            t = time.perf_counter()
            subprocess.run(command, env=env, capture_output=True, check=True)
            cli.append(time.perf_counter() - t)
        screen = []
        with Store.open(path, FakeClock(start=now), read_only=True) as store:
            for _ in range(args.runs):
                t = time.perf_counter()
                stats.collect(store)
                retention.to_json(store)
                screen.append(time.perf_counter() - t)
    print(f"  quizapp stats --json: median {statistics.median(cli) * 1000:.0f} ms (min {min(cli) * 1000:.0f}, "
          f"max {max(cli) * 1000:.0f}); target 1 s")
    print(f"  the screen's figures (collect + retention): median {statistics.median(screen) * 1000:.0f} ms "
          f"(min {min(screen) * 1000:.0f}, max {max(screen) * 1000:.0f}); target 1 s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
