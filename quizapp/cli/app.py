"""Start the Textual app from the command line (the only CLI module that imports textual)."""

from __future__ import annotations


def run_app(options) -> int:
    from quizapp.cli import build_parser

    build_parser().print_help()
    return 0
