"""`quizapp validate`: check question files and list every problem as file:line:col."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from quizapp.cli.args import path as path_argument

HELP = "check question files (default: the configured content folders); exit 1 if any problem"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", type=path_argument, metavar="PATH", help="question files or folders")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of lines")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.cli.args import printable
    from quizapp.content.bank import load_bank
    from quizapp.locations import content_dirs
    from quizapp.words import say

    lang = options.lang
    paths = tuple(args.paths) or content_dirs(options.content_dirs)
    for given in args.paths:  # a path given on the command line that cannot be checked at all: exit 2
        reason = given_path_problem(given, lang)
        if reason:
            raise CliError(say("validate.cli.path_problem", lang, reason=reason, path=printable(given)))
    bank = load_bank(paths, authoring=True)
    summary = {
        "questions": len(bank.questions),
        "cards": len(bank.cards()),
        "drills": sum(len(q.drills) for q in bank.questions),
    }
    if args.json:
        composition = bank_composition(bank)
        print(json.dumps({**summary, **composition, "errors": [p.as_json() for p in bank.problems],
                          "warnings": [p.as_json() for p in bank.warnings]}, ensure_ascii=False, indent=2))
    else:
        for problem in sorted((*bank.problems, *bank.warnings), key=lambda p: (str(p.file), p.line, p.col)):
            print(printable(problem))  # file names and YAML text come from the content author: escaped
        counts = say("validate.cli.counts", lang, **summary)
        verdict = (say("validate.cli.problems", lang, n=len(bank.problems)) if bank.problems
                   else say("validate.cli.no_problems", lang))
        print(say("validate.cli.summary", lang, counts=counts, verdict=verdict),
              file=sys.stderr if bank.problems else sys.stdout)
    return 1 if bank.problems else 0


def bank_composition(bank) -> dict:
    """Per-topic question and drill counts and the difficulty histogram (every level 1-5, zeros kept)."""
    topics: dict[str, dict[str, int]] = {}
    difficulty = {str(level): 0 for level in range(1, 6)}
    for question in bank.questions:
        counts = topics.setdefault(question.topic, {"questions": 0, "drills": 0})
        counts["questions"] += 1
        counts["drills"] += len(question.drills)
        difficulty[str(question.difficulty)] = difficulty.get(str(question.difficulty), 0) + 1
    return {"topics": dict(sorted(topics.items())), "difficulty": difficulty}


def given_path_problem(path: Path, lang: str = "en") -> str | None:
    """Why a PATH argument cannot be validated (missing, a FIFO, a device...), or None for a file or folder."""
    import os
    import stat

    from quizapp.content.files import check_file
    from quizapp.words import say

    try:
        if stat.S_ISDIR(os.stat(path).st_mode):
            return None
    except OSError:
        pass  # check_file names the reason
    reason = check_file(path)
    if reason is None:
        return None
    if reason.startswith("no such file"):
        return say("validate.cli.no_such_path", lang)
    return say("validate.cli.not_regular", lang, reason=reason)  # check_file's reason (quizapp.content), as it is
