"""Every bundled question is whole in both languages: English fields hold no Chinese, Chinese fields
are Chinese, the same numbers ({{drill}} references, {placeholders}) in both, and the English is not a
summary (its length is comparable)."""

from __future__ import annotations

import re

import pytest

from quizapp.content.localize import localize, variants
from quizapp.content.schema import LangText
from quizapp.content.validate import localized_fields

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
REF = re.compile(r"\{\{([^{}]*)\}\}")


def test_the_bundled_bank_loads_whole_with_no_problem(bundled):
    assert bundled.problems == (), [str(p) for p in bundled.problems[:10]]
    assert len(bundled.questions) >= 61


def test_every_text_field_of_every_question_is_in_both_languages(bundled):
    missing = [(q.id, path) for q in bundled.questions for path, value in localized_fields(q)
               if not (isinstance(value, LangText) and value.en and value.zh)]
    assert missing == []


def test_english_fields_hold_no_chinese_and_chinese_fields_are_chinese(bundled):
    english_with_cjk, chinese_without = [], []
    for q in bundled.questions:
        for path, value in localized_fields(q):
            if CJK.search(value.en):
                english_with_cjk.append((q.id, path, CJK.findall(value.en)[:3]))
            # a reading entry may be a Latin-script title in both; everything else has Chinese in it
            if path[0] != "reading" and len(value.zh) > 12 and not CJK.search(value.zh):
                chinese_without.append((q.id, path))
    assert english_with_cjk == []
    assert chinese_without == []


def test_both_languages_say_the_same_numbers(bundled):
    differ = []
    for q in bundled.questions:
        for path, value in localized_fields(q):
            if path[0] == "drills" and path[-1] == "prompt":
                names = [set(re.findall(r"(?<!\{)\{(\w+)\}(?!\})", text)) for _, text in variants(value, q.lang)]
            else:
                names = [set(REF.findall(text)) for _, text in variants(value, q.lang)]
            if names[0] != names[1]:
                differ.append((q.id, path, names))
    assert differ == []


def test_the_english_is_not_a_summary(bundled):
    """Per question, the English prose is at least as long as the Chinese in characters (English needs
    about 1.5-3 times as many characters for the same content; a summary falls far below that)."""
    short = []
    for q in bundled.questions:
        en = sum(len(v.en) for path, v in localized_fields(q) if path[0] != "reading")
        zh = sum(len(v.zh) for path, v in localized_fields(q) if path[0] != "reading")
        if en < 1.3 * zh:
            short.append((q.id, en, zh))
    assert short == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_localized_question_has_plain_text_in_that_language_and_no_fallback(bundled, lang):
    for q in bundled.questions:
        local = localize(q, lang)
        assert local.lang == lang and local.fallback == ()
        assert isinstance(local.title, str) and isinstance(local.answer, str)
        assert all(isinstance(d.prompt, str) for d in local.drills)
        assert bool(CJK.search(local.answer)) is (lang == "zh")


def test_ids_are_shared_so_both_languages_have_the_same_cards(bundled):
    """Follow-up, mistake, drill and key-point ids are written once, beside both languages' text: the
    two languages cannot disagree on them (the cards of a question are the same in both)."""
    for q in bundled.questions[:5]:
        en, zh = localize(q, "en"), localize(q, "zh")
        for group in ("followups", "mistakes", "drills", "key_points"):
            assert [i.id for i in getattr(en, group)] == [i.id for i in getattr(zh, group)]
