"""Start-up benchmark: process start to the first question on screen, in a real terminal (tmux).

Runs `python -m quizapp` in a detached tmux session (100x30) on a fresh temporary database, polls
`tmux capture-pane` every 10 ms, presses `r` as soon as Home shows its table, and reports
  home:     process start -> Home visible
  question: process start -> first question visible (includes the `r` keypress round trip)
for the bundled content and for a synthetic 1,000-question bank (targets: < 1 s and < 1.5 s).
The first run of each bank also creates and syncs the database (and writes the bytecode cache, as
`pip install` would have); later runs reuse both (warm), which is the everyday case. Usage: python benchmarks/bench_startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYNTHETIC = """\
id: synthetic-{n:04d}
title: "Synthetic question {n}: how much memory does setup {n} need?"
topic: synthetic-{topic}
lang: en
answer: |
  A synthetic answer for question {n}: weights are {{{{w{n}}}}}.
followups:
  - id: f{n}
    q: A follow-up for {n}?
    a: A follow-up answer.
drills:
  - id: w{n}
    prompt: "{{model}} weights in bf16: how many GB?"
    setup: {{model: llama-2-7b, method: inference, precision: bf16}}
    ask: weights
    unit: GB
"""


def make_synthetic_bank(root: Path, count: int = 1000) -> Path:
    for n in range(count):
        folder = root / f"synthetic-{n % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"synthetic-{n:04d}.yaml").write_text(SYNTHETIC.format(n=n, topic=n % 10), encoding="utf-8")
    return root


def capture(session: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout


def one_run(content: Path | None, db: Path, home_marker: str, timeout: float = 30.0) -> tuple[float, float]:
    session = f"quizapp-bench-{os.getpid()}-{time.perf_counter_ns()}"
    args = [sys.executable, "-m", "quizapp"] + (["--content", str(content)] if content else [])
    # Bytecode is cached (outside the tree) as a pip install caches it, even where the environment
    # sets PYTHONDONTWRITEBYTECODE: otherwise every run would recompile quizapp from source.
    pycache = Path(tempfile.gettempdir()) / "quizapp-bench-pycache"
    command = f"env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX={pycache} QUIZAPP_DB={db} " + " ".join(args)
    for _attempt in range(20):  # the tmux server may still be shutting down after the previous run
        start = time.perf_counter()
        done = subprocess.run(
            ["tmux", "new-session", "-d", "-x", "100", "-y", "30", "-s", session, command],
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            break
        time.sleep(0.2)
    else:
        raise RuntimeError(f"tmux new-session failed: {done.stderr.strip()}")
    try:
        home = question = None
        deadline = start + timeout
        while time.perf_counter() < deadline:
            screen = capture(session)
            if home is None and home_marker in screen:
                home = time.perf_counter() - start
                subprocess.run(["tmux", "send-keys", "-t", session, "r"], check=True)
            elif home is not None and "Reveal" in screen:
                question = time.perf_counter() - start
                break
            time.sleep(0.01)
        if home is None or question is None:
            raise RuntimeError(f"no question on screen after {timeout}s:\n{capture(session)}")
        return home, question
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def bench(label: str, content: Path | None, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite3"
        results = [one_run(content, db, "All topics") for _ in range(runs + 1)]
    cold, warm = results[0], results[1:]
    homes = [h for h, _ in warm]
    questions = [q for _, q in warm]
    print(f"{label}:")
    print(f"  first run (creates the database): home {cold[0]:.3f} s, question {cold[1]:.3f} s")
    print(
        f"  warm, {runs} runs: home median {statistics.median(homes):.3f} s (min {min(homes):.3f}), "
        f"question median {statistics.median(questions):.3f} s (min {min(questions):.3f}, max {max(questions):.3f})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("bench_startup: tmux is needed", file=sys.stderr)
        return 2
    bench("bundled content", None, args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        bench("synthetic 1,000-question bank", make_synthetic_bank(Path(tmp) / "bank"), args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
