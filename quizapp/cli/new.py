"""`quizapp new`: write a commented question skeleton that already validates."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "write a commented skeleton for a new question (content/<topic>/<id>.yaml)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="ID", help="the question id, a slug such as kv-cache-70b (also the file name)")
    parser.add_argument("--topic", default="misc", help="topic folder (default: misc)")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.content.skeleton import skeleton
    from quizapp.locations import content_dirs

    try:
        text = skeleton(args.id, args.topic)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    root: Path = content_dirs(options.content_dirs)[0]
    target = root / args.topic / f"{args.id}.yaml"
    if target.exists():
        raise CliError(f"{target} already exists; not overwriting it")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("x", encoding="utf-8") as handle:  # "x": never overwrite, even in a race
            handle.write(text)
    except FileExistsError:
        raise CliError(f"{target} already exists; not overwriting it") from None
    except OSError as exc:
        raise CliError(f"cannot write {target}: {exc.strerror or exc}") from None
    print(target)
    return 0
