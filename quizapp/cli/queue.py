"""`quizapp queue [--json] [--days N]`: today's review as the app will show it, in order; changes nothing.

The review database is opened read-only and copied (SQLite's backup) into a temporary file, where the
bank is synced as the app does at start-up; the list comes from that copy (Store.queue), so the
user's file is never written, not even its WAL. --days N adds the coming days (reviews due by then
that no earlier day listed, and the next new cards).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

HELP = "list today's review in the order the app will show it (card, kind, topic, due or new); changes nothing"
MAX_DAYS = 365


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from quizapp.cli.args import whole_number

    parser.add_argument("--days", type=whole_number(1, MAX_DAYS), default=1, metavar="N",
                        help=f"also list the coming days: N days in all, today included (1..{MAX_DAYS}; default 1)")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON object")


def _snapshot(path: Path, target: Path, clock) -> bool:
    """Copy the database at `path` (opened read-only) to `target`; False when there is no history yet."""
    from quizapp.store import Store
    from quizapp.store.database import NoHistory

    try:
        source = Store.open(path, clock, read_only=True)
    except NoHistory:
        return False
    try:
        source.copy_to(target)
    finally:
        source.close()
    return True


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.clock import SystemClock
    from quizapp.content.bank import load_content
    from quizapp.locations import default_db_path
    from quizapp.store import Store, StoreError
    from quizapp.words import say

    lang = options.lang
    clock = SystemClock()
    bank = load_content(options.content_dirs)
    path = Path(options.db_path) if options.db_path else default_db_path()
    with tempfile.TemporaryDirectory(prefix="quizapp-queue-") as folder:
        copy = Path(folder) / "queue.sqlite3"
        try:
            had_history = _snapshot(path, copy, clock)
            with Store.open(copy, clock) as store:  # the copy's stored settings, as the app would use
                store.sync(bank.cards())
                entries = store.queue(args.days)
                bounds = []
                start, end = store.day_bounds()
                for _ in range(args.days):
                    bounds.append((start, end))
                    start, end = store.day_bounds(end + timedelta(minutes=1))  # the next study day
        except (StoreError, sqlite3.Error) as exc:
            raise CliError(str(exc)) from None
    days = []
    for day, (start, end) in enumerate(bounds):
        cards = [e for e in entries if e.day == day]
        days.append({
            "day": day,
            "start": start.isoformat(),
            "end": end.isoformat(),
            "counts": {section: sum(e.section == section for e in cards) for section in ("learning", "review", "new")},
            "cards": [{"card_id": e.card_id, "kind": e.kind, "topic": e.topic, "section": e.section,
                       "due": e.due.isoformat() if e.due is not None else None} for e in cards],
        })
    if args.as_json:
        print(json.dumps({"database": str(path), "history": had_history, "days": days}, ensure_ascii=False, indent=2))
        return 0
    if not had_history:
        print(say("queue.no_db", lang, path=path))
    for item in days:
        date = _local(item["start"]).strftime("%Y-%m-%d")
        head = say("queue.today", lang, date=date) if item["day"] == 0 else say("queue.day", lang, n=item["day"] + 1, date=date)
        print(say("queue.cli.head", lang, head=head, counts=say("queue.counts", lang, **item["counts"])))
        if not item["cards"]:
            print(f"  {say('queue.nothing', lang)}")
        width = max((len(c["card_id"]) for c in item["cards"]), default=0)
        topic_width = max((_cells(c["topic"]) for c in item["cards"]), default=0)
        for n, card in enumerate(item["cards"], 1):
            when = say("queue.new", lang) if card["due"] is None else _local(card["due"]).strftime("%m-%d %H:%M")
            section = say(f"queue.section.{card['section']}", lang)
            kind = say(f"queue.kind.{card['kind']}", lang)
            print(f"  {n:>3}  {_pad(section, 8)}  {_pad(kind, 8)}  {_pad(card['topic'], topic_width)}  "
                  f"{card['card_id']:<{width}}  {when}".rstrip())
    return 0


def _cells(text: str) -> int:
    """Terminal columns of `text` (a Chinese character takes two)."""
    from quizapp.cli.calc import _cells as cells

    return cells(text)


def _pad(text: str, width: int) -> str:
    """`text` padded to `width` terminal columns (Chinese words and topic names line up)."""
    return text + " " * max(width - _cells(text), 0)


def _local(iso: str) -> datetime:
    return datetime.fromisoformat(iso).astimezone()
