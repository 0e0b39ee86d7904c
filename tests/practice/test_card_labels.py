"""Card lists (Browse, `quizapp cards`) show each card as review would: nothing raw reaches a row."""

from __future__ import annotations

from quizapp.content.localize import localized

from quizapp.content import load_bank
from quizapp.locations import bundled_content_dir
from quizapp.practice.cards import card_labels


def test_every_bundled_card_has_a_rendered_one_line_label():
    bank = localized(load_bank([bundled_content_dir()]), "en")
    labels = card_labels(bank)
    assert set(labels) == {card.card_id for card in bank.cards()}
    raw = {card_id: text for card_id, text in labels.items() if "{" in text or "\n" in text or not text}
    assert not raw, f"unrendered or empty labels: {sorted(raw)[:5]}"


def test_a_drill_label_fills_its_prompt_from_the_base_setup():
    bank = localized(load_bank([bundled_content_dir()]), "en")
    question = next(q for q in bank.questions if any("{model}" in d.prompt for d in q.drills))
    drill = next(d for d in question.drills if "{model}" in d.prompt)
    label = card_labels(bank)[f"{question.id}/drill/{drill.id}"]
    assert str(drill.setup["model"]) in label
