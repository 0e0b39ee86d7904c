"""`quizapp preview FILE`: the question file rendered as review shows it, re-rendered when it changes.

Imports textual only inside run(). A missing file is a one-line error (exit 2); a file with problems
opens anyway and shows them inline, so the author can fix it with the preview open.
"""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "preview a question file as review shows it; re-renders when the file changes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, metavar="FILE", help="a question YAML file")
    parser.add_argument("--seed", type=int, default=0, help="seed for the drills' drawn variants (default 0)")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError

    path: Path = args.file
    if not path.exists():
        raise CliError(f"{path}: no such file; expected a question YAML file")
    if path.is_dir():
        raise CliError(f"{path}: is a folder; expected a question YAML file")
    from quizapp.tui.preview_app import make_preview_app

    make_preview_app(path.resolve(), lang=options.lang, seed=args.seed).run()
    return 0
