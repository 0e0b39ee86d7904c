"""`quizapp points ID [--answer TEXT] [--json]`: a card's key points, and with an answer which of them
it covers, the coverage and the suggested rating (quizapp.content.keypoints). Reads question files only.
"""

from __future__ import annotations

import argparse
import difflib
import json

HELP = "a question's (or QID/followup/FID's) key points; with --answer, which it covers and the suggested rating"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("card", metavar="ID", help="a question id, or QID/followup/FID for a follow-up")
    parser.add_argument("--answer", metavar="TEXT", help="an answer to check (either language)")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON object")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.cli.args import printable
    from quizapp.content.bank import load_content
    from quizapp.content.drills import render_text
    from quizapp.content.keypoints import cover, points_of
    from quizapp.vocab import MAIN_ITEM, CardId, CardKind
    from quizapp.words import say

    lang = options.lang
    parts = args.card.strip().split("/")
    qid = parts[0]
    if len(parts) == 1:
        item = MAIN_ITEM
    elif len(parts) == 3 and parts[1] == CardKind.FOLLOWUP:
        item = parts[2]
    else:
        raise CliError(say("points.cli.bad_id", lang, card=printable(args.card)))
    bank = load_content(options.content_dirs, lang)
    question = bank.question(qid)
    if question is None:
        close = difflib.get_close_matches(qid, [q.id for q in bank.questions], n=1, cutoff=0.5)
        hint = say("show.cli.did_you_mean", lang, qid=close[0]) if close else ""
        raise CliError(say("show.unknown", lang, qid=printable(qid), hint=hint))
    if item != MAIN_ITEM and all(f.id != item for f in question.followups):
        choices = ", ".join(f.id for f in question.followups) or "-"
        raise CliError(say("points.cli.no_followup", lang, qid=qid, item=printable(item), choices=choices))
    card_id = CardId(qid, CardKind.QUESTION if item == MAIN_ITEM else CardKind.FOLLOWUP, item).format()
    points = points_of(question, item)
    result = cover(question, points, render_text(question, args.answer or ""))
    if args.as_json:
        data = result.as_json(card_id)  # no answer: nothing covered, Again suggested (as for an empty one)
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    if not points:
        print(say("points.cli.none", lang, card=card_id))
        return 0
    print(card_id)
    for point in result.points:
        box = "✓" if point.covered else ("·" if args.answer is None else "✗")
        must = say("points.must", lang) if point.must else ""
        line = f"  {box} {point.text}{must}"
        if point.by:
            line += "  " + say("points.by", lang, words=point.by)
        print(line)
    if args.answer is not None:
        print(say("points.cli.summary", lang, covered=result.covered, total=result.total,
                  percent=f"{result.fraction:.0%}", rating=say(f"rating.{result.suggested}", lang)))
    return 0
