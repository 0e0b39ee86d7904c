"""`quizapp evaluate`: how well the default, current and fitted FSRS parameters predict your history.

The figures of `quizapp optimize` (time-series split, log loss, RMSE(bins), health check) without
saving anything; the database is opened read-only.
"""

from __future__ import annotations

import argparse

HELP = "log loss and RMSE(bins) of the default, current and fitted FSRS parameters on your history"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--topic", metavar="TOPIC", help="this topic's reviews only")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON object")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli.optimize import run_fit

    return run_fit(args, options, save=False)
