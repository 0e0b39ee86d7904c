"""`quizapp stats`: the statistics screen's figures as text (or JSON with --json) for scripts and terminals.

Reads the review database only (it does not sync it with the question bank, so questions added since
the app last ran are not counted yet), and never creates one: with no database there is nothing to
count, which it says (exit 0). The figures come from quizapp.store.stats, like the screen's.
"""

from __future__ import annotations

import argparse
import json

HELP = "review statistics: activity, true retention, due forecast, cards by state, drills, leeches, mocks"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON object")
    parser.add_argument("--days", type=int, choices=(30, 90), default=30,
                        help="how many days of reviews per day to list (default 30)")


def run(args: argparse.Namespace, options) -> int:
    from pathlib import Path

    from quizapp import locations
    from quizapp.cli import CliError
    from quizapp.clock import SystemClock
    from quizapp.cli.srs_support import load_cards
    from quizapp.store import Store, StoreError
    from quizapp.store import retention, stats

    path = Path(options.db_path).expanduser() if options.db_path else locations.default_db_path()
    try:  # a read-only command: the database is read (never created, migrated or written), the bank's
        # cards synced into its in-memory copy, so the counts are Home's, new cards included
        with Store.open_view(path, SystemClock(), load_cards(options).cards()) as store:
            figures = stats.collect(store)
            memory = retention.to_json(store) if args.as_json else {}  # SRS: true-retention table, S/D/R
            history = store.has_history
    except StoreError as exc:
        raise CliError(str(exc)) from None
    if args.as_json:
        data = {**figures_json(figures, options.lang, args.days), **memory}
        print(json.dumps({"database": str(path), "database_exists": history, **data}, ensure_ascii=False, indent=2))
    else:
        if not history:
            from quizapp.cli.args import printable
            from quizapp.words import say

            print(say("stats.no_database", options.lang, path=printable(path)))  # a path is never broken
        print(fit_to_terminal(as_text(figures, options.lang, args.days)))
    return 0


def fit_to_terminal(text: str) -> str:
    """Each line wrapped to the terminal's width (COLUMNS=80: no line over 80 columns), continued under
    its own indent plus two; Chinese breaks between characters, English at spaces."""
    import shutil
    import textwrap

    from quizapp.cli.calc import _cells, _wide, _wrap

    width = max(shutil.get_terminal_size((100, 24)).columns, 40)
    out = []
    for line in text.splitlines():
        if _cells(line) <= width:
            out.append(line)
            continue
        body = line.lstrip(" ")
        indent = " " * (len(line) - len(body))
        out += (_wrap(body, width, indent, indent + "  ") if _wide(body)
                else textwrap.wrap(body, width=width, initial_indent=indent, subsequent_indent=indent + "  "))
    return "\n".join(out)


def figures_json(figures, lang: str, days: int = 30) -> dict:
    """stats.to_json, each mistake with its name in `lang` beside its id."""
    from quizapp.store import stats
    from quizapp.words import say

    data = stats.to_json(figures, days)
    for mistake in data["mistakes"]:
        mistake["label"] = say(mistake["mistake_id"], lang)
    return data


def _percent(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.1%}"


def _pad(text: str, width: int, left: bool) -> str:
    """Pad to `width` terminal cells (a Chinese character takes two), left- or right-aligned."""
    from rich.cells import cell_len

    gap = " " * max(width - cell_len(text), 0)
    return text + gap if left else gap + text


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Columns aligned by display width: the first left-aligned, the others right-aligned."""
    from rich.cells import cell_len

    cells = [[str(c) for c in row] for row in (headers, *rows)]
    widths = [max(cell_len(c) for c in column) for column in zip(*cells)]
    return ["  " + "  ".join(_pad(c, w, i == 0) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
            for row in cells]


def as_text(figures, lang: str = "en", days: int = 30) -> str:
    """Every figure as plain text, in the screen's order and words."""
    from quizapp.vocab import Verdict
    from quizapp.words import say

    def w(key: str, **args: object) -> str:
        return say(key, lang, **args)

    lines: list[str] = []
    recent = figures.reviews_last(days)
    lines.append(w("stats.reviews.summary", 
        today=figures.reviews[-1].total, month=sum(d.total for d in figures.reviews_last(30)),
        quarter=sum(d.total for d in figures.reviews_last(90)), studied=sum(1 for d in recent if d.total), days=days))
    month, forever = figures.retention

    def rate(r) -> str:
        return w("stats.retention.rate", rate=_percent(r.rate), recalled=r.recalled, total=r.total)

    lines.append(w("stats.retention", month=rate(month), all=rate(forever), desired=f"{month.desired:.0%}"))
    lines += ["", w("stats.reviews.title", n=days)]
    lines += _table([w("stats.col.day"), w("stats.col.review"), w("stats.col.cram"), w("stats.col.mock"),
                     w("stats.col.total")],
                    [[d.day.isoformat(), d.review, d.cram, d.mock, d.total] for d in reversed(recent)])  # newest first
    forecast = figures.forecast
    lines += ["", w("stats.forecast.title"), "  " + w("stats.forecast.summary", 
        today=forecast[0].due, tomorrow=forecast[1].due, week=sum(f.due for f in forecast[:7]),
        month=sum(f.due for f in forecast))]
    lines += _table([w("stats.col.day"), w("stats.col.due")], [[f.day.isoformat(), f.due] for f in forecast])
    names = ("new", "learning", "review", "relearning", "suspended", "leech", "total")
    lines += ["", w("stats.states.title")]
    lines += _table([w("stats.col.topic")] + [w(f"stats.col.{n}") for n in names],
                    [[s.topic or w("stats.all_topics"), *(getattr(s, n) for n in names)] for s in figures.states])
    verdicts = tuple(v.value for v in Verdict)
    lines += ["", w("stats.accuracy.title")]
    lines += _table([w("stats.col.topic")] + [w(f"stats.col.{n}") for n in (*verdicts, "accuracy")],
                    [[a.topic or w("stats.all_topics"), *(getattr(a, n) for n in verdicts), _percent(a.rate)]
                     for a in figures.accuracy])
    lines += ["", w("stats.mistakes.title")]
    lines += _table([w("stats.col.mistake"), w("stats.col.times")], [[say(m.mistake_id, lang), m.count] for m in figures.mistakes]) \
        if figures.mistakes else ["  " + w("stats.none")]
    points = figures.points_90 if days == 90 else figures.points
    lines += ["", w("stats.points.title", n=days)]
    lines += _table([w("stats.col.card"), w("stats.col.point"), w("stats.col.topic"), w("stats.col.missed")],
                    [[p.card_id, p.point, p.topic, f"{p.missed}/{p.seen}"] for p in points]) \
        if points else ["  " + w("stats.none")]
    lines += ["", w("stats.leeches.title")]
    lines += _table([w("stats.col.card"), w("stats.col.topic"), w("stats.col.lapses"), w("stats.col.suspended")],
                    [[x.card_id, x.topic, x.lapses, w("stats.yes" if x.suspended else "stats.no")] for x in figures.leeches]) \
        if figures.leeches else ["  " + w("stats.none")]
    lines += ["", w("stats.mocks.title")]
    if not figures.mocks_available:
        lines.append("  " + w("stats.mocks.unavailable"))
    elif not figures.mocks:
        lines.append("  " + w("stats.none"))
    else:
        lines += _table([w(f"stats.col.{n}") for n in ("date", "questions", "answered", "score", "completed")],
                        [[m.started.astimezone().strftime("%Y-%m-%d %H:%M"), m.questions, f"{m.answered}/{m.items}",
                          "—" if m.score is None else f"{m.score:.0f}%", w("stats.yes" if m.completed else "stats.no")]
                         for m in figures.mocks])
    return "\n".join(lines)
