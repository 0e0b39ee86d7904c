"""A bilingual question in one language: every {en, zh} text field becomes the plain string of that
language, so every view (review, mock, Browse, show, export) reads `question.answer` as text.

A field written in one language only (a user's own file) is shown in the other, never blank; its
path is listed in `Question.fallback` so a view can say so. A plain string is in the question's
`lang`. The localized question's `lang` is the language its text is in (the requested one unless
the title itself fell back), which is what typesetting uses.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pydantic is imported only once a question is built: a cached bank's Home needs none
    from quizapp.content.schema import Question

LANGS = ("en", "zh")
_OTHER = {"en": "zh", "zh": "en"}


def _is_lang_text(value: object) -> bool:
    from quizapp.content.schema import LangText

    return isinstance(value, LangText)


def text_in(value: object, lang: str, written_in: str) -> tuple[str | None, bool]:
    """(the text of `value` in `lang`, whether it came from the other language)."""
    if value is None:
        return None, False
    if _is_lang_text(value):
        own = value.get(lang)
        if own is not None:
            return own, False
        return value.get(_OTHER[lang]), True
    return str(value), written_in != lang


def languages_of(value: object, written_in: str) -> set[str]:
    """Which languages a text field is written in."""
    if value is None:
        return set()
    if _is_lang_text(value):
        return {lang for lang in LANGS if value.get(lang) is not None}
    return {written_in}


def variants(value: object, written_in: str) -> Iterator[tuple[str | None, str]]:
    """(language key or None for a plain string, text) of every language a field is written in."""
    if _is_lang_text(value):
        for lang in LANGS:
            text = value.get(lang)
            if text is not None:
                yield lang, text
    elif value is not None:
        yield None, str(value)


def localize(question: Question, lang: str) -> Question:
    """`question` with every text field in `lang` (see the module docstring); never raises."""
    if lang not in LANGS:
        lang = "en"
    written_in = question.lang
    fallback: list[str] = []

    def pick(value: object, where: str) -> str | None:
        text, other = text_in(value, lang, written_in)
        if other:
            fallback.append(where)
        return text

    def local_points(points, base: str) -> list:
        return [p.model_copy(update={"text": pick(p.text, f"{base}key_points[{i}].text")}) for i, p in enumerate(points)]

    update: dict[str, Any] = {name: pick(getattr(question, name), name)
                              for name in ("title", "intent", "answer", "template", "resume")}
    update["key_points"] = local_points(question.key_points, "")
    update["reading"] = [pick(text, f"reading[{i}]") for i, text in enumerate(question.reading)]
    update["followups"] = [
        f.model_copy(update={"q": pick(f.q, f"followups[{i}].q"), "a": pick(f.a, f"followups[{i}].a"),
                             "key_points": local_points(f.key_points, f"followups[{i}].")})
        for i, f in enumerate(question.followups)
    ]
    update["mistakes"] = [
        m.model_copy(update={name: pick(getattr(m, name), f"mistakes[{i}].{name}") for name in ("wrong", "right", "why")})
        for i, m in enumerate(question.mistakes)
    ]
    update["errata"] = [
        e.model_copy(update={name: pick(getattr(e, name), f"errata[{i}].{name}") for name in ("claim", "correct", "why")})
        for i, e in enumerate(question.errata)
    ]
    update["drills"] = [
        d.model_copy(update={
            "prompt": pick(d.prompt, f"drills[{i}].prompt"),
            "extra_mistakes": [x.model_copy(update={"label": pick(x.label, f"drills[{i}].extra_mistakes[{j}].label")})
                               for j, x in enumerate(d.extra_mistakes)],
        })
        for i, d in enumerate(question.drills)
    ]
    shown_in = lang if "title" not in fallback else _OTHER[lang]
    update["lang"] = shown_in
    update["fallback"] = tuple(fallback)
    return question.model_copy(update=update)


class LocalizedBank:
    """A bank (Bank or CachedBank) whose questions are shown in one language; cards, topics and
    problems are the source's (they do not depend on the language)."""

    def __init__(self, source: Any, lang: str) -> None:
        self.source = source
        self.lang = lang
        self._questions: tuple[Question, ...] | None = None
        self._by_id: dict[str, Question] = {}

    @property
    def questions(self) -> tuple[Question, ...]:
        if self._questions is None:
            self._questions = tuple(self._local(q) for q in self.source.questions)
        return self._questions

    def _local(self, question: Question) -> Question:
        if question.id not in self._by_id:
            self._by_id[question.id] = localize(question, self.lang)
        return self._by_id[question.id]

    @property
    def problems(self):
        return self.source.problems

    @property
    def overridden(self) -> tuple[str, ...]:
        return self.source.overridden

    @property
    def warnings(self):
        return getattr(self.source, "warnings", ())

    def question(self, question_id: str) -> Question | None:
        if question_id in self._by_id:
            return self._by_id[question_id]
        found = self.source.question(question_id)
        return None if found is None else self._local(found)

    def topics(self) -> list[str]:
        return self.source.topics()

    def cards(self):
        return self.source.cards()


def localized(bank: Any, lang: str) -> LocalizedBank:
    """The bank shown in `lang` (a LocalizedBank is re-pointed at its source, never wrapped twice)."""
    if isinstance(bank, LocalizedBank):
        return bank if lang == bank.lang else LocalizedBank(bank.source, lang)
    return LocalizedBank(bank, lang)


def is_bilingual(question: Question) -> bool:
    """Whether `question` still has {en, zh} fields (as loaded, not yet localized)."""
    fields = (question.title, question.answer, question.intent, question.template, question.resume)
    return (any(map(_is_lang_text, fields))
            or any(_is_lang_text(d.prompt) for d in question.drills)
            or any(_is_lang_text(f.a) or _is_lang_text(f.q) for f in question.followups)
            or any(_is_lang_text(p.text) for p in question.key_points)
            or any(map(_is_lang_text, question.reading))
            or any(_is_lang_text(getattr(m, n)) for m in question.mistakes for n in ("wrong", "right", "why"))
            or any(_is_lang_text(getattr(e, n)) for e in question.errata for n in ("claim", "correct", "why"))
            or any(_is_lang_text(x.label) for d in question.drills for x in d.extra_mistakes))


def shown(question: Question) -> Question:
    """A question ready to show: localized already, or (as loaded) in its own `lang`."""
    return localize(question, question.lang) if is_bilingual(question) else question
