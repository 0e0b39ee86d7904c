"""What a card id names in the bank: the question, and the follow-up or drill (pure lookups, no Textual)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quizapp.vocab import CardId, CardKind

if TYPE_CHECKING:
    from quizapp.content import Bank, Question
    from quizapp.memory import Breakdown, Fit


@dataclass(frozen=True)
class CardContent:
    """A card resolved against the bank: the question and, for follow-ups and drills, the item."""

    card_id: str
    question: Question
    kind: CardKind
    item_id: str
    followup: Any | None = None  # content.Followup
    drill: Any | None = None  # content.Drill

    @property
    def item(self) -> Any | None:
        """The follow-up or drill this card asks (None for the question itself)."""
        return self.followup if self.kind is CardKind.FOLLOWUP else self.drill


def resolve_card(bank: Bank, card_id: str) -> CardContent | None:
    """The content behind `card_id`, or None when the bank no longer has it (an orphan)."""
    try:
        parsed = CardId.parse(card_id)
    except ValueError:
        return None
    question = bank.question(parsed.question_id)
    if question is None:
        return None
    kind, item_id = parsed.kind, parsed.item_id
    if kind is CardKind.QUESTION:
        return CardContent(card_id, question, kind, item_id)
    if kind is CardKind.FOLLOWUP:
        item = next((f for f in question.followups if f.id == item_id), None)
        return None if item is None else CardContent(card_id, question, kind, item_id, followup=item)
    item = next((d for d in question.drills if d.id == item_id), None)
    return None if item is None else CardContent(card_id, question, kind, item_id, drill=item)


def safe_render(question: Question, text: str | None) -> str:
    """One prose field as every view shows it (quizapp.content.render.render_prose: {{drill}} filled in,
    Chinese line breaks joined, numbers kept with their units); never raises."""
    if not text:
        return ""
    from quizapp.content.render import render_prose

    return render_prose(question, text)


def gpu_fit(breakdown: Breakdown) -> Fit | None:
    """Whether the breakdown fits on the GPU its setup names (None when it names none)."""
    from quizapp.memory import fit

    setup = getattr(breakdown, "setup", None)  # a derived ask's worked solution has no memory to fit
    if setup is None or setup.gpu is None:
        return None
    try:
        return fit(breakdown, setup.gpu, setup.reserve)
    except ValueError:  # a fit the calculator cannot compute is simply not shown
        return None


def drill_breakdown(drill: Any) -> tuple[Breakdown | None, str | None]:
    """The breakdown of a drill's base setup (as written, before `vary`), or the calculator's error."""
    from quizapp.content.drills import base_options
    from quizapp.memory import breakdown, setup_from_options

    from quizapp.content.solution import base_solution

    try:
        setup = setup_from_options(base_options(drill))
        solved = base_solution(drill, setup)  # an ask no memory term explains: its derivation's rows
        return (solved if solved is not None else breakdown(setup)), None
    except ValueError as exc:  # SetupError, QuantityError: shown as one line
        return None, str(exc)


def card_labels(bank: Bank) -> dict[str, str]:
    """card_id -> the one line a card list shows: the question's title, a follow-up's question or a
    drill's prompt (filled from its base setup), rendered like review shows them and folded to one line."""
    from quizapp.content.drills import base_options, fill_prompt
    from quizapp.content.localize import shown

    labels: dict[str, str] = {}
    for q in map(shown, bank.questions):  # a bank as loaded: each question in its own language
        labels[CardId.question(q.id).format()] = safe_render(q, q.title)
        for f in q.followups:
            labels[CardId(q.id, CardKind.FOLLOWUP, f.id).format()] = safe_render(q, f.q)
        for d in q.drills:
            labels[CardId(q.id, CardKind.DRILL, d.id).format()] = safe_render(q, fill_prompt(d.prompt, base_options(d)))
    return {k: " ".join(v.split()) for k, v in labels.items()}
