"""Checks that need the calculator or the whole question: ids, setups, asks, units, tolerances,
prompt placeholders, `{{drill}}` references and extra mistakes that the grader could never name.

Each problem points at the YAML node that causes it (the setup key the calculator rejects, the
`{{...}}` inside the text), so an author can jump straight there.
"""

from __future__ import annotations

import difflib
import itertools
import math
import random
import re
import string
import typing

from quizapp.content.drills import REFERENCE, base_options, reference_terms
from quizapp.content.localize import languages_of, variants
from quizapp.content.schema import Drill, Question
from quizapp.memory import ASKS, SetupError, evaluate, setup_from_options
from quizapp.memory.quantities import QuantityError, parse_quantity, unit_of
from quizapp.content.problems import FileProblems as _FileProblems
from quizapp.content.problems import NodeIndex, PathItem

class Calculator:
    """setup_from_options and evaluate, remembered for one validation run: a bank repeats the same
    setups (the same model under several drills and references) and each evaluation builds a full
    breakdown. Errors are remembered too, and raised again."""

    def __init__(self) -> None:
        self._setups: dict[tuple, object] = {}
        self._values: dict[tuple, object] = {}

    @staticmethod
    def _key(options: typing.Mapping[str, object]) -> tuple:
        return tuple(sorted((str(k), type(v).__name__, v) for k, v in options.items()))

    def setup(self, options: typing.Mapping[str, object]):
        key = self._key(options)
        if key not in self._setups:
            try:
                self._setups[key] = setup_from_options(options)
            except SetupError as exc:
                self._setups[key] = exc
        found = self._setups[key]
        if isinstance(found, SetupError):
            raise found
        return found

    def value(self, options: typing.Mapping[str, object], ask: str) -> float:
        key = (self._key(options), ask)
        if key not in self._values:
            try:
                self._values[key] = evaluate(self.setup(options), ask)
            except SetupError as exc:
                self._values[key] = exc
        found = self._values[key]
        if isinstance(found, SetupError):
            raise found
        return found  # type: ignore[return-value]


# Which ask kinds a unit kind can display ("ratio" answers are percentages of a plain number).
_UNIT_KINDS_FOR_ASK = {"bytes": {"bytes"}, "count": {"count"}, "seconds": {"seconds"}, "number": {"number", "ratio"}}


def localized_fields(question: Question) -> list[tuple[tuple[PathItem, ...], object]]:
    """Every text field of the question as written (a plain string or {en, zh}), with its path."""
    fields: list[tuple[tuple[PathItem, ...], object]] = []
    for name in ("title", "intent", "answer", "template", "resume"):
        value = getattr(question, name)
        if value:
            fields.append(((name,), value))
    fields += [(("key_points", i, "text"), p.text) for i, p in enumerate(question.key_points)]
    for i, item in enumerate(question.followups):
        fields += [(("followups", i, "q"), item.q), (("followups", i, "a"), item.a)]
        fields += [(("followups", i, "key_points", j, "text"), p.text) for j, p in enumerate(item.key_points)]
    for i, item in enumerate(question.mistakes):
        fields += [(("mistakes", i, name), getattr(item, name)) for name in ("wrong", "right", "why")]
    for i, item in enumerate(question.errata):
        fields += [(("errata", i, name), getattr(item, name)) for name in ("claim", "correct", "why")]
    fields += [(("reading", i), text) for i, text in enumerate(question.reading)]
    for i, drill in enumerate(question.drills):
        fields.append((("drills", i, "prompt"), drill.prompt))
        fields += [(("drills", i, "extra_mistakes", j, "label"), x.label) for j, x in enumerate(drill.extra_mistakes)]
    return fields


def text_fields(question: Question) -> list[tuple[tuple[PathItem, ...], str]]:
    """Every prose field that may hold `{{drill}}` references, each language separately, with its path
    (("answer", "en") for the English of a bilingual field; ("answer",) for a plain string)."""
    fields: list[tuple[tuple[PathItem, ...], str]] = []
    for path, value in localized_fields(question):
        if path[0] == "drills":
            continue  # prompts have {placeholders}, labels are plain text
        for lang, text in variants(value, question.lang):
            fields.append((path + ((lang,) if lang else ()), text))
    return fields


def _did_you_mean(word: str, choices: typing.Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def check_question(question: Question, index: NodeIndex, found: _FileProblems, calc: Calculator | None = None,
                   complete: bool = False, *, authoring: bool = True) -> None:
    """Add every semantic problem of `question` to `found`.

    complete: the bundled bank's rules on top (every text in both languages, key points on the
    question and every follow-up); a user's own question may be in one language, without points.
    """
    calc = calc or Calculator()

    def add(path: tuple[PathItem, ...], message: str, *, key: bool = False) -> None:
        found.add(*index.locate(path, key=key), path, message)

    if question.source_path is not None and question.source_path.stem != question.id:
        add(("id",), f"id {question.id!r} must match the file name {question.source_path.name!r} (expected {question.source_path.stem!r})")
    for group in ("followups", "mistakes", "drills"):
        seen: set[str] = set()
        for i, item in enumerate(getattr(question, group)):
            if item.id in seen:
                add((group, i, "id"), f"duplicate {group[:-1]} id {item.id!r} in this question")
            seen.add(item.id)
    for i, drill in enumerate(question.drills):
        _check_drill(drill, ("drills", i), index, found, calc, complete)
    _check_references(question, index, found, calc)
    _check_languages(question, index, found, complete)
    check_key_points(question, index, found, calc, complete, authoring)


def _setup_error_path(drill: Drill, base: tuple[PathItem, ...], field: str) -> tuple[tuple[PathItem, ...], bool]:
    if field in drill.setup:
        return base + ("setup", field), True
    if field in drill.vary:
        return base + ("vary", field), True
    return base + ("setup",), False


MIN_PLAUSIBLE_PARAMS = 1e6  # the smallest model a systems question means (GPT-2 small is 124M, a μP proxy 40M)


def _implausible_model(options: typing.Mapping[str, object], calc: Calculator) -> tuple[str, str] | None:
    """(field, message) when the setup's model has fewer than a million parameters: a size written
    without its unit (`model: 700` for 700M) or a shape typed wrong, never a model anyone serves."""
    if not {"model", "layers", "hidden"} & set(options):
        return None
    try:
        params = calc.value(options, "params")
    except (SetupError, ValueError):
        return None
    if params >= MIN_PLAUSIBLE_PARAMS:
        return None
    if "model" in options:
        return "model", (f"model: {options['model']!r} is {params:,.0f} parameters, implausible for a language model; "
                         "expected a size with its unit (7B, 700M) or a preset name")
    return "hidden", (f"hidden: this shape has {params:,.0f} parameters, implausible for a language model; "
                      "expected at least a million (check layers, hidden and vocab)")


def _check_drill(drill: Drill, base: tuple[PathItem, ...], index: NodeIndex, found: _FileProblems, calc: Calculator,
                 complete: bool = False) -> None:
    def add(path: tuple[PathItem, ...], message: str, *, key: bool = False) -> None:
        found.add(*index.locate(path, key=key), path, message)

    try:
        unit = unit_of(drill.unit)
    except QuantityError as exc:
        add(base + ("unit",), str(exc))
        unit = None
    if drill.ask not in ASKS:
        add(base + ("ask",), f"unknown ask {drill.ask!r}" + (_did_you_mean(drill.ask, ASKS) or f"; expected one of: {', '.join(ASKS)}"))
        ask_kind = None
    else:
        ask_kind = ASKS[drill.ask]
        per_param_bytes = drill.ask == "bytes_per_param" and drill.unit == "bytes"  # "16 bytes" reads well
        if unit is not None and not per_param_bytes and unit.kind not in _UNIT_KINDS_FOR_ASK.get(ask_kind, {ask_kind}):
            add(base + ("unit",), f"unit {drill.unit!r} is {unit.kind}, but {drill.ask!r} is {ask_kind}")
            unit = None
    tolerance = drill.parsed_tolerance
    if tolerance.kind == "absolute" and unit is not None:
        try:
            parse_quantity(tolerance.text, drill.unit)
        except QuantityError as exc:
            add(base + ("tolerance",), f"absolute tolerance in another kind of unit than the drill's: {exc}")

    _check_placeholders(drill, base, index, found)

    options = base_options(drill)
    try:
        calc.setup(options)
    except SetupError as exc:
        path, on_key = _setup_error_path(drill, base, exc.field)
        add(path, str(exc), key=on_key)
        return
    implausible = _implausible_model(options, calc)
    if implausible is not None:
        field, message = implausible
        path, on_key = _setup_error_path(drill, base, field)
        add(path, message, key=on_key)
    expected = None
    if ask_kind is not None:
        try:
            expected = calc.value(options, drill.ask)
        except SetupError as exc:
            add(base + ("ask",), f"the setup cannot produce {drill.ask!r}: {exc}")
    bad_choices = _check_single_choices(drill, base, options, ask_kind if expected is not None else None, add, calc)
    if not bad_choices:
        _check_combinations(drill, base, ask_kind if expected is not None else None, add, calc)
    if expected is None or unit is None:
        return
    accepted = check_conventions(drill, base, index, found, expected, complete, calc)
    for j, extra in enumerate(drill.extra_mistakes):
        where = base + ("extra_mistakes", j)
        if extra.value is not None:
            try:
                wrong = parse_quantity(str(extra.value), drill.unit).value
            except QuantityError as exc:
                add(where + ("value",), str(exc))
                continue
            value_path = where + ("value",)
        else:
            try:
                wrong = calc.value({**options, **(extra.setup or {})}, drill.ask)
            except SetupError as exc:
                field = exc.field if exc.field in (extra.setup or {}) else None
                add(where + ("setup",) + ((field,) if field else ()), str(exc), key=bool(field))
                continue
            value_path = where + ("setup",)
        if tolerance.within(wrong, expected):
            from quizapp.memory.quantities import format_quantity

            add(
                value_path,
                f"this mistake gives {format_quantity(wrong, drill.unit)}, within the drill's tolerance "
                f"({tolerance.text}) of the right answer {format_quantity(expected, drill.unit)}; "
                "the grader would mark it correct",
            )
            continue
        for name, under in accepted:
            if tolerance.within(wrong, under):
                from quizapp.memory.quantities import format_quantity

                add(value_path, f"this mistake gives {format_quantity(wrong, drill.unit)}, within the drill's tolerance "
                                f"({tolerance.text}) of the accepted {name} convention's "
                                f"{format_quantity(under, drill.unit)}; the grader would mark it correct as {name}")
                break


MAX_COMBINATIONS = 256  # beyond this many `vary` combinations, a deterministic sample is checked


def _check_single_choices(drill: Drill, base, options: dict, ask_kind, add, calc: Calculator) -> bool:
    """Each choice against the base setup, reported at the choice itself; True if any failed."""
    failed = False
    for field, choices in drill.vary.items():
        for j, choice in enumerate(choices):
            if choice == options[field] and type(choice) is type(options[field]):
                continue  # the base setup, checked above
            try:
                calc.setup({**options, field: choice})
                if ask_kind is not None:
                    calc.value({**options, field: choice}, drill.ask)
            except SetupError as exc:
                add(base + ("vary", field, j), f"choice {choice!r}: {exc}")
                failed = True
    return failed


def vary_combinations(vary: typing.Mapping[str, list], limit: int = MAX_COMBINATIONS) -> tuple[list[dict], bool]:
    """The `vary` choices the validator checks together: every combination (the cartesian product)
    when there are at most `limit`, otherwise a deterministic sample of `limit` of them (seeded, so
    every run checks the same ones); True in the second place when sampled. Single-field changes
    are checked separately, so they are always covered."""
    fields = sorted(vary)
    sizes = [len(vary[f]) for f in fields]
    total = math.prod(sizes)
    if total <= limit:
        return [dict(zip(fields, combo)) for combo in itertools.product(*(vary[f] for f in fields))], False
    picked = sorted(random.Random(0).sample(range(total), limit))
    combos = []
    for number in picked:  # mixed-radix digits of `number` pick one choice per field
        combo = {}
        for field, size in zip(reversed(fields), reversed(sizes)):
            number, digit = divmod(number, size)
            combo[field] = vary[field][digit]
        combos.append(dict(sorted(combo.items())))
    return combos, True


def _check_combinations(drill: Drill, base, ask_kind, add, calc: Calculator) -> None:
    """The `vary` choices together, as draw_variant draws them; the first failing combination is
    reported at the `vary` key of the field the calculator rejects, naming the whole combination."""
    if len(drill.vary) < 2:
        return  # one field: the single-choice check covered every variant
    combos, sampled = vary_combinations(drill.vary)
    failures: list[tuple[dict, SetupError]] = []
    for combo in combos:
        drawn = {**drill.setup, **combo}
        try:
            calc.setup(drawn)
            if ask_kind is not None:
                calc.value(drawn, drill.ask)
        except SetupError as exc:
            failures.append((combo, exc))
    if not failures:
        return
    combo, exc = failures[0]
    shown = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in combo.items())
    more = f" ({len(failures) - 1} more failing combination{'s' if len(failures) > 2 else ''})" if len(failures) > 1 else ""
    scope = f" of {len(combos)} sampled" if sampled else ""
    field = exc.field if exc.field in drill.vary else None
    path = base + ("vary", field) if field else base + ("vary",)
    add(path, f"the combination {shown}{scope} is rejected: {exc}{more}", key=True)


def prompt_placeholders(prompt: str) -> set[str]:
    """The {field} names of a prompt (ValueError for bad braces)."""
    return {name for _, name, _, _ in string.Formatter().parse(prompt) if name is not None}


def _check_placeholders(drill: Drill, base: tuple[PathItem, ...], index: NodeIndex, found: _FileProblems) -> None:
    for lang, prompt in variants(drill.prompt, "zh"):
        _check_prompt(drill, prompt, base + ("prompt",) + ((lang,) if lang else ()), index, found)


def _check_prompt(drill: Drill, prompt: str, path: tuple[PathItem, ...], index: NodeIndex, found: _FileProblems) -> None:
    try:
        parsed = list(string.Formatter().parse(prompt))
    except ValueError as exc:
        found.add(*index.locate(path), path, f"bad placeholder braces ({exc}); write {{{{ and }}}} for literal braces")
        return
    available = set(drill.setup) | set(drill.vary)
    seen: dict[str, int] = {}
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        needle = "{" + name
        occurrence = seen.get(needle, 0)
        seen[needle] = occurrence + 1
        if name not in available:
            hint = _did_you_mean(name, available)
            choices = ", ".join(sorted(available)) or "none"
            found.add(
                *index.find_in(path, needle, occurrence),
                path,
                f"placeholder {{{name}}} names no setup or vary field{hint} (available: {choices})",
            )
        elif spec or conversion:
            found.add(*index.find_in(path, needle, occurrence), path, f"placeholder {{{name}}}: format specs are not supported")


def _check_references(question: Question, index: NodeIndex, found: _FileProblems, calc: Calculator) -> None:
    drills = {d.id: d for d in question.drills}
    for path, text in text_fields(question):
        counts: dict[str, int] = {}
        for match in REFERENCE.finditer(text):
            literal = match.group(0)
            occurrence = counts.get(literal, 0)
            counts[literal] = occurrence + 1
            where = index.find_in(path, literal, occurrence)
            inner = match.group(1).strip()
            parts = re.fullmatch(r"([A-Za-z0-9_-]+)(?:\.([A-Za-z0-9_]+))?", inner)
            if parts is None:
                found.add(*where, path, f"malformed reference {literal}; write {{{{drill_id}}}} or {{{{drill_id.term}}}}")
                continue
            drill_id, term = parts.groups()
            drill = drills.get(drill_id)
            if drill is None:
                choices = ", ".join(drills) or "this question has no drills"
                found.add(*where, path, f"{literal} refers to no drill{_did_you_mean(drill_id, drills)} (drills: {choices})")
                continue
            if term is None:
                continue
            if term not in reference_terms():
                found.add(*where, path, f"{literal}: unknown term {term!r}{_did_you_mean(term, reference_terms())}")
                continue
            try:
                calc.value(base_options(drill), term)
            except SetupError as exc:
                found.add(*where, path, f"{literal}: the drill's setup cannot produce {term!r}: {exc}")
        starts = {m.start() for m in REFERENCE.finditer(text)}
        for ordinal, brace in enumerate(re.finditer(r"\{\{", text)):
            if brace.start() not in starts:
                found.add(*index.find_in(path, "{{", ordinal), path, "unclosed {{ (a reference is {{drill_id}})")


_LANG_NAMES = {"en": "English", "zh": "Chinese"}


def _check_languages(question: Question, index: NodeIndex, found: _FileProblems, complete: bool) -> None:
    """Both languages of a field say the same numbers: the same {{drill}} references (and, in a prompt,
    the same {placeholders}); in the bundled bank (`complete`) every field is written in both."""
    from quizapp.content.schema import LangText

    for path, value in localized_fields(question):
        if complete:
            have = languages_of(value, question.lang)
            missing = [lang for lang in ("en", "zh") if lang not in have]
            if missing:
                names = " and ".join(_LANG_NAMES[m] for m in missing)
                written = ", ".join(_LANG_NAMES[h] for h in sorted(have)) or "nothing"
                found.add(*index.locate(path), path, f"only {written} given; the bundled bank needs the {names} too "
                                                     "(write {en: ..., zh: ...})")
        if not isinstance(value, LangText) or value.en is None or value.zh is None:
            continue
        if path[0] == "drills" and path[-1] == "prompt":
            try:
                en, zh = prompt_placeholders(value.en), prompt_placeholders(value.zh)
            except ValueError:
                continue  # reported by the placeholder check
            kind = "placeholder"
            show = "{{{}}}"
        else:
            en = {m.group(1).strip() for m in REFERENCE.finditer(value.en)}
            zh = {m.group(1).strip() for m in REFERENCE.finditer(value.zh)}
            kind = "reference"
            show = "{{{{{}}}}}"
        for name in sorted(en - zh):
            found.add(*index.locate(path + ("zh",)), path + ("zh",),
                      f"{kind} {show.format(name)} is in the English but not in the Chinese; both must say the same numbers")
        for name in sorted(zh - en):
            found.add(*index.locate(path + ("en",)), path + ("en",),
                      f"{kind} {show.format(name)} is in the Chinese but not in the English; both must say the same numbers")


def check_key_points(question: Question, index: NodeIndex, found: _FileProblems, calc: Calculator,
                     complete: bool, authoring: bool = True) -> None:
    """Key points: ids, aliases that compile, numbers that name a drill; in the bundled bank
    (`complete`) their count, and that the standard answers cover them (docs/content.md)."""
    from quizapp.content.keypoints import FOLLOWUP_POINTS, QUESTION_POINTS, compiled

    groups = [(("key_points",), question.key_points, QUESTION_POINTS, None)]
    groups += [(("followups", i, "key_points"), f.key_points, FOLLOWUP_POINTS, f.id) for i, f in enumerate(question.followups)]
    drills = {d.id: d for d in question.drills}
    for base, points, (fewest, most), _ in groups:
        seen: set[str] = set()
        for i, point in enumerate(points):
            where = base + (i,)
            if point.id in seen:
                found.add(*index.locate(where + ("id",)), where + ("id",), f"duplicate key point id {point.id!r} here")
            seen.add(point.id)
            if point.match is not None and authoring:
                for lang in ("en", "zh"):
                    for j, pattern in enumerate(getattr(point.match, lang)):
                        try:
                            compiled(pattern)
                        except re.error as exc:
                            path = where + ("match", lang, j)
                            found.add(*index.locate(path), path, f"alias {pattern!r} is not a valid regular expression: {exc}")
            if point.number is not None:
                drill = drills.get(point.number.drill)
                path = where + ("number", "drill")
                if drill is None:
                    choices = ", ".join(drills) or "this question has no drills"
                    found.add(*index.locate(path), path, f"no drill {point.number.drill!r}"
                              f"{_did_you_mean(point.number.drill, drills)} (drills: {choices})")
                elif point.number.term is not None:
                    term_path = where + ("number", "term")
                    if point.number.term not in reference_terms():
                        found.add(*index.locate(term_path), term_path, f"unknown term {point.number.term!r}"
                                  f"{_did_you_mean(point.number.term, reference_terms())}")
                    else:
                        try:
                            calc.value(base_options(drill), point.number.term)
                        except SetupError as exc:
                            found.add(*index.locate(term_path), term_path, f"the drill's setup cannot produce "
                                      f"{point.number.term!r}: {exc}")
        if not complete and base == ("key_points",) and not points:
            found.warn(*index.locate(("answer",)), ("key_points",), "no key points: this question is self-rated "
                       "without a checklist (add key_points, docs/content.md)")
        if complete and not fewest <= len(points) <= most:
            what = "the question" if base == ("key_points",) else "a follow-up"
            found.add(*index.locate(base), base, f"{len(points)} key points; {what} of the bundled bank has "
                                                 f"{fewest}-{most} (what an interviewer listens for)")
    if complete and authoring and not found.errors():
        _check_coverage(question, index, found, groups)


def _check_coverage(question: Question, index: NodeIndex, found: _FileProblems, groups) -> None:
    """Each language's standard answer (and each follow-up's) covers >= 80 % of its points and every
    must-have one; a point that the answer does not reach is named."""
    from quizapp.content.drills import render_text
    from quizapp.content.keypoints import GOOD_COVERAGE, cover
    from quizapp.content.localize import localize

    for lang in ("en", "zh"):
        local = localize(question, lang)
        for base, points, _, followup_id in groups:
            if not points:
                continue
            if followup_id is None:
                text, where = local.answer, ("answer",)
            else:
                item = next(f for f in local.followups if f.id == followup_id)
                text, where = item.a, base[:2] + ("a",)
            result = cover(local, points, render_text(local, text))
            missed = [p for p in result.points if not p.covered]
            if result.fraction < GOOD_COVERAGE or not result.musts_covered:
                names = ", ".join(f"{p.id}{' (must)' if p.must else ''}" for p in missed)
                found.add(*index.locate(where + (lang,)), where + (lang,),
                          f"this answer covers {result.covered} of its {result.total} key points "
                          f"({result.fraction:.0%}; needs 80 % and every must-have point); not reached: {names}")
            elif missed:
                found.warn(*index.locate(where + (lang,)), where + (lang,), "no alias reaches key point(s) "
                           + ", ".join(p.id for p in missed) + " in this answer")


def check_conventions(drill: Drill, base: tuple[PathItem, ...], index: NodeIndex, found: _FileProblems,
                      expected: float, complete: bool = True, calc: Calculator | None = None
                      ) -> list[tuple[str, float]]:
    """Section 19's drill checks, for each convention the drill does not accept: one that moves the
    value beyond the tolerance while a prompt does not say which side it takes (a defensible answer
    would be marked wrong), and one whose value lies inside the tolerance but more than half of it
    away (the drill cannot teach the difference, and a candidate's rounding decides). A convention
    that moves the answer by less than half the tolerance is not reported: both answers pass, as an
    interviewer would let both pass. Errors in the bundled bank (`complete`), warnings in a user's own
    question (it still loads and grades by its prompt's convention). Returns the accepted
    conventions' values (the caller checks the drill's own mistakes against them)."""
    from quizapp.content.conventions import names_convention
    from quizapp.memory.conventions import CONVENTIONS, convention_options, relevant
    from quizapp.memory.quantities import format_quantity

    tolerance = drill.parsed_tolerance
    options = base_options(drill)
    report = found.add if complete else found.warn
    calc = calc or Calculator()

    def value_under(name: str, accepted: bool = False) -> float | None:
        changed = convention_options(options, name, accepted) if relevant(name, drill.ask) else None
        if changed is None:
            return None
        try:
            return float(calc.value(changed, drill.ask))  # remembered: a bank repeats its setups
        except (SetupError, ValueError, ZeroDivisionError):
            return None

    accepted_values: list[tuple[str, float]] = []
    for j, name in enumerate(drill.accept):
        under = value_under(name, accepted=True)
        if under is not None:
            accepted_values.append((name, under))
        else:
            report(*index.locate(base + ("accept", j)), base + ("accept", j),
                   f"the {name} convention changes nothing for this drill (its setup fixes that input, or the "
                   f"calculator cannot apply it here); remove it")
    for name in CONVENTIONS:
        if name in drill.accept:
            continue
        under = value_under(name)
        if under is None or abs(under - expected) <= 1e-9 * max(abs(expected), 1e-30):
            continue
        shown = format_quantity(under, drill.unit, 3)
        right = format_quantity(expected, drill.unit, 3)
        prompts = list(variants(drill.prompt, "zh"))
        if tolerance.within(under, expected):
            # Both readings pass. Harmless while the convention moves the answer little; past half the
            # band, whether a candidate under it passes depends on how they round: say so.
            if not tolerance.within(under, expected, scale=0.5):
                report(*index.locate(base + ("tolerance",) if "tolerance" in drill.model_fields_set else base), base,
                          f"under the {name} convention the answer is {shown}, inside this drill's tolerance "
                          f"({tolerance.text}) of {right} but more than half of it away: the drill cannot teach the "
                          f"difference; tighten the tolerance, change the setup or add `accept: [{name}]`")
            continue
        for lang, prompt in prompts:
            if not names_convention(prompt, name):
                where = base + ("prompt",) + ((lang,) if lang else ())
                report(*index.locate(where), where,
                          f"under the {name} convention the answer is {shown}, not {right}, and this prompt does not "
                          f"say which it takes: state it (e.g. {_CONVENTION_HINT[name]}) or add `accept: [{name}]`")
    return accepted_values


_CONVENTION_HINT = {
    "causal": "'count the full attention, no causal halving'",
    "6n": "'use 6N plus the attention term'",
    "fp32-grads": "'bf16 gradients, 16 bytes/param'",
    "no-embeddings": "'including the embeddings'",
    "line-rate": "'at an achieved 40 GB/s'",
}
