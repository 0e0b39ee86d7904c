"""`quizapp new`: write a commented question skeleton that already validates.

It writes into the author's own folder, never into the bundled bank (a source checkout's content/ or
an installed package's _bank): the user's content folder (quizapp.locations.user_content_dir, loaded
over the bundled bank, so `validate` and the app see the new question without flags), or the first
configured content folder (--content / QUIZAPP_CONTENT).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from quizapp.cli.args import text

HELP = (
    "write a commented skeleton for a new question: <your content folder>/<topic>/<id>.yaml (under the "
    "user data folder, loaded with the bundled bank), or <first --content folder>/<topic>/<id>.yaml; "
    "refuses an id already in the bank"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="ID", type=text(200, "a question id"), help="the question id, a slug such as kv-cache-70b (also the file name)")
    parser.add_argument("--topic", default="misc", type=text(100, "a topic"), help="topic folder (default: misc)")


def target_root(configured: tuple[Path, ...]) -> Path:
    """Where a new question goes: the first configured content folder, else the user's content folder."""
    from quizapp.locations import user_content_dir

    return configured[0] if configured else user_content_dir()


def existing_ids(dirs: tuple[Path, ...]) -> dict[str, Path]:
    """Every question id in `dirs` -> its file: the loaded questions' ids and every question file's
    name (a file with problems still owns its name)."""
    from quizapp.content.bank import load_bank, question_files

    found: dict[str, Path] = {}
    files, _ = question_files(d for d in dirs if d.is_dir())
    for path in files:
        found.setdefault(path.stem, path)
    for question in load_bank(d for d in dirs if d.is_dir()).questions:
        found.setdefault(question.id, question.source_path)
    return found


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.content.skeleton import skeleton
    from quizapp.locations import content_dirs
    from quizapp.words import say

    lang = options.lang
    try:
        text = skeleton(args.id, args.topic)
    except ValueError as exc:  # the skeleton's reason (quizapp.content), as it is
        raise CliError(str(exc)) from None
    root = target_root(options.content_dirs)
    loaded = tuple(dict.fromkeys((*content_dirs(options.content_dirs), root)))  # the bank(s) plus the target
    clash = existing_ids(loaded).get(args.id)
    if clash is not None:
        raise CliError(say("new.cli.id_exists", lang, qid=args.id, path=clash))
    target = root / args.topic / f"{args.id}.yaml"
    if target.exists():
        raise CliError(say("new.cli.file_exists", lang, path=target))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("x", encoding="utf-8") as handle:  # "x": never overwrite, even in a race
            handle.write(text)
    except FileExistsError:
        raise CliError(say("new.cli.file_exists", lang, path=target)) from None
    except OSError as exc:
        raise CliError(say("new.cli.cannot_write", lang, path=target, reason=exc.strerror or exc)) from None
    print(target)
    return 0
