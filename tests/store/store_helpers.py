"""Helpers for the store tests: card specs as plain dataclasses (the store reads only their attributes)."""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Spec:
    """Stands in for quizapp.content.CardSpec."""

    card_id: str
    question_id: str
    kind: str
    item_id: str
    topic: str
    order: int


def bank(questions: int, followups: int = 1, drills: int = 0, topic: str = "t", start: int = 0) -> list[Spec]:
    """`questions` questions, each with a question card, follow-up cards and drill cards, in order."""
    specs = []
    for q in range(start, start + questions):
        qid = f"q{q:04d}"
        items = [("question", "main")] + [("followup", f"f{i}") for i in range(followups)]
        items += [("drill", f"d{i}") for i in range(drills)]
        for kind, item in items:
            specs.append(Spec(f"{qid}/{kind}/{item}", qid, kind, item, topic, len(specs) + start * 100))
    return specs


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def raw_card(path: Path, card_id: str) -> tuple:
    """The card row exactly as stored (SQLite values and their Python types), read outside the Store."""
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT * FROM card WHERE card_id = ?", (card_id,)).fetchone()
    finally:
        conn.close()
    return tuple((type(v).__name__, v) for v in row)
