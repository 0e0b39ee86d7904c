"""Check that tests kill recorded survivors: apply each mutant's diff to the source, run the tests, restore.

    python benchmarks/apply_mutants.py benchmarks/mutation/search.survivors.txt quizapp/store/search.py \
        tests/store/test_search_mutants.py [more tests...] [--only NAME ...]

A survivors file (benchmarks/mutation.py writes it) holds `## name` and the unified diff mutmut shows
for one function. The function's original text (context and minus lines) is replaced by the mutant
(context and plus lines) in a scratch copy of the working tree (so the checkout and anyone's tests
running in it never see a mutant), the tests run there (pytest -x), and the file is put back. Prints each mutant as KILLED, ALIVE or SKIPPED (no diff, or its function not found); exit status 1 if any is alive or skipped. Not CI.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from mutation import scratch_copy  # noqa: E402


def mutants(text: str) -> list[tuple[str, str | None, str | None]]:
    """(name, original function text, mutated function text) for each survivor in `text` (None, None:
    the survivor has no diff in the file)."""
    found = []
    for block in text.split("\n## ")[0:]:
        block = block.removeprefix("## ")
        if not block.strip():
            continue
        name, _, rest = block.partition("\n")
        lines = rest.splitlines()
        try:
            start = next(i for i, line in enumerate(lines) if line.startswith("@@"))
        except StopIteration:  # no diff recorded: reported as SKIPPED, never silently passed over
            found.append((name.strip(), None, None))
            continue
        old, new = [], []
        for line in lines[start + 1:]:
            if line.startswith("-"):
                old.append(line[1:])
            elif line.startswith("+"):
                new.append(line[1:])
            elif line.startswith(" ") or line == "":
                old.append(line[1:])
                new.append(line[1:])
        while old and not old[-1].strip() and new and not new[-1].strip():
            old.pop()
            new.pop()
        found.append((name.strip(), "\n".join(old), "\n".join(new)))
    return found


def locate(source: str, old: str, new: str) -> tuple[str, str] | None:
    """The (old, new) pair as it appears in `source`: as shown, or indented as a method is."""
    for indent in ("", "    ", "        "):
        shifted_old = "\n".join(indent + line if line else line for line in old.splitlines())
        if shifted_old in source:
            shifted_new = "\n".join(indent + line if line else line for line in new.splitlines())
            return shifted_old, shifted_new
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("survivors", type=Path)
    parser.add_argument("source", type=Path)
    parser.add_argument("tests", nargs="+")
    parser.add_argument("--only", nargs="*", default=None, help="check only these mutant names")
    parser.add_argument("--timeout", type=float, default=120, help="seconds before a test run counts as hung")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="apply-mutants-") as folder:
        tree = Path(folder)
        scratch_copy(tree)
        alive = check(tree, args)
    return 1 if alive else 0


def check(tree: Path, args: argparse.Namespace) -> int:
    """How many of the survivors the tests leave alive or that could not be checked, each in `tree`."""
    source_path = tree / args.source
    original = source_path.read_text(encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    alive = skipped = 0
    for name, old, new in mutants(args.survivors.read_text(encoding="utf-8")):
        if args.only is not None and name not in args.only and name.rsplit(".", 1)[-1] not in args.only:
            continue
        if old is None or new is None:
            print(f"SKIPPED {name} (no diff recorded for it)")
            skipped += 1
            continue
        pair = locate(original, old, new)
        if pair is None:
            print(f"SKIPPED {name} (its function is not in {args.source} as shown)")
            skipped += 1
            continue
        source_path.write_text(original.replace(pair[0], pair[1], 1), encoding="utf-8")
        try:
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:randomly", "-n", "0",
                                   "-p", "no:cacheprovider", *args.tests], cwd=tree, env=env, capture_output=True,
                                  text=True, timeout=args.timeout)
            killed, how = done.returncode != 0, ""
        except subprocess.TimeoutExpired:  # the mutant hangs the tests: caught, as mutmut counts a timeout
            killed, how = True, f" (timed out after {args.timeout} s)"
        finally:
            source_path.write_text(original, encoding="utf-8")
        alive += not killed
        print(f"{'KILLED' if killed else 'ALIVE '} {name}{how}", flush=True)
    return alive + skipped  # a mutant not checked is not a kill


if __name__ == "__main__":
    raise SystemExit(main())
