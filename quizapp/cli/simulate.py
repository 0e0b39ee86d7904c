"""`quizapp simulate [--days N] [--retention R]`: reviews and minutes per day ahead, by desired retention.

fsrs-rs's simulator runs the collection (its number of cards, at your daily limits and current FSRS
parameters, rating habits from your history when there is enough) at several desired retentions, so
you can choose one by the workload it costs; --retention adds that one and lists its days.
The database is opened read-only.
"""

from __future__ import annotations

import argparse
import json

HELP = "simulate the daily workload ahead (fsrs-rs) at several desired retentions"


def _retention(text: str) -> float:
    from quizapp.store.config import _retention as parse

    try:
        return parse(text)
    except ValueError:
        from quizapp.words import say

        raise argparse.ArgumentTypeError(say("simulate.bad_retention", "en", value=text)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from quizapp.cli.args import whole_number

    parser.add_argument("--days", type=whole_number(1, 3650), default=365, help="days to simulate (default 365)")
    parser.add_argument("--retention", type=_retention, metavar="R",
                        help="a desired retention to simulate day by day (0.9 or 90%%)")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON object")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.cli.srs_support import open_store
    from quizapp.store.database import NoHistory
    from quizapp.store.retention import RETENTIONS, deck_size, simulate_workload
    from quizapp.words import say

    lang = options.lang
    try:
        with open_store(options, read_only=True) as store:
            cards = deck_size(store)
            if not cards:
                raise CliError(say("simulate.no_cards", lang), code=1)
            chosen = args.retention if args.retention is not None else store.config.desired_retention
            retentions = sorted({*RETENTIONS, round(chosen, 4)})
            results = simulate_workload(store, args.days, retentions)
            new_per_day = store.config.new_per_day
    except NoHistory:
        raise CliError(say("simulate.no_cards", lang), code=1) from None
    picked = next(w for w in results if abs(w.retention - chosen) < 1e-9)
    if args.as_json:
        print(json.dumps({
            "days": args.days, "cards": cards, "new_per_day": new_per_day, "retention": chosen,
            "summary": [{"retention": w.retention, "reviews_per_day": w.mean_reviews, "minutes_per_day": w.mean_minutes,
                         "memorized": w.memorized} for w in results],
            "daily": [{"day": i + 1, "reviews": r, "minutes": m}
                      for i, (r, m) in enumerate(zip(picked.reviews_per_day, picked.minutes_per_day))],
        }, ensure_ascii=False, indent=2))
        return 0
    lines = [say("simulate.title", lang, days=args.days, cards=cards, new=new_per_day), say("simulate.header", lang)]
    for w in results:
        mark = " *" if w is picked else ""
        lines.append(say("simulate.row", lang, retention=w.retention, reviews=w.mean_reviews, minutes=w.mean_minutes,
                         memorized=w.memorized) + mark)
    if args.retention is not None:
        lines += ["", say("simulate.daily", lang, retention=chosen)]
        for i, (r, m) in enumerate(zip(picked.reviews_per_day, picked.minutes_per_day)):
            lines.append(f"{i + 1:>3}  {r:>7}  {m:>7.1f}")
    print("\n".join(lines))
    return 0
