"""Mutation testing, one package against its own tests (mutmut 3), in a scratch copy of the tree.

    python benchmarks/mutation.py memory            # or: grading, drills, render, search, days, ...
    python benchmarks/mutation.py --list

Each target mutates a few modules and runs only the tests that are theirs, so a run fits a 2-core
machine. The scratch copy keeps mutmut's `mutants/` folder and its configuration out of the
repository. Survivors are written to benchmarks/mutation/<target>.survivors.txt (one mutant a line,
with its diff), the figures to benchmarks/mutation/<target>.json. Mutants listed in
benchmarks/mutation/equivalent.txt (name and reason) are counted as equivalent, not as survivors.
Not part of CI: a run takes minutes to an hour.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "mutation"

_CONTENT_TESTS = ["tests/content/test_drills_grading.py", "tests/content/test_quantities.py",
                  "tests/content/test_flops_answers.py", "tests/content/test_review_regressions.py",
                  "tests/content/test_audit_fixes.py", "tests/bilingual/test_grading_conventions.py",
                  "tests/bilingual/test_keypoints.py", "tests/content/test_grading_mutants.py",
                  "tests/content/test_drills_mutants.py"]
# the search language's own tests (the whole of tests/srs and tests/store made a run take hours here)
_SEARCH_TESTS = ["tests/srs/test_search.py", "tests/srs/test_browse.py", "tests/store/test_search_oracle.py",
                 "tests/store/test_search_mutants.py", "tests/store/test_search_parse_mutants.py"]
_MEMORY_TESTS = ["tests/memory"]
# target -> (modules to mutate, tests that are theirs)
TARGETS: dict[str, tuple[list[str], list[str]]] = {
    "memory": (["quizapp/memory/*"], _MEMORY_TESTS),
    # the whole of memory is 18,560 mutants (about two hours here): its parts, one run each
    "memory-training": (["quizapp/memory/breakdown.py", "quizapp/memory/activations.py"], _MEMORY_TESTS),
    "memory-serving": (["quizapp/memory/serving.py", "quizapp/memory/throughput.py", "quizapp/memory/kernels.py"],
                       _MEMORY_TESTS),
    "memory-models": (["quizapp/memory/models.py", "quizapp/memory/formats.py", "quizapp/memory/gpus.py"],
                      _MEMORY_TESTS),
    "grading": (["quizapp/content/grading.py"], _CONTENT_TESTS),
    "drills": (["quizapp/content/drills.py"], _CONTENT_TESTS),
    # render's own tests besides the content ones: the bundled bank rendered in both languages
    "render": (["quizapp/content/render.py"], _CONTENT_TESTS + ["tests/daily/test_render.py",
                                                               "tests/content/test_bank_rendered.py"]),
    "search": (["quizapp/store/search.py"], _SEARCH_TESTS),
    "days": (["quizapp/store/days.py"], ["tests/srs", "tests/store"]),
    "scheduling": (["quizapp/store/scheduling.py"], ["tests/srs", "tests/store"]),
    "new-order": (["quizapp/store/new_order.py"], ["tests/srs", "tests/store", "tests/daily/test_new_order.py"]),
    "practice": (["quizapp/practice/*"], ["tests/practice"]),
}
UNKILLED = ("survived", "no tests")  # the states a survivor is in: killed by a new test or listed as equivalent
# tests that cannot pass under mutmut whatever the mutant: its trampoline imports mutmut into every
# mutated module, so the stdlib-only import check sees it
DESELECT = ["tests/memory/test_import_hygiene.py::test_memory_imports_only_the_standard_library"]


def scratch_copy(destination: Path, ref: str | None = None) -> None:
    """The working tree as git sees it (tracked and untracked-but-not-ignored files), or the commit
    `ref` (a clean tree: a run is not disturbed by edits in progress)."""
    if ref is not None:
        archive = subprocess.run(["git", "archive", "--format=tar", ref], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(destination)], input=archive, check=True)
        return
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def configure(tree: Path, modules: list[str], tests: list[str]) -> None:
    pyproject = tree / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    text = re.sub(r'addopts = "[^"]*"', 'addopts = "-ra --benchmark-disable -p no:xdist -p no:cacheprovider"', text)
    tests_toml = ", ".join(json.dumps(t) for t in tests)
    only = ", ".join(json.dumps(m) for m in modules)
    deselect = ", ".join(f'"--deselect", {json.dumps(t)}' for t in DESELECT)
    text += ("\n[tool.mutmut]\nsource_paths = [\"quizapp\"]\n"
             f"only_mutate = [{only}]\n"
             f"pytest_add_cli_args_test_selection = [{tests_toml}]\n"
             f"pytest_add_cli_args = [\"-q\", \"-x\", \"-p\", \"no:randomly\", {deselect}]\n"
             "also_copy = [\"content\", \"benchmarks\"]\n")
    pyproject.write_text(text, encoding="utf-8")


def equivalent_names(target: str) -> dict[str, str]:
    path = OUT / "equivalent.txt"
    if not path.exists():
        return {}
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            found[name] = reason.strip()
    return found


class BaselineFailed(RuntimeError):
    """The target's own tests fail on the unmutated code: no mutant was checked, nothing is recorded."""


def run(target: str, children: int, ref: str | None = None) -> dict:
    modules, tests = TARGETS[target]
    with tempfile.TemporaryDirectory(prefix=f"mutmut-{target}-") as folder:
        tree = Path(folder)
        scratch_copy(tree, ref)
        configure(tree, modules, tests)
        env = {**os.environ, "PYTHONPATH": str(tree), "QUIZAPP_LANG": "en"}
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(children)], cwd=tree,
                       env=env, check=False)
        seconds = time.monotonic() - started
        listing = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=tree, env=env,
                                 capture_output=True, text=True, check=False).stdout
        status: dict[str, str] = {}
        for line in listing.splitlines():
            name, _, state = line.strip().rpartition(": ")
            if name:
                status[name] = state
        equivalent = equivalent_names(target)
        # "no tests": no test of the target even calls the mutated function, so nothing could kill it
        survivors = [n for n, s in status.items() if s in UNKILLED and n not in equivalent]
        diffs = []
        for name in survivors:
            diff = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=tree, env=env,
                                  capture_output=True, text=True, check=False).stdout
            diffs.append(f"## {name}\n{diff.strip()}\n")
    counts: dict[str, int] = {}
    for state in status.values():
        counts[state] = counts.get(state, 0) + 1
    if not status or counts.get("not checked", 0) == len(status):
        raise BaselineFailed(f"{target}: no mutant was checked (do its tests pass on the unmutated code?); "
                             "the previous figures are kept")
    figures = {"target": target, "modules": modules, "tests": tests, "mutants": len(status), "states": counts,
               "equivalent": sum(1 for n in status if n in equivalent and status[n] in UNKILLED),
               "survivors": len(survivors), "seconds": round(seconds)}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{target}.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    (OUT / f"{target}.survivors.txt").write_text("\n".join(diffs), encoding="utf-8")
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", help=f"one or more of {', '.join(TARGETS)}")
    parser.add_argument("--list", action="store_true", help="list the targets")
    parser.add_argument("--children", type=int, default=2, help="parallel mutant runs (default 2)")
    parser.add_argument("--ref", help="mutate this commit (e.g. HEAD) instead of the working tree")
    args = parser.parse_args()
    if args.list or not args.targets:
        for name, (modules, tests) in TARGETS.items():
            print(f"{name:12} {' '.join(modules)}  <-  {' '.join(tests)}")
        return 0
    unknown = [t for t in args.targets if t not in TARGETS]
    if unknown:
        print(f"mutation: unknown target {unknown[0]!r}; expected one of {', '.join(TARGETS)}", file=sys.stderr)
        return 2
    # the commit as it is now: a run takes hours, and HEAD may move on meanwhile
    ref = subprocess.run(["git", "rev-parse", "--short", args.ref], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.strip() if args.ref else None
    for target in args.targets:
        try:
            figures = run(target, args.children, ref)
        except BaselineFailed as exc:
            print(f"mutation: {exc}", file=sys.stderr)
            return 1
        if ref:
            figures["ref"] = ref
            (OUT / f"{target}.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
