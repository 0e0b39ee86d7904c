"""Start-up and key-latency benchmark in a real terminal (tmux), against a minimal Textual app.

Each round starts, in the same detached tmux session size (100x30) and the same way (`python FILE` /
`python -m quizapp`, bytecode cached as an installed package has it):
  minimal:  a minimal Textual app (one Static)              -> its text visible
  quizapp:  `python -m quizapp` on a fresh temporary home   -> Home visible with its counts ("All topics")
            then `r`                                        -> the first question (its footer offers "Reveal")
and, in one session per bank, the two keys of a review measured from the key press to the changed screen
(capture-pane polled every few ms):
  reveal:   ctrl+r in the answer box -> the rating bar is on screen ("1 Again")
  rate:     3                        -> the next card is on screen (the rating bar gone, "Reveal" offered)
  floor:    the stack's own floor (issue 21): Textual, SQLModel's engine on the same database file and one
            `select count`, started the same way                  -> its text visible
Rounds alternate minimal, floor and quizapp so all see the same machine; the report gives medians, Home
as a ratio to the floor (targets: 1.2x for a returning user, 1.5x for the very first run, which creates
and syncs the database and writes the bank cache), and the first question from r pressed half a second
after Home appears (target 100 ms); keys < 100 ms. Usage: python benchmarks/bench_startup.py [--runs 5] [--keys 8] [--source DIR] [--content DIR] [--wheel]
(--source: run another copy of the code, e.g. an exported older commit, for before/after figures; --wheel:
the checkout as `pip install .` installs it, built as a wheel and unpacked, with the validated bank it ships).
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

MINIMAL_APP = """\
from textual.app import App
from textual.widgets import Static


class Minimal(App):
    def compose(self):
        yield Static("All topics")


Minimal().run()
"""

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

# The stack's floor (issue 21): the same Textual, SQLModel's import and engine on the same database
# file, and one `select count` on it, before the first frame; started the same way as quizapp.
FLOOR_APP = """\
import sys

from sqlalchemy import text
from sqlmodel import create_engine
from textual.app import App
from textual.widgets import Static

engine = create_engine(f"sqlite:///{sys.argv[1]}")
with engine.connect() as conn:
    count = conn.execute(text("select count(*) from sqlite_master")).scalar_one()


class Floor(App):
    def compose(self):
        yield Static(f"All topics {count}")


Floor().run()
"""

POLL_S = 0.003


def make_synthetic_bank(root: Path, count: int = 1000) -> Path:
    for n in range(count):
        folder = root / f"synthetic-{n % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"synthetic-{n:04d}.yaml").write_text(SYNTHETIC.format(n=n, topic=n % 10), encoding="utf-8")
    return root


def capture(session: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout


def wait_for(session: str, marker: str, since: float, timeout: float = 30.0, gone: str | None = None) -> float:
    """Seconds from `since` until `marker` is on the screen (and `gone`, if given, is not)."""
    deadline = since + timeout
    while time.perf_counter() < deadline:
        screen = capture(session)
        if marker in screen and (gone is None or gone not in screen):
            return time.perf_counter() - since
        time.sleep(POLL_S)
    raise RuntimeError(f"{marker!r} not on screen after {timeout}s:\n{capture(session)}")


class Terminal:
    """One detached tmux session running `command`, started now."""

    def __init__(self, command: str) -> None:
        self.name = f"quizapp-bench-{os.getpid()}-{time.perf_counter_ns()}"
        for _attempt in range(20):  # the tmux server may still be shutting down after the previous run
            self.started = time.perf_counter()
            # started outside the repository: `python -m` puts the working folder first on sys.path, which
            # would run the checkout's code even for --source
            done = subprocess.run(["tmux", "new-session", "-d", "-x", "100", "-y", "30", "-s", self.name,
                                   "-c", tempfile.gettempdir(), command], capture_output=True, text=True)
            if done.returncode == 0:
                return
            time.sleep(0.2)
        raise RuntimeError(f"tmux new-session failed: {done.stderr.strip()}")

    def press(self, key: str) -> float:
        moment = time.perf_counter()
        subprocess.run(["tmux", "send-keys", "-t", self.name, key], check=True)
        return moment

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def environment(home: Path, source: Path | None) -> str:
    # Bytecode is cached (outside the tree) as a pip install caches it, even where the environment sets
    # PYTHONDONTWRITEBYTECODE: otherwise every run would recompile from source.
    pycache = Path(tempfile.gettempdir()) / f"quizapp-bench-pycache-{'src' if source is None else source.name}"
    parts = [f"env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX={pycache}", f"HOME={home}",
             f"XDG_CACHE_HOME={home / 'cache'}", f"XDG_DATA_HOME={home / 'data'}",
             f"XDG_CONFIG_HOME={home / 'config'}", f"QUIZAPP_DB={home / 'bench.sqlite3'}"]
    if source is not None:
        parts.append(f"PYTHONPATH={source}")
    return " ".join(parts)


def minimal_run(script: Path, home: Path) -> float:
    terminal = Terminal(f"{environment(home, None)} {sys.executable} {script}")
    try:
        return wait_for(terminal.name, "All topics", terminal.started)
    finally:
        terminal.close()


def quizapp_command(content: Path | None, home: Path, source: Path | None) -> str:
    args = [sys.executable, "-m", "quizapp"] + (["--content", str(content)] if content else [])
    return f"{environment(home, source)} " + " ".join(args)


def floor_run(script: Path, home: Path) -> float:
    terminal = Terminal(f"{environment(home, None)} {sys.executable} {script} {home / 'bench.sqlite3'}")
    try:
        return wait_for(terminal.name, "All topics", terminal.started)
    finally:
        terminal.close()


def quizapp_run(content: Path | None, home: Path, source: Path | None) -> tuple[float, float]:
    """(seconds to Home, seconds from r to the first question), r pressed half a second after Home
    appears, as a person would (the app may prepare the review while Home is idle)."""
    terminal = Terminal(quizapp_command(content, home, source))
    try:
        home_s = wait_for(terminal.name, "All topics", terminal.started)
        time.sleep(0.5)
        question_s = wait_for(terminal.name, "Reveal", terminal.press("r"))
        return home_s, question_s
    finally:
        terminal.close()


def key_latencies(content: Path | None, home: Path, source: Path | None, cards: int) -> tuple[list[float], list[float]]:
    """(reveal, rate) seconds for `cards` cards of one review session."""
    terminal = Terminal(quizapp_command(content, home, source))
    reveals: list[float] = []
    rates: list[float] = []
    try:
        wait_for(terminal.name, "All topics", terminal.started)
        wait_for(terminal.name, "Reveal", terminal.press("r"))
        for _ in range(cards):
            time.sleep(0.3)  # a person reads the card: background work of the previous key is done
            reveals.append(wait_for(terminal.name, "1 Again", terminal.press("C-r")))
            time.sleep(0.3)
            rates.append(wait_for(terminal.name, "Reveal", terminal.press("3"), gone="1 Again"))
    finally:
        terminal.close()
    return reveals, rates


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def first_runs(content: Path | None, runs: int, source: Path | None, floor_script: Path) -> tuple[list, list]:
    """`runs` very first runs (each in a new home: the database created, the bank synced, the bank cache
    written), alternated with the floor's own first run (it creates an empty database file)."""
    floors, colds = [], []
    with tempfile.TemporaryDirectory() as tmp:  # not counted: compiles the bytecode, as pip install does
        quizapp_run(content, Path(tmp), source)
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            floors.append(floor_run(floor_script, home))
            (home / "bench.sqlite3").unlink(missing_ok=True)
            colds.append(quizapp_run(content, home, source))
    return floors, colds


def bench(label: str, content: Path | None, runs: int, cards: int, source: Path | None, script: Path,
          floor_script: Path) -> None:
    first_floors, colds = first_runs(content, runs, source, floor_script)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        quizapp_run(content, home, source)  # the first run of this home: what follows is a returning user
        minimal, floors, homes, questions = [], [], [], []
        for _ in range(runs):  # alternated, so all three see the same machine
            minimal.append(minimal_run(script, home))
            floors.append(floor_run(floor_script, home))
            home_s, question_s = quizapp_run(content, home, source)
            homes.append(home_s)
            questions.append(question_s)
        reveals, rates = key_latencies(content, home, source, cards)
    base, floor = statistics.median(minimal), statistics.median(floors)
    cold_home = statistics.median(c[0] for c in colds)
    print(f"{label}:")
    print(f"  minimal Textual app: median {ms(base)} (min {ms(min(minimal))}, max {ms(max(minimal))})")
    print(f"  floor (Textual + SQLModel engine + select count): median {ms(floor)} = {floor / base:.2f}x minimal "
          f"(min {ms(min(floors))}, max {ms(max(floors))}; its first run {ms(statistics.median(first_floors))})")
    print(f"  first run (creates the database, syncs the bank, writes the bank cache), {len(colds)} new homes: "
          f"home median {ms(cold_home)} = {cold_home / floor:.2f}x floor (target 1.5x; min {ms(min(c[0] for c in colds))}, "
          f"max {ms(max(c[0] for c in colds))}); question {ms(statistics.median(c[1] for c in colds))} after r")
    print(f"  home:     median {ms(statistics.median(homes))} = {statistics.median(homes) / floor:.2f}x floor "
          f"(target 1.2x), {statistics.median(homes) / base:.2f}x minimal (min {ms(min(homes))}, max {ms(max(homes))})")
    print(f"  question: median {ms(statistics.median(questions))} from r, pressed 0.5 s after Home (target 100 ms; "
          f"min {ms(min(questions))}, max {ms(max(questions))})")
    print(f"  reveal:   median {ms(statistics.median(reveals))} (min {ms(min(reveals))}, max {ms(max(reveals))}, "
          f"{len(reveals)} cards)")
    print(f"  rate -> next card: median {ms(statistics.median(rates))} (min {ms(min(rates))}, "
          f"max {ms(max(rates))})")


def installed_copy(destination: Path) -> Path:
    """The checkout built as a wheel and unpacked, as `pip install .` lays it out (with the validated
    bundled bank the wheel ships): a folder to run with PYTHONPATH."""
    root = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(root), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(destination / "wheel")], check=True, capture_output=True)
    (wheel,) = (destination / "wheel").glob("quizapp-*.whl")
    site = destination / "site"
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keys", type=int, default=8, help="cards to reveal and rate for the key latencies")
    parser.add_argument("--source", type=Path, default=None, help="a folder with another copy of quizapp to run")
    parser.add_argument("--wheel", action="store_true",
                        help="run the checkout as installed: built as a wheel and unpacked (what pip install . gives)")
    parser.add_argument("--synthetic", action="store_true", help="also the synthetic 1,000-question bank")
    parser.add_argument("--content", type=Path, default=None,
                        help="this question folder instead of the bundled bank (the same bank for --source runs)")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("bench_startup: tmux is needed", file=sys.stderr)
        return 2
    source = args.source.resolve() if args.source else None
    with tempfile.TemporaryDirectory() as tmp:
        if args.wheel:
            source = installed_copy(Path(tmp) / "installed")
        script = Path(tmp) / "minimal_app.py"
        script.write_text(MINIMAL_APP, encoding="utf-8")
        floor_script = Path(tmp) / "floor_app.py"
        floor_script.write_text(FLOOR_APP, encoding="utf-8")
        content = args.content.resolve() if args.content else None
        bench(f"content {content}" if content else "bundled content", content, args.runs, args.keys, source, script,
              floor_script)
        if args.synthetic:
            bench("synthetic 1,000-question bank", make_synthetic_bank(Path(tmp) / "bank"), args.runs, args.keys,
                  source, script, floor_script)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
