"""Every bundled question renders in both languages as `quizapp show` prints it (issue 19): no placeholder
left unrendered, and no byte quantity in a unit that makes it unreadable (eight or more integer digits,
e.g. 141,107,412.99 KB where GB was meant)."""

from __future__ import annotations

import re

import pytest

from quizapp.cli.show import markdown
from quizapp.content import load_bank
from quizapp.content.localize import localized
from quizapp.content.render import render_question
from quizapp.locations import bundled_content_dir

# a number followed by a byte unit: its integer part (digits and thousands separators)
BYTES = re.compile(r"(?<![\w.,])(\d[\d,]*)(?:\.\d+)?\s?(?:[KMGTP]i?B|bytes|B)\b")


@pytest.fixture(scope="module")
def banks():
    bank = load_bank([bundled_content_dir()])
    return {lang: localized(bank, lang) for lang in ("en", "zh")}


def _texts(banks, lang):
    for question in banks[lang].questions:
        yield question.id, markdown(render_question(question), lang)  # what `quizapp show` prints


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_nothing_is_left_unrendered(banks, lang):
    bad = [qid for qid, text in _texts(banks, lang) if "{{" in text or "}}" in text]
    assert not bad


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_byte_quantity_has_eight_integer_digits(banks, lang):
    bad = []
    for qid, text in _texts(banks, lang):
        for match in BYTES.finditer(text):
            if len(match.group(1).replace(",", "")) >= 8:
                bad.append((qid, match.group(0)))
    assert not bad


def test_the_pattern_catches_the_review_finding():
    assert [m.group(1) for m in BYTES.finditer("141,107,412.99KB and 1.2 GB and 42 B")] == ["141,107,412", "1", "42"]
