"""`quizapp new` (not built yet)."""

from __future__ import annotations

import argparse

HELP = "new (not built yet)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace, options) -> int:
    print("quizapp new: not built yet")
    return 1
