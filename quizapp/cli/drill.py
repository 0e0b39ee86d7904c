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


def row_label(name: str, lang: str = "en") -> str:
    """A worked-solution row's name in `lang` (a memory term, a sum, a derivation step or an ask)."""
    from quizapp.words import say

    for key in (f"term.{name}", f"solution.row.{name}"):
        word = say(key, lang)
        if word != key:
            return word
    return name.replace("_", " ")


def derivation_lines(variant, width: int, lang: str = "en") -> list[str]:
    """A derived ask's worked solution, `width` columns at most: each step as "name  value", then its
    formula and its numbers on indented lines and its note; the asked row marked; then the notes."""
    from quizapp.cli.calc import _cells, _ljust, _wide, _wrap
    from quizapp.content.solution import worked_solution
    from quizapp.words import say
    from quizapp.words.calc import render

    solution = worked_solution(variant)
    width = max(width, 40)
    labels = [("▶ " if r.asked else "  ") + row_label(r.name, lang) for r in solution.rows]
    label_w = max(_cells(label) for label in labels)
    detail = {"width": width, "initial_indent": " " * 6, "subsequent_indent": " " * 8, "break_on_hyphens": False}

    def wrapped(text: str, first: str, rest: str) -> list[str]:
        if _wide(text):
            return _wrap(text, width, first, rest)
        return textwrap.wrap(text, width=width, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False)

    lines: list[str] = []
    for label, row in zip(labels, solution.rows):
        lines.append(f"{_ljust(label, label_w)}  {row.shown}")
        if row.formula:
            lines += textwrap.wrap(row.formula, **detail)
        if row.substituted and row.substituted != row.formula:
            lines += textwrap.wrap(f"= {row.substituted}", **detail)
        words = render(row.note, lang) if row.note else ""
        if words:
            lines += wrapped(words, " " * 6, " " * 8)
    for code in solution.notes:
        lines += wrapped(say("drill.cli.note", lang, note=render(code, lang)), "  ", "        ")
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
    if getattr(variant, "derivation", None) is not None:  # no memory term: the steps to the asked value
        for line in derivation_lines(variant, width, lang):
            print(line)
    else:
        print(say("drill.cli.params", lang, n=f"{b.params:,}", quantity=format_quantity(b.params, sensible_unit(b.params, 'count'))))
        for line in breakdown_lines(variant, width, lang):
            print(line)
    if graded is None:
        return
    if graded.verdict == "unparseable":  # the reason is the grader's (quizapp.content), as it is
        print("\n" + say("drill.cli.unparseable", lang, reason=graded.reason))
        return
    rating = say(f"rating.{graded.suggested_rating}", lang)
    from quizapp.memory.asks import count_noun

    noun = count_noun(variant.ask)
    line = "\n" + say("drill.cli.graded", lang, value=format_quantity(graded.value, variant.unit, noun=noun),
                      verdict=say(f"drill.cli.verdict.{graded.verdict}", lang), rating=rating)
    if graded.convention:
        from quizapp.content.drills import precise

        line += "\n" + say("review.convention", lang, name=say(f"convention.{graded.convention}", lang),
                           value=precise(graded.convention_value, variant.unit, noun), expected=variant.expected_display)
    for mistake_id in graded.mistake_ids:
        line += "\n" + mistake_line(mistake_id, lang)
    print(line)


def _list(question, as_json: bool, lang: str) -> int:
    """`quizapp drill QID`: the question's drills, one a line (id, what it asks, its unit, its prompt)."""
    from quizapp.words import say

    if as_json:
        print(json.dumps({"question": question.id, "drills": [
            {"id": f"{question.id}/{d.id}", "ask": d.ask, "unit": d.unit, "prompt": d.prompt} for d in question.drills]},
            ensure_ascii=False))
        return 0
    width = max(shutil.get_terminal_size((100, 24)).columns, 40)
    print(say("drill.cli.list", lang, qid=question.id, n=len(question.drills)))
    from quizapp.cli.calc import _wide, _wrap
    from quizapp.content.drills import draw_variant

    for d in question.drills:
        print(f"  {question.id}/{d.id}  ({d.ask}, {d.unit})")
        try:
            prompt = " ".join(draw_variant(question, d, 0).prompt.split())  # the variant `drill QID/ID` shows
        except ValueError:
            prompt = " ".join(d.prompt.split())
        print("\n".join(_wrap(prompt, width, " " * 6, " " * 6)) if _wide(prompt)
              else textwrap.fill(prompt, width=width, initial_indent=" " * 6, subsequent_indent=" " * 6))
    return 0


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
    if "/" not in args.drill and bank.question(args.drill) is not None:
        return _list(bank.question(args.drill), args.json, options.lang)  # `quizapp drill QID`: its drills
    question, drill = _find(bank, args.drill, options.lang)
    # one fixed variant unless --seed says another: what is printed is what --answer is graded against
    seed = 0 if args.seed is None else args.seed
    try:
        variant = draw_variant(question, drill, seed)
    except SetupError as exc:
        raise CliError(f"{args.drill}: {exc}") from None
    graded = grade(variant, drill, args.answer) if args.answer is not None else None
    if args.json:
        scale = unit_of(variant.unit).scale
        print(
            json.dumps(
                {
                    "prompt": variant.prompt,
                    "seed": seed,
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
        if drill.vary:
            from quizapp.words import say

            print(say("drill.cli.seed", options.lang, seed=seed))
        _print_text(variant, drill, graded, options.lang)
    return 0
