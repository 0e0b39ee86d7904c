"""A question as the reader sees it: every prose field with its `{{drill}}` references filled in and
its typography fixed, in one place that every view uses (review tabs, preview, mock, debrief,
`quizapp show`), so no view can forget a field and show a raw `{{...}}`.

Typography, for Chinese text written in YAML:
- a line break or a single space between two CJK characters (a folded YAML line, or a soft line
  break in a Markdown paragraph) is removed: "计算，\\n从不把" reads "计算，从不把", not "计算， 从不把";
- in Chinese text (a question whose `lang` is zh), a number and its unit are written together
  ("112.00 GB" -> "112.00GB", "30 %" -> "30%", "150 tokens/s" -> "150tokens/s", as Chinese typesetting
  usually writes them), so no line break can fall between them; English text keeps its spaces. A no-break space
  (U+00A0) would not do: Textual's wrapper breaks at any whitespace, U+00A0 included.
Fenced code blocks and inline code are left exactly as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from quizapp.content.drills import base_options, fill_prompt, reference_value, render_text
from quizapp.content.schema import Question

_CJK = "\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
# A break between two CJK characters, emphasis marks (**, _, ~~) allowed on either side of it.
_CJK_BREAK = re.compile(f"([{_CJK}][*_~]*)(?:[ \\t]*\\n[ \\t]*|[ \\t])(?=[*_~]*[{_CJK}])")
# Longest first, so "GB/s" is not read as "GB" followed by "/s".
_UNITS = ("EFLOPs", "PFLOPs", "TFLOPs", "GFLOPs", "MFLOPs", "EFLOP", "PFLOP", "TFLOP", "GFLOP", "FLOPs",
                 "FLOP", "TB/s", "GB/s", "MB/s", "TiB", "GiB", "MiB", "KiB", "bytes", "TB", "GB", "MB", "KB",
                 "min", "ms", "us", "μs", "万亿", "万", "亿", "%", "s", "h", "K", "M", "B", "T",
                 "tokens/s", "tok/s", "tokens", "GPUs", "GPU", "params")
_NUMBER = r"(?<![A-Za-z0-9_.,])(\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][+-]?\d+)?)"
_AFTER = r"(?![A-Za-z0-9_/])"
_UNIT_JOIN = re.compile(_NUMBER + r"[ \u00a0]+(" + "|".join(map(re.escape, sorted(_UNITS, key=len, reverse=True)))
                        + ")" + _AFTER)
_CODE = re.compile(r"(```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`)", re.S)


def typeset(text: str | None, lang: str = "zh") -> str:
    """Join CJK line breaks, and in Chinese numbers with their units (see the module docstring); code is
    untouched."""
    if not text:
        return text or ""
    parts = _CODE.split(text)
    for i in range(0, len(parts), 2):  # even parts are prose, odd ones code
        prose = _CJK_BREAK.sub(r"\1", parts[i])
        parts[i] = _UNIT_JOIN.sub(r"\1\2", prose) if lang == "zh" else prose
    return "".join(parts)


def render_prose(question: Question, text: str | None) -> str:
    """One prose field as shown: `{{drill}}` references filled in, then typeset. Never raises."""
    try:
        return typeset(render_text(question, text), question.lang)
    except Exception:  # noqa: BLE001 - a view must never crash on a field; validate reports the cause
        return text or ""


@dataclass(frozen=True)
class RenderedFollowup:
    id: str
    q: str
    a: str


@dataclass(frozen=True)
class RenderedMistake:
    id: str
    wrong: str
    right: str
    why: str


@dataclass(frozen=True)
class RenderedErratum:
    claim: str
    correct: str
    why: str


@dataclass(frozen=True)
class RenderedDrill:
    """A drill on its base setup (first `vary` choices): the prompt filled, the answer the calculator gives."""

    id: str
    prompt: str
    ask: str
    unit: str
    tolerance: str
    expected: str  # e.g. "112.00 GB"; "" when the setup cannot be computed (a file that failed validation)
    varies: tuple[str, ...]  # the setup fields a review draws afresh


@dataclass(frozen=True)
class RenderedQuestion:
    """Every field of a question as the reader sees it (Markdown text, never raw `{{...}}`)."""

    id: str
    title: str
    topic: str
    lang: str
    difficulty: int
    points: tuple[str, ...]
    tags: tuple[str, ...]
    intent: str
    answer: str
    template: str
    followups: tuple[RenderedFollowup, ...]
    mistakes: tuple[RenderedMistake, ...]
    resume: str
    reading: tuple[str, ...]
    errata: tuple[RenderedErratum, ...]
    drills: tuple[RenderedDrill, ...]
    fallback: tuple[str, ...] = ()  # fields shown in the other language (quizapp.content.localize)

    def followup(self, followup_id: str) -> RenderedFollowup | None:
        return next((f for f in self.followups if f.id == followup_id), None)

    def drill(self, drill_id: str) -> RenderedDrill | None:
        return next((d for d in self.drills if d.id == drill_id), None)


def _drill(question: Question, drill) -> RenderedDrill:
    try:
        prompt = fill_prompt(drill.prompt, base_options(drill))
    except (KeyError, IndexError, ValueError):
        prompt = drill.prompt
    try:
        expected = reference_value(question, drill.id, None)
    except Exception:  # noqa: BLE001 - SetupError and friends: shown without a value
        expected = ""
    return RenderedDrill(drill.id, typeset(prompt, question.lang), drill.ask, drill.unit, drill.tolerance, expected,
                         tuple(sorted(drill.vary)))


def render_question(question: Question) -> RenderedQuestion:
    """The whole question rendered: what review, preview, mock, debrief and `quizapp show` display."""
    from quizapp.content.localize import shown

    question = shown(question)

    def r(text: str | None) -> str:
        return render_prose(question, text)

    return RenderedQuestion(
        id=question.id,
        title=r(question.title),
        topic=question.topic,
        lang=question.lang,
        difficulty=question.difficulty,
        points=tuple(r(p) for p in question.points),
        tags=tuple(question.tags),
        intent=r(question.intent),
        answer=r(question.answer),
        template=r(question.template),
        followups=tuple(RenderedFollowup(f.id, r(f.q), r(f.a)) for f in question.followups),
        mistakes=tuple(RenderedMistake(m.id, r(m.wrong), r(m.right), r(m.why)) for m in question.mistakes),
        resume=r(question.resume),
        reading=tuple(r(text) for text in question.reading),
        errata=tuple(RenderedErratum(r(e.claim), r(e.correct), r(e.why)) for e in question.errata),
        drills=tuple(_drill(question, d) for d in question.drills),
        fallback=tuple(question.fallback),
    )
