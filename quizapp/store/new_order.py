"""The order new cards are introduced in (setting `new_order`): `bank` (file order) or `mixed`.

Why not bank order: a question comes with its follow-ups and drills, siblings are buried (one card
of a question a day), so bank order shows one question card after another and reaches the numeric
drills after days. `mixed` teaches from day one. The rule (docs/database.md, "New cards"):

1. Within a question, its drills and its other cards (the question card, then its follow-ups) are
   interleaved in proportion (Bresenham style): card j of a group of m sits at (j + offset) / m,
   the opening group at offset 0, the other at 1/2. Taking the questions by their first card's
   rank (below), two in three open with a drill and every third with its question card, so one
   day's cards mix kinds.
2. Across questions, the card at position i of a question with n cards gets the rank (i + φ) / n,
   φ in [0, 1) taken from the question id: every question's cards are spread evenly over the time
   the bank takes to introduce, so a question with many cards comes up more often (with 25 cards in
   a bank of 220, about every day; with 5, every few days) and the questions of every topic
   alternate. Sibling burying still allows one card of a question a day.

Everything comes from the card ids (a CRC-32, no random generator): the same bank gives the same
order on every machine, and adding a question moves no other question's cards in the order (it may
change which kind opens a question further on).
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import NamedTuple

BANK = "bank"
MIXED = "mixed"


class OrderCard(NamedTuple):
    """What the order needs of a card (the card table's columns of the same names)."""

    card_id: str
    question_id: str
    kind: str
    bank_order: int


def _unit(text: str) -> float:
    """A number in [0, 1) that only depends on `text` (stable across runs and machines)."""
    return zlib.crc32(text.encode("utf-8")) / 2**32


def question_sequence(cards: Iterable[OrderCard], drill_first: bool = True) -> list[OrderCard]:
    """One question's cards in teaching order: drills interleaved with the question card and follow-ups.

    drill_first: the question opens with a drill (else with its question card).
    """
    cards = sorted(cards, key=lambda c: (c.bank_order, c.card_id))
    drills = [c for c in cards if c.kind == "drill"]
    others = [c for c in cards if c.kind != "drill"]
    others.sort(key=lambda c: (c.kind != "question", c.bank_order, c.card_id))  # the question card first
    drill_first = drill_first and bool(drills) or not others
    placed = []
    for group, leads in ((drills, drill_first), (others, not drill_first)):
        m = len(group)
        placed += [((j + (0.0 if leads else 0.5)) / m, not leads, j, card) for j, card in enumerate(group)]
    placed.sort(key=lambda t: t[:3])
    return [card for *_, card in placed]


def mixed_ranks(cards: Iterable[OrderCard]) -> Mapping[str, tuple[float, str]]:
    """card_id -> its sort key in the `mixed` order (smaller first), for every card given.

    Give every card of the bank (reviewed ones too): a question's position i counts its whole
    sequence, so a card's rank never changes when its siblings are answered.
    """
    by_question: dict[str, list[OrderCard]] = defaultdict(list)
    for card in cards:
        by_question[card.question_id].append(card)
    phase = {qid: _unit(qid) for qid in by_question}
    # Questions by their first card's rank; two in three open with a drill, the third with its question
    # card, so every stretch of the order (a day) mixes drills with questions (and, later, follow-ups).
    by_first = sorted(by_question, key=lambda qid: (phase[qid] / len(by_question[qid]), qid))
    ranks: dict[str, tuple[float, str]] = {}
    for position, question_id in enumerate(by_first):
        sequence = question_sequence(by_question[question_id], drill_first=position % 3 != 2)
        n = len(sequence)
        for i, card in enumerate(sequence):
            ranks[card.card_id] = ((i + phase[question_id]) / n, card.card_id)
    return ranks
