"""`quizapp mock`: open the app straight into a timed mock interview (or resume an unfinished one).

Flags are checked here, before the terminal is taken over, so a bad value is one line on stderr
and exit status 2. Nothing heavy is imported until `run`.
"""

from __future__ import annotations

import argparse
import math

HELP = "start a timed mock interview (question, follow-ups, quick calculations, debrief)"


def _whole_number(minimum: int):
    """An argparse type: a whole number >= minimum, with a one-line reason otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}")
        return value

    return parse


def _minutes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected minutes as a number (e.g. 5 or 0.5), got {text!r}") from None
    if not math.isfinite(value) or value <= 0 or value > 24 * 60:
        raise argparse.ArgumentTypeError(f"expected minutes > 0 and at most a day (e.g. 5 or 0.5), got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--questions", type=_whole_number(1), default=3, metavar="N", help="questions to ask (default 3)")
    parser.add_argument("--minutes", type=_minutes, default=5.0, metavar="M",
                        help="minutes per question; fractions allowed, 0.5 = 30 s (default 5)")
    parser.add_argument("--followups", type=_whole_number(0), default=2, metavar="K",
                        help="follow-ups per question, each with a third of the question's time (default 2)")
    parser.add_argument("--calcs", type=_whole_number(0), default=2, metavar="N",
                        help="quick calculations per question, drawn with the seed (default 2)")
    parser.add_argument("--topic", action="append", default=[], metavar="T",
                        help="draw only from this topic (repeatable; default: all topics)")
    parser.add_argument("--seed", type=_seed, default=None, metavar="S", help="seed for a reproducible draw")
    parser.add_argument("--strict", action="store_true", help="move on automatically when a step's time is up")
    parser.add_argument("--resume", action="store_true", help="resume the newest unfinished interview instead")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.cli.app import run_app
    from quizapp.words import say

    lang = options.lang

    def prepare(app) -> None:
        from quizapp.practice import interview

        if args.resume:
            session_id = interview.latest_incomplete(app.store)
            if session_id is None:
                raise CliError(say("mock.cli.nothing_to_resume", lang))
            record = interview.load_session(app.store, session_id)
        else:
            unknown = sorted(set(args.topic) - set(app.bank.topics()))
            if unknown:
                known = ", ".join(app.bank.topics()) or say("cli.none", lang)
                raise CliError(say("mock.cli.unknown_topic", lang, unknown=", ".join(unknown), known=known))
            try:
                plan = interview.MockOptions(questions=args.questions, minutes=args.minutes,
                                              followups=args.followups, calcs=args.calcs,
                                              topics=tuple(args.topic),
                                              seed=args.seed, strict=args.strict)
                record = interview.start_session(app.store, app.bank, plan)
            except interview.MockError as exc:  # the practice layer's reason, as it is
                raise CliError(str(exc)) from None
        # Home stays underneath: leaving the interview (or its debrief) lands there.
        app.call_later(app.open_interview, record)

    return run_app(options, prepare=prepare)
