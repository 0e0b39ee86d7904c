"""`quizapp cards SEARCH`: list the cards a search finds, or change them all at once (Anki's browser,
from the command line): --suspend, --unsuspend, --bury, --reset, --reset-history, --due SPEC, --flag N.

A change is one transaction, journaled like the browser's, and prints what it changed; the app's
browser undoes it (u), as does `quizapp cards --undo`. Without a change the database is opened
read-only. The search language is quizapp.store.search's (docs/app.md, "Browse and search").
"""

from __future__ import annotations

import argparse
import json

HELP = "find cards with the search language and suspend, bury, reset, reschedule or flag them"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from quizapp.cli.args import whole_number

    parser.add_argument("search", nargs="*", metavar="SEARCH",
                        help='a search, e.g. topic:serving is:due -flag:0 "kv cache" (empty: every card)')
    actions = parser.add_mutually_exclusive_group()
    actions.add_argument("--suspend", action="store_const", const="suspend", dest="action", help="suspend them")
    actions.add_argument("--unsuspend", action="store_const", const="unsuspend", dest="action", help="unsuspend them")
    actions.add_argument("--bury", action="store_const", const="bury", dest="action", help="bury them until tomorrow")
    actions.add_argument("--reset", action="store_const", const="reset", dest="action",
                         help="forget them: new cards again (their history is kept)")
    actions.add_argument("--reset-history", action="store_const", const="reset_history", dest="action",
                         help="forget them and delete their review history")
    actions.add_argument("--due", metavar="SPEC", help="set the due date: days from today, 0 (today), 3, or 3-7")
    actions.add_argument("--flag", metavar="N", type=whole_number(0, 4), help="flag 1-4 (0 removes the flag)")
    actions.add_argument("--undo", action="store_true", help="undo the last change made with `quizapp cards`")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON object")
    parser.add_argument("--limit", metavar="N", type=whole_number(1), help="list at most N cards")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.cli.srs_support import load_bank, open_store, open_view, search_error_line
    from quizapp.store import card_ops
    from quizapp.store.database import NoHistory
    from quizapp.store.search import SearchError, find, index_from_bank
    from quizapp.words import say

    lang = options.lang
    query = " ".join(args.search)
    action, argument = args.action, None
    if args.due is not None:
        action = "due"
        try:
            argument = card_ops.parse_due(args.due)
        except card_ops.DueSpecError:
            raise CliError(say("cards.bad_due", lang, value=args.due)) from None
    elif args.flag is not None:
        action, argument = "flag", args.flag
    if args.undo:
        if query:
            raise CliError(say("cards.undo_no_search", lang))
        with open_store(options, read_only=False) as store:
            done = store.undo_operation()
        if args.as_json:
            print(json.dumps(None if done is None else {"undone": done.action, "argument": done.argument,
                                                         "cards": list(done.cards)}, ensure_ascii=False))
        else:
            print(say("cards.nothing_to_undo", lang) if done is None else
                  say("cards.undone", lang, what=_what(done.action, done.argument, lang), n=len(done.cards)))
        return 0
    bank = load_bank(options)
    index = index_from_bank(bank)
    try:
        if action is None:  # only reads: the app's view (the bank's cards, new ones included), nothing written
            with open_view(options, bank) as store:
                found, total = find(store, query, index, limit=args.limit)
            _list(found, total, bank, args.as_json, lang)
            return 0
        with open_store(options, read_only=False) as store:
            ids = [f.card_id for f in find(store, query, index)[0]]
            result = card_ops.apply(store, action, ids, argument, source="cli")
    except SearchError as exc:
        raise CliError(search_error_line(exc, lang)) from None
    except NoHistory:
        _list([], 0, bank, args.as_json, lang)
        return 0
    _changed(result, args.as_json, lang)
    return 0


def _what(action: str, argument: str, lang: str) -> str:
    from quizapp.words import say

    return say(f"cards.action.{action}", lang, argument=argument)


def _changed(result, as_json: bool, lang: str) -> None:
    from quizapp.words import say

    reasons: dict[str, list[str]] = {}
    for card_id, reason in result.skipped.items():
        reasons.setdefault(reason, []).append(card_id)
    if as_json:
        print(json.dumps({"action": result.action, "argument": result.argument, "operation_id": result.operation_id,
                          "changed": list(result.changed), "skipped": result.skipped}, ensure_ascii=False, indent=2))
        return
    print(say("cards.changed", lang, n=len(result.changed), what=_what(result.action, result.argument, lang)))
    for card_id in result.changed:
        print(f"  {card_id}")
    for reason, ids in reasons.items():
        print(say(f"cards.skipped.{reason}", lang, n=len(ids)))
    if result.changed:
        print(say("cards.undo_hint", lang))


def _list(found, total: int, bank, as_json: bool, lang: str) -> None:
    from quizapp.words import say

    if as_json:
        print(json.dumps({"total": total, "cards": [_card_json(f) for f in found]}, ensure_ascii=False, indent=2))
        return
    print(say("cards.found", lang, n=total))
    for f in found:
        state = say("srs.state.new", lang) if f.is_new else say(f"srs.state.{f.state}", lang)
        extras = [say("cards.list.ivl", lang, n=f.interval) if f.interval is not None else "",
                  f"S {f.stability:.1f}" if f.stability else "",
                  f"R {f.retrievability:.0%}" if f.retrievability is not None else "",
                  say("cards.list.flag", lang, n=f.flag) if f.flag else "",
                  say("browse.suspended", lang) if f.suspended else "",
                  say("browse.buried", lang) if f.buried else ""]
        print(f"  {f.card_id}  [{state}] {say('cards.list.due', lang, when=f.due[:16])}  " + "  ".join(e for e in extras if e))


def _card_json(f) -> dict:
    from quizapp.vocab import State

    return {"card_id": f.card_id, "question_id": f.question_id, "kind": f.kind, "topic": f.topic,
            "state": "new" if f.is_new else State(f.state).name.lower(),
            "due": f.due, "interval_days": f.interval, "stability": f.stability, "difficulty": f.difficulty,
            "retrievability": f.retrievability, "lapses": f.lapses, "reps": f.reps, "flag": f.flag,
            "suspended": f.suspended, "buried": f.buried, "leech": f.leech}
