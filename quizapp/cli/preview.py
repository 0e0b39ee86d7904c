"""`quizapp preview FILE`: the question file rendered as review shows it, re-rendered when it changes.

Imports textual only inside run(). A missing file, a FIFO or a device is a one-line error with
validate's reason (exit 2); a file with problems
opens anyway and shows them inline, so the author can fix it with the preview open.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from quizapp.cli.args import path as checked_path
from quizapp.cli.args import whole_number

HELP = "preview a question file as review shows it; re-renders when the file changes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=checked_path, metavar="FILE", help="a question YAML file")
    parser.add_argument("--seed", type=whole_number(0, 2**63 - 1), default=0, help="seed for the drills' drawn variants (default 0)")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.cli.args import printable
    from quizapp.content.files import check_file
    from quizapp.words import say

    path: Path = args.file
    reason = check_file(path)  # validate's reasons: a FIFO or device would never finish loading
    if reason is not None:
        raise CliError(say("preview.cli.bad_file", options.lang, path=printable(path), reason=reason))
    from quizapp.tui.preview_app import make_preview_app

    make_preview_app(path.resolve(), lang=options.lang, seed=args.seed).run()
    return 0
