"""`quizapp import revlog FILE.csv`: review history from another tool (Anki via fsrs-optimizer, srs-benchmark).

The reviews are kept apart (table imported_review) and used by `quizapp optimize` and `evaluate`
only: they schedule nothing. A malformed file is refused with its line and column, and nothing is
imported; the same file imported twice is added once.
"""

from __future__ import annotations

import argparse

HELP = "import review history (revlog CSV: card_id,review_time,review_rating,review_state,review_duration) for optimizing"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from quizapp.cli.args import path

    parser.add_argument("what", choices=("revlog",), help="revlog: a review-history CSV")
    parser.add_argument("file", type=path, metavar="FILE", help="the CSV file")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.cli.srs_support import open_store
    from quizapp.store.revlog_io import RevlogError, import_revlog
    from quizapp.words import say

    lang = options.lang
    try:
        with open_store(options, read_only=False) as store:
            report = import_revlog(store, args.file)
    except RevlogError as exc:
        details = dict(exc.details)
        if "expected" in details:
            details["expected"] = say(str(details["expected"]), lang)
        reason = say(f"revlog.{exc.code}", lang, **details)
        raise CliError(say("revlog.error", lang, path=args.file, line=exc.line, column=exc.column, reason=reason)) from None
    if report.already:
        print(say("import.already", lang, path=args.file, n=report.reviews))
    else:
        print(say("import.done", lang, path=args.file, n=report.reviews, cards=report.cards))
    return 0
