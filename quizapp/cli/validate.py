"""`quizapp validate`: check question files and list every problem as file:line:col."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "check question files (default: the configured content folders); exit 1 if any problem"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="question files or folders")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of lines")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.content.bank import load_bank
    from quizapp.locations import content_dirs

    paths = tuple(args.paths) or content_dirs(options.content_dirs)
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        raise CliError(f"no such file or folder: {', '.join(missing)}")
    special = [str(p) for p in args.paths if not (p.is_file() or p.is_dir())]
    if special:
        raise CliError(f"not a regular file or folder: {', '.join(special)}")
    bank = load_bank(paths)
    summary = {
        "questions": len(bank.questions),
        "cards": len(bank.cards()),
        "drills": sum(len(q.drills) for q in bank.questions),
    }
    if args.json:
        print(json.dumps({**summary, "errors": [p.as_json() for p in bank.problems]}, ensure_ascii=False, indent=2))
    else:
        for problem in bank.problems:
            print(problem)
        counts = f"{summary['questions']} questions, {summary['cards']} cards, {summary['drills']} drills"
        verdict = f"{len(bank.problems)} problem{'s' if len(bank.problems) != 1 else ''}" if bank.problems else "no problems"
        print(f"{counts}: {verdict}", file=sys.stderr if bank.problems else sys.stdout)
    return 1 if bank.problems else 0
