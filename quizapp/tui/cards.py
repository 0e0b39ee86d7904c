"""What the review screens show for a card id: the question, the follow-up or drill it names.

Pure lookups over a Bank (no Textual), so the screens stay thin and this is unit-testable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quizapp.content import Bank, Question
    from quizapp.memory import Breakdown, Fit


@dataclass(frozen=True)
class CardContent:
    """A card resolved against the bank: the question and, for follow-ups and drills, the item."""

    card_id: str
    question: Question
    kind: str  # "question" | "followup" | "drill"
    item_id: str
    followup: Any | None = None  # content.Followup
    drill: Any | None = None  # content.Drill


def split_card_id(card_id: str) -> tuple[str, str, str]:
    """`question_id/kind/item_id` -> its three parts (ids themselves never contain "/")."""
    question_id, kind, item_id = card_id.rsplit("/", 2)
    return question_id, kind, item_id


def resolve_card(bank: Bank, card_id: str) -> CardContent | None:
    """The content behind `card_id`, or None when the bank no longer has it (an orphan)."""
    try:
        question_id, kind, item_id = split_card_id(card_id)
    except ValueError:
        return None
    question = bank.question(question_id)
    if question is None:
        return None
    if kind == "question":
        return CardContent(card_id, question, kind, item_id)
    if kind == "followup":
        item = next((f for f in question.followups if f.id == item_id), None)
        return None if item is None else CardContent(card_id, question, kind, item_id, followup=item)
    if kind == "drill":
        item = next((d for d in question.drills if d.id == item_id), None)
        return None if item is None else CardContent(card_id, question, kind, item_id, drill=item)
    return None


def safe_render(question: Question, text: str | None) -> str:
    """`render_text` ({{drill}} substitution) that never raises: on failure the text as written."""
    if not text:
        return ""
    try:
        from quizapp.content import render_text

        return render_text(question, text)
    except Exception:  # noqa: BLE001 - a bad placeholder must not crash review; validate reports it
        return text


def gpu_fit(breakdown: Breakdown) -> Fit | None:
    """Whether the breakdown fits on the GPU its setup names (None when it names none)."""
    from quizapp.memory import GPUS, fit

    gpu = getattr(breakdown.setup, "gpu", None)
    if isinstance(gpu, str):
        gpu = GPUS.get(gpu)
    if gpu is None or not hasattr(gpu, "capacity"):
        return None
    reserve = getattr(breakdown.setup, "reserve", None)
    try:
        return fit(breakdown, gpu) if reserve is None else fit(breakdown, gpu, reserve)
    except Exception:  # noqa: BLE001 - a fit we cannot compute is simply not shown
        return None


def drill_breakdown(drill: Any) -> tuple[Breakdown | None, str | None]:
    """The breakdown of a drill's base setup (as written, before `vary`), or the calculator's error."""
    from quizapp.content.drills import base_options
    from quizapp.memory import breakdown, setup_from_options

    try:
        return breakdown(setup_from_options(base_options(drill))), None
    except Exception as exc:  # noqa: BLE001 - SetupError and friends, shown as one line
        return None, str(exc)
