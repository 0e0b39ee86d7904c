"""The question file format as pydantic models: one schema for the loader, the validator and editors.

`quizapp schema` prints `question_json_schema()` for yaml-language-server. Structural rules (types,
required fields, unknown keys) live here; rules that need the calculator or the whole file (setups,
asks, placeholders, `{{...}}` references) live in `validate.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SLUG = r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$"
Slug = Annotated[str, Field(pattern=SLUG, description="a stable slug: lower-case letters, digits, - or _")]
Text = Annotated[str, Field(min_length=1)]
Scalar = Union[str, int, float, bool]
# A setup value: a scalar, or a list of integers (a GEMM's `shape: [m, n, k]`, `doc_lengths`) or of integer
# lists (an elementwise `chain: [[1, 1], [2, 1]]`), kept as tuples so a setup stays hashable.
SetupValue = Union[Scalar, tuple[int, ...], tuple[tuple[int, ...], ...]]

Convention = Literal["causal", "6n", "fp32-grads", "no-embeddings", "line-rate"]  # quizapp.memory.conventions
DEFAULT_TOLERANCE = "10%"
MAX_DRILLS = 100  # drills in one question (docs/content.md, "Limits"); the loader checks it first


LANGS = ("en", "zh")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)


class LangText(_Strict):
    """One text in English and Chinese, side by side; a user's own file may give only one."""

    en: Text | None = Field(default=None, description="the English text")
    zh: Text | None = Field(default=None, description="the Chinese text")

    @model_validator(mode="after")
    def _one_at_least(self) -> LangText:
        if self.en is None and self.zh is None:
            raise ValueError("give the text in at least one language: en or zh")
        return self

    def get(self, lang: str) -> str | None:
        return self.en if lang == "en" else self.zh


# A text field: {en: ..., zh: ...}, or a plain string written in the question's `lang` (a user's
# single-language file). `quizapp.content.localize` turns every one into a plain string.
Localized = Union[Text, LangText]
OptionalLocalized = Union[str, LangText, None]


class PointMatch(_Strict):
    """What covers a key point: regular expressions searched in the normalised answer text, in either
    language whatever the UI language is (quizapp.content.keypoints)."""

    en: list[str] = Field(default_factory=list, description="regexes, lower case, on NFKC-normalised text")
    zh: list[str] = Field(default_factory=list, description="regexes, lower case, on NFKC-normalised text")

    def patterns(self) -> list[str]:
        return [*self.en, *self.zh]


class PointNumber(_Strict):
    """A quantity the answer must state: within the drill's tolerance of its default value."""

    drill: Slug = Field(description="the drill whose default value ({{drill}}) must appear")
    term: str | None = Field(default=None, description="a term of the drill's setup ({{drill.term}}) instead of its ask")


class KeyPoint(_Strict):
    """What an interviewer listens for in a spoken answer: one line, and what counts as covering it."""

    id: Slug
    text: Localized = Field(description="the point, one line (what a strong answer must contain)")
    must: bool = Field(default=False, description="leaving it out fails the answer")
    match: PointMatch | None = Field(default=None, description="aliases that cover the point")
    number: PointNumber | None = Field(default=None, description="a quantity the answer must state")

    @model_validator(mode="after")
    def _coverable(self) -> KeyPoint:
        if self.match is None and self.number is None:
            raise ValueError("give `match` (aliases) or `number` (a drill value), or both: otherwise nothing covers this point")
        if self.match is not None and not self.match.patterns():
            raise ValueError("`match` lists no alias; give at least one in en or zh")
        return self


class Followup(_Strict):
    """A follow-up question the interviewer asks after the main answer."""

    id: Slug
    q: Localized = Field(description="the follow-up question")
    a: Localized = Field(description="its answer (Markdown; may use {{drill}} references)")
    key_points: list[KeyPoint] = Field(default_factory=list, description="2-4 points its answer must cover")


class CommonMistake(_Strict):
    """A common wrong belief, its correction and why."""

    id: Slug
    wrong: Localized
    right: Localized
    why: Localized


class Erratum(_Strict):
    """Where a source's numbers disagree with the calculator: the claim, the right value, why."""

    claim: Localized
    correct: Localized
    why: Localized


class ExtraMistake(_Strict):
    """A drill-specific wrong answer the grader should name: a fixed value or setup overrides."""

    label: Localized = Field(description="what the learner got wrong, shown when the answer matches")
    value: Scalar | None = Field(default=None, description="the wrong answer, e.g. '120 GB' (unitless: the drill's unit)")
    setup: dict[str, SetupValue] | None = Field(default=None, description="overrides of the drill's setup that produce the wrong answer")

    @model_validator(mode="after")
    def _one_source(self) -> ExtraMistake:
        if (self.value is None) == (self.setup is None):
            raise ValueError("give exactly one of `value` or `setup`")
        return self


@dataclass(frozen=True)
class Tolerance:
    """How far from the right answer still counts as correct."""

    kind: Literal["relative", "absolute", "factor"]
    amount: float  # relative: fraction (0.1); absolute: base units; factor: ratio > 1
    text: str

    def within(self, value: float, target: float, scale: float = 1.0) -> bool:
        """True if `value` is within `scale` times this tolerance of `target`."""
        if self.kind == "relative":
            return abs(value - target) <= self.amount * scale * abs(target) + 1e-12 * abs(target)
        if self.kind == "absolute":
            return abs(value - target) <= self.amount * scale
        if value <= 0 or target <= 0:
            return value == target
        ratio = max(value / target, target / value)
        return ratio <= self.amount**scale * (1 + 1e-12)


def parse_tolerance(text: str | float | int) -> Tolerance:
    """Read "10%" (relative), "0.5 GB" (absolute) or "x2" (a factor); ValueError says what is wrong."""
    from quizapp.memory.quantities import QuantityError, parse_quantity

    raw = str(text).strip()
    if isinstance(text, bool) or not isinstance(text, str):
        raise ValueError(f"expected '10%' (relative), '0.5 GB' (absolute) or 'x2' (factor), got {raw!r}")
    factor = re.fullmatch(r"[x×]\s*([0-9]+(?:\.[0-9]+)?)", raw)
    if factor:
        amount = float(factor.group(1))
        if amount <= 1:
            raise ValueError(f"a factor tolerance must be above 1, got {raw!r}")
        return Tolerance("factor", amount, raw)
    percent = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)\s*%", raw)
    if percent:
        amount = float(percent.group(1)) / 100
        if not 0 < amount < 1:
            raise ValueError(f"a relative tolerance must be between 0% and 100%, got {raw!r}")
        return Tolerance("relative", amount, raw)
    try:
        quantity = parse_quantity(raw, None)
    except QuantityError as exc:
        raise ValueError(f"expected '10%' (relative), '0.5 GB' (absolute) or 'x2' (factor): {exc}") from None
    if quantity.kind == "ratio":
        raise ValueError(f"write a relative tolerance as '10%', got {raw!r}")
    if quantity.value <= 0:
        raise ValueError(f"an absolute tolerance must be above zero, got {raw!r}")
    return Tolerance("absolute", quantity.value, raw)


class Drill(_Strict):
    """A numeric question graded by the calculator."""

    id: Slug
    prompt: Localized = Field(description="the question; {field} placeholders are filled from the (drawn) setup")
    setup: dict[str, SetupValue] = Field(description="calculator inputs, the same names as `quizapp calc` flags (underscored)")
    ask: str = Field(description="the asked quantity: a term (weights, kv_cache, ...), model_states, total, params, max_batch, step_time, ...")
    unit: str = Field(description="display and answer unit: GB GiB MB TB bytes | params K M B 万 亿 | s ms min h d | % | x")
    tolerance: str = Field(default=DEFAULT_TOLERANCE, description="'10%' relative (default), '0.5 GB' absolute, or 'x2' factor")
    vary: dict[str, list[SetupValue]] = Field(default_factory=dict, description="setup field -> choices; a fresh variant is drawn each time")
    extra_mistakes: list[ExtraMistake] = Field(default_factory=list)
    accept: list[Convention] = Field(default_factory=list, description="conventions an interviewer accepts besides the "
                                     "prompt's: causal, 6n, fp32-grads, no-embeddings, line-rate (memory-model.md section 19)")

    @field_validator("tolerance", mode="before")
    @classmethod
    def _readable_tolerance(cls, value: object) -> object:
        parse_tolerance(value)  # type: ignore[arg-type]
        return value

    @field_validator("vary")
    @classmethod
    def _non_empty_choices(cls, value: dict[str, list[SetupValue]]) -> dict[str, list[SetupValue]]:
        for name, choices in value.items():
            if not choices:
                raise ValueError(f"vary.{name} has no choices")
        return value

    @property
    def parsed_tolerance(self) -> Tolerance:
        return parse_tolerance(self.tolerance)


class Question(_Strict):
    """One interview question: the card's sections, follow-ups, common mistakes and numeric drills."""

    id: Slug = Field(description="stable slug (the file name); review history hangs on it")
    title: Localized
    topic: Slug
    points: list[str] = Field(default_factory=list, description="考点: what the question examines")
    tags: list[str] = Field(default_factory=list)
    difficulty: int = Field(default=3, ge=1, le=5)
    lang: str = Field(default="zh", description="the language of plain-string text fields (zh or en); "
                                               "{en: ..., zh: ...} fields say theirs")
    intent: OptionalLocalized = Field(default=None, description="考察意图 / what the interviewer is after (Markdown)")
    answer: Localized = Field(description="标准答 / the standard answer (Markdown); numbers the calculator computes "
                                          "are written {{drill}} or {{drill.term}}")
    template: OptionalLocalized = Field(default=None, description="答题模板: the 30-second version")
    key_points: list[KeyPoint] = Field(default_factory=list, description="3-7 points a strong answer must cover")
    followups: list[Followup] = Field(default_factory=list)
    mistakes: list[CommonMistake] = Field(default_factory=list)
    resume: OptionalLocalized = Field(default=None, description="简历呼应 / tying it to your own projects")
    reading: list[Localized] = Field(default_factory=list)
    errata: list[Erratum] = Field(default_factory=list)
    drills: list[Drill] = Field(default_factory=list, max_length=MAX_DRILLS,
                                description=f"at most {MAX_DRILLS} drills (the loader reports more at the list)")
    source_path: Path | None = Field(default=None, exclude=True, repr=False)
    # Set by localize(): the paths of text fields shown in the other language (none was written in this one).
    fallback: tuple[str, ...] = Field(default=(), exclude=True, repr=False)

    @field_validator("lang")
    @classmethod
    def _known_lang(cls, value: str) -> str:
        if value not in ("zh", "en"):
            raise ValueError(f"expected 'zh' or 'en', got {value!r}")
        return value

    def drill(self, drill_id: str) -> Drill | None:
        return next((d for d in self.drills if d.id == drill_id), None)


def question_json_schema() -> dict:
    """JSON Schema of a question file, for editors (source_path is the loader's, not the author's)."""
    schema = Question.model_json_schema(mode="validation")
    schema["properties"].pop("source_path", None)
    schema["properties"].pop("fallback", None)
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema, "title": "quizapp question"}
    return schema
