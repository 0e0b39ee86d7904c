"""The `quizapp` command: global options, then one subcommand per module in this package.

Each subcommand module exposes HELP, add_arguments(parser) and run(args, options) -> int and
imports nothing heavy at module level, so `quizapp calc` never pays for textual or sqlmodel.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from quizapp import __version__
from quizapp.cli.args import path as checked_path
from quizapp.cli.args import printable

# Subcommand name -> module under quizapp.cli. Order is the order `--help` lists them.
SUBCOMMANDS = ("calc", "validate", "new", "schema", "drill", "mock", "stats", "preview", "settings", "show", "queue",
               "optimize", "evaluate", "simulate", "cards", "export", "import", "serve", "points")
MODULES = {"import": "import_"}  # a subcommand whose module name differs (`import` is a keyword)
# commands that read, print and exit, with garbage bounded by the bank and the database: no cyclic
# collection at all (quizapp.heap); the app holds it only until Home is up
SHORT_COMMANDS = frozenset({"calc", "validate", "schema", "stats", "show", "queue", "cards", "export", "points"})


@dataclass(frozen=True)
class GlobalOptions:
    """Options every subcommand and the TUI share; resolved once from flags and environment."""

    content_dirs: tuple[Path, ...]  # empty = the bundled bank
    db_path: Path | None  # None = platformdirs default (quizapp.locations)
    lang: str  # "en" | "zh"
    lang_given: bool = False  # chosen by --lang or QUIZAPP_LANG (then a stored setting must not override it)


class CliError(Exception):
    """A one-line, user-facing error: printed as `quizapp: <message>`, exit status `code`."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, never a traceback
        self.exit(2, f"{self.prog}: error: {printable(message)}\n")


_VALUED = ("--content", "--db", "--lang")  # global options that take the next word as their value


def command_in(argv: list[str]) -> str | None:
    """The subcommand `argv` names (None: the app), skipping the values of the global options."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in _VALUED:
            skip = True
        elif word == "--":
            return None
        elif not word.startswith("-"):
            return word if word in SUBCOMMANDS else None
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line. With `argv`, only the subcommand it names gets its arguments (the others are
    listed with their help line): starting the app then imports no subcommand's dependencies (the
    calculator's flags need quizapp.memory). Without `argv`, every subcommand is complete."""
    wanted = command_in(argv) if argv is not None else None
    parser = _Parser(
        prog="quizapp",
        description="A terminal trainer for LLM-systems interviews. Without a subcommand, starts the app.",
    )
    parser.add_argument("--version", action="version", version=f"quizapp {__version__}")
    _add_global_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"quizapp.cli.{MODULES.get(name, name)}")
        child = sub.add_parser(name, help=module.HELP, description=module.HELP)
        if argv is None or name == wanted:
            module.add_arguments(child)
        _add_global_options(child, after=True)
    return parser


AFTER = "_after"  # dest suffix of a global option given after the subcommand


def _add_global_options(parser: argparse.ArgumentParser, after: bool = False) -> None:
    """--content, --db, --lang: on the main parser, and again on every subcommand (`quizapp mock --db X`).

    After the subcommand they land in their own dests (default: absent), so resolve_options can merge
    them with those given before: --content folders from both places, in order; --db and --lang
    given after the subcommand win.
    """
    suffix, default = (AFTER, argparse.SUPPRESS) if after else ("", None)
    parser.add_argument(
        "--content",
        action="append",
        metavar="DIR",
        type=checked_path,
        dest="content" + suffix,
        default=default,
        help="question folder to use instead of the bundled bank (repeatable; env QUIZAPP_CONTENT)",
    )
    parser.add_argument("--db", metavar="PATH", type=checked_path, dest="db" + suffix, default=default,
                        help="review database (env QUIZAPP_DB)")
    parser.add_argument("--lang", choices=("en", "zh"), dest="lang" + suffix, default=default,
                        help="language of the app's own words (env QUIZAPP_LANG)")


def resolve_options(args: argparse.Namespace, environ: os._Environ | dict) -> GlobalOptions:
    content = [*(getattr(args, "content", None) or ()), *(getattr(args, "content" + AFTER, None) or ())]
    db_flag = getattr(args, "db" + AFTER, None) or getattr(args, "db", None)
    lang_flag = getattr(args, "lang" + AFTER, None) or getattr(args, "lang", None)
    if content:
        dirs = tuple(content)
    elif environ.get("QUIZAPP_CONTENT"):
        dirs = tuple(Path(p) for p in environ["QUIZAPP_CONTENT"].split(os.pathsep) if p)
    else:
        dirs = ()
    db = db_flag or (Path(environ["QUIZAPP_DB"]) if environ.get("QUIZAPP_DB") else None)
    given = lang_flag or environ.get("QUIZAPP_LANG")
    if given is not None and given not in ("en", "zh"):
        raise CliError(f"QUIZAPP_LANG={given!r}: expected 'en' or 'zh'")
    return GlobalOptions(content_dirs=dirs, db_path=db, lang=given or "en", lang_given=bool(given))


def main(argv: list[str] | None = None) -> int:
    """The command line (`argv` None: this process's own, as the `quizapp` script and `python -m` run it)."""
    own_process = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if own_process and (args.command is None or args.command in SHORT_COMMANDS):
        from quizapp import heap

        heap.hold()  # the app settles it once Home is up; a short command exits with it held
    try:
        options = resolve_options(args, os.environ)
        if args.command is None:
            from quizapp.cli.app import run_app  # textual is imported only here

            return run_app(options)
        module = importlib.import_module(f"quizapp.cli.{MODULES.get(args.command, args.command)}")
        return module.run(args, options)
    except CliError as exc:
        print(f"quizapp: {printable(exc)}", file=sys.stderr)  # typed text never reaches the terminal raw
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `quizapp calc | head`: the reader left; say nothing more
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
