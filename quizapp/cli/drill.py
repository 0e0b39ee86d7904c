"""`quizapp drill`: one concrete variant of a drill, its worked answer, and the grade of an answer.

This is how an author checks what a drill accepts before anyone reviews it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import textwrap

from quizapp.cli.args import text, whole_number

HELP = "show one variant of a drill (QUESTION_ID/DRILL_ID), its worked answer, and grade --answer"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("drill", metavar="QID/DRILL", type=text(500, "a drill reference"), help="question id and drill id, e.g. single-gpu-requirements/adamw-7b")
    parser.add_argument("--answer", metavar="TEXT", type=text(1000, "an answer"), help="an answer to grade, e.g. '112 GB' or '约112GB'")
    parser.add_argument("--seed", type=whole_number(0, 2**63 - 1), help="seed for drawing a parametric drill's variant")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _find(bank, reference: str, lang: str = "en"):
    from quizapp.cli import CliError
    from quizapp.cli.args import quote
    from quizapp.words import say

    question_id, slash, drill_id = reference.partition("/")
    question = bank.question(question_id)
    if question is None:
        broken = [p for p in bank.problems if p.file.stem == question_id]
        if broken:  # the problem line (file:line:col: path: message) is the content layer's, as it is
            raise CliError(say("drill.cli.has_problems", lang, qid=question_id, problem=broken[0]))
        raise CliError(say("drill.cli.no_question", lang, qid=quote(question_id)))
    drill = question.drill(drill_id) if slash else None
    if drill is None:
        choices = ", ".join(f"{question.id}/{d.id}" for d in question.drills) or say("cli.none", lang)
        raise CliError(say("drill.cli.no_drill", lang, ref=quote(reference), choices=choices))
    return question, drill


def breakdown_lines(variant, width: int, lang: str = "en") -> list[str]:
    """The worked breakdown, `width` columns at most: each term as "name  GB  GiB", then its formula
    and its substituted numbers on their own indented lines, wrapped (a formula with every number
    of a 70B model in it is far wider than a terminal)."""
    from quizapp.cli.calc import _cells, _ljust, _term, _wide, _wrap
    from quizapp.memory.quantities import format_quantity
    from quizapp.words import say
    from quizapp.words.calc import render

    b = variant.breakdown
    rows = [(_term(t.name, lang), format_quantity(t.bytes, "GB"), format_quantity(t.bytes, "GiB"), t.formula,
             t.substituted) for t in b.terms]
    rows.append((say("calc.cli.total", lang), format_quantity(b.total, "GB"), format_quantity(b.total, "GiB"), "", ""))
    name_w, gb_w, gib_w = (max(_cells(r[i]) for r in rows) for i in range(3))
    width = max(width, 40)
    detail = {"width": width, "initial_indent": " " * 6, "subsequent_indent": " " * 8, "break_on_hyphens": False}
    lines: list[str] = []
    for name, gb, gib, formula, substituted in rows:
        lines.append(f"  {_ljust(name, name_w)}  {gb.rjust(gb_w)}  {gib.rjust(gib_w)}")
        if formula:
            lines += textwrap.wrap(formula, **detail)
        if substituted and substituted != formula:
            lines += textwrap.wrap(f"= {substituted}", **detail)
    for code in b.codes:
        note = say("drill.cli.note", lang, note=render(code, lang))
        if _wide(note):  # Chinese has no spaces to break at: broken by terminal columns
            lines += _wrap(note, width, "  ", "        ")
        else:
            lines += textwrap.wrap(note, width=width, initial_indent="  ", subsequent_indent="        ")
    return lines


def mistake_line(mistake_id: str, lang: str = "en") -> str:
    """The misconception named in `lang`: its label, and its id in brackets only when the id says
    something more (a catalogue id; an extra_mistake's id is its label, which names itself)."""
    from quizapp.words import say

    label = say(mistake_id, lang)
    return label if mistake_id == label else f"{label} [{mistake_id}]"


def _print_text(variant, drill, graded, lang: str = "en") -> None:
    from quizapp.cli.calc import _cells, _wide, _wrap
    from quizapp.memory.quantities import format_quantity, sensible_unit
    from quizapp.words import say

    width = shutil.get_terminal_size((100, 24)).columns
    b = variant.breakdown
    print(variant.prompt)
    print("\n" + say("drill.cli.expected", lang, value=variant.expected_display, ask=variant.ask, tolerance=drill.tolerance))
    setup = say("drill.cli.setup", lang, setup=", ".join(f"{k}={v}" for k, v in variant.options.items()))
    indent = " " * _cells(say("drill.cli.setup", lang, setup=""))  # under the first value
    if _wide(setup):
        print("\n".join(_wrap(setup, max(width, 40), "", indent)))
    else:
        print(textwrap.fill(setup, width=max(width, 40), subsequent_indent=indent, break_on_hyphens=False))
    print(say("drill.cli.params", lang, n=f"{b.params:,}", quantity=format_quantity(b.params, sensible_unit(b.params, 'count'))))
    for line in breakdown_lines(variant, width, lang):
        print(line)
    if graded is None:
        return
    if graded.verdict == "unparseable":  # the reason is the grader's (quizapp.content), as it is
        print("\n" + say("drill.cli.unparseable", lang, reason=graded.reason))
        return
    rating = say(f"rating.{graded.suggested_rating}", lang)
    line = "\n" + say("drill.cli.graded", lang, value=format_quantity(graded.value, variant.unit),
                      verdict=say(f"drill.cli.verdict.{graded.verdict}", lang), rating=rating)
    if graded.convention:
        from quizapp.content.drills import precise

        line += "\n" + say("review.convention", lang, name=say(f"convention.{graded.convention}", lang),
                           value=precise(graded.convention_value, variant.unit), expected=variant.expected_display)
    for mistake_id in graded.mistake_ids:
        line += "\n" + mistake_line(mistake_id, lang)
    print(line)


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.content.bank import load_bank
    from quizapp.content.drills import draw_variant
    from quizapp.content.grading import grade
    from quizapp.locations import content_dirs
    from quizapp.memory import SetupError
    from quizapp.memory.quantities import unit_of

    from quizapp.content.localize import localized

    bank = localized(load_bank(content_dirs(options.content_dirs)), options.lang)
    question, drill = _find(bank, args.drill, options.lang)
    try:
        variant = draw_variant(question, drill, args.seed)
    except SetupError as exc:
        raise CliError(f"{args.drill}: {exc}") from None
    graded = grade(variant, drill, args.answer) if args.answer is not None else None
    if args.json:
        scale = unit_of(variant.unit).scale
        print(
            json.dumps(
                {
                    "prompt": variant.prompt,
                    "expected": variant.expected / scale,
                    "unit": variant.unit,
                    "verdict": graded.verdict if graded else None,
                    "value": graded.value / scale if graded and graded.value is not None else None,
                    "mistake": graded.mistake_id if graded else None,
                    "mistakes": list(graded.mistake_ids) if graded else [],
                    "convention": graded.convention if graded else None,
                    "reason": graded.reason if graded else None,
                },
                ensure_ascii=False,
            )
        )
    else:
        _print_text(variant, drill, graded, options.lang)
    return 0
