"""`quizapp stats`: the statistics screen's figures as text (or JSON with --json) for scripts and terminals.

Reads the review database only (it does not sync it with the question bank, so questions added since
the app last ran are not counted yet). The figures come from quizapp.store.stats, like the screen's.
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
    from quizapp.cli import CliError
    from quizapp.clock import SystemClock
    from quizapp.store import Store, StoreError
    from quizapp.store import stats

    try:
        with Store.open(options.db_path, SystemClock()) as store:
            figures = stats.collect(store, lang=options.lang)
    except StoreError as exc:
        raise CliError(str(exc)) from None
    if args.as_json:
        print(json.dumps(stats.to_json(figures), ensure_ascii=False, indent=2))
    else:
        print(as_text(figures, options.lang, args.days))
    return 0


def _percent(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.1%}"


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in column) for column in zip(headers, *rows)]
    out = ["  " + "  ".join(str(h).ljust(w) if i == 0 else str(h).rjust(w) for i, (h, w) in enumerate(zip(headers, widths)))]
    for row in rows:
        out.append("  " + "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    return out


def as_text(figures, lang: str = "en", days: int = 30) -> str:
    """Every figure as plain text, in the screen's order and words."""
    from quizapp.tui.i18n import t

    def w(key: str) -> str:
        return t(key, lang)

    lines: list[str] = []
    recent = figures.reviews_last(days)
    lines.append(w("stats.reviews.summary").format(
        today=figures.reviews[-1].total, month=sum(d.total for d in figures.reviews_last(30)),
        quarter=sum(d.total for d in figures.reviews_last(90)), studied=sum(1 for d in recent if d.total), days=days))
    month, forever = figures.retention

    def rate(r) -> str:
        return w("stats.retention.rate").format(rate=_percent(r.rate), recalled=r.recalled, total=r.total)

    lines.append(w("stats.retention").format(month=rate(month), all=rate(forever), desired=f"{month.desired:.0%}"))
    lines += ["", w("stats.reviews.title").format(days=days)]
    lines += _table([w("stats.col.day"), w("stats.col.review"), w("stats.col.cram"), w("stats.col.mock"),
                     w("stats.col.total")],
                    [[d.day.isoformat(), d.review, d.cram, d.mock, d.total] for d in recent])
    forecast = figures.forecast
    lines += ["", w("stats.forecast.title"), "  " + w("stats.forecast.summary").format(
        today=forecast[0].due, tomorrow=forecast[1].due, week=sum(f.due for f in forecast[:7]),
        month=sum(f.due for f in forecast))]
    lines += _table([w("stats.col.day"), w("stats.col.due")], [[f.day.isoformat(), f.due] for f in forecast])
    names = ("new", "learning", "review", "relearning", "suspended", "leech", "total")
    lines += ["", w("stats.states.title")]
    lines += _table([w("stats.col.topic")] + [w(f"stats.col.{n}") for n in names],
                    [[s.topic or w("stats.all_topics"), *(getattr(s, n) for n in names)] for s in figures.states])
    verdicts = ("correct", "close", "wrong", "unparseable")
    lines += ["", w("stats.accuracy.title")]
    lines += _table([w("stats.col.topic")] + [w(f"stats.col.{n}") for n in (*verdicts, "accuracy")],
                    [[a.topic or w("stats.all_topics"), *(getattr(a, n) for n in verdicts), _percent(a.rate)]
                     for a in figures.accuracy])
    lines += ["", w("stats.mistakes.title")]
    lines += _table([w("stats.col.mistake"), w("stats.col.times")], [[m.label, m.count] for m in figures.mistakes]) \
        if figures.mistakes else ["  " + w("stats.none")]
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
