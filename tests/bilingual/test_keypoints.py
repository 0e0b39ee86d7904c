"""Key points: the matcher on answers in each language, numbers in other units, the suggested rating,
and the bank-wide coverage rules (standard answers >= 80 %, templates >= 50 %, another topic's
template <= 1/3)."""

from __future__ import annotations

import pytest

from quizapp.content import load_bank
from quizapp.content.drills import render_text
from quizapp.content.keypoints import cover, normalise, points_of, quantities
from quizapp.content.localize import localize
from quizapp.vocab import Rating


@pytest.fixture
def kv(kv_dir):
    return localize(load_bank([kv_dir]).question("kv-points"), "en")


STRONG_EN = ("It's 2·L·a_kv·d·s·b·p bytes, so it grows linearly with context and batch, and you count the KV heads "
             "rather than the query heads: about 17.2 GB for llama-2-7b at 4K and batch 8.")
STRONG_ZH = "KV cache = 2·L·a_kv·d·s·b·p，随上下文和 batch 线性增长，按 KV 头数算；llama-2-7b 4K、batch 8 约 16 GiB。"
OTHER = "Mixed-precision AdamW keeps 16 bytes per parameter: 2 for weights, 2 for gradients and 12 for fp32 states."


@pytest.mark.parametrize("answer", [STRONG_EN, STRONG_ZH])
def test_a_strong_answer_in_either_language_covers_every_point(kv, answer):
    result = cover(kv, kv.key_points, answer)
    assert (result.covered, result.total, result.suggested) == (4, 4, Rating.Good)
    assert all(p.by for p in result.points)  # each covered point says which words covered it


def test_an_answer_to_another_question_covers_at_most_a_third(kv):
    assert cover(kv, kv.key_points, OTHER).fraction <= 1 / 3


def test_an_empty_answer_covers_nothing_and_suggests_again(kv):
    result = cover(kv, kv.key_points, "")
    assert result.covered == 0 and result.suggested is Rating.Again


def test_a_number_in_another_unit_covers_a_number_point(kv):
    size = next(p for p in kv.key_points if p.id == "size")
    # 17.18 GB = 16.0 GiB = 17,180 MB: any unit of the same kind, within the drill's 10 %
    for answer in ("16 GiB", "about 17,180 MB", "约 17GB", "0.0172 TB"):
        assert cover(kv, [size], answer).covered == 1, answer
    for answer in ("12 GB", "17 GB/s", "17 tokens", "1.7 GB"):
        assert cover(kv, [size], answer).covered == 0, answer


def test_normalising_folds_full_width_forms_case_and_markdown():
    assert normalise("**KV　Heads**（ＧＱＡ）,\n  `a_kv`") == "kv heads(gqa), a_kv"


def test_quantities_are_read_from_prose_in_both_languages():
    assert [round(v / 1e9, 2) for v, _ in quantities("约 42.95GB，即 40 GiB 左右", "GB")] == [42.95, 42.95]
    assert [v for v, _ in quantities("about 60 sequences fit", "count")] == [60.0]
    assert [v for v, _ in quantities("37.5 percent of the step, or 0.375", "%")] == [0.375, 0.375]


def test_the_suggestion_needs_every_must_point_for_good(kv):
    # three of four (75 %): Hard; all but the must-have formula (75 %): Hard as well, never Good
    without_formula = "It grows linearly with batch; count KV heads; about 17 GB."
    assert cover(kv, kv.key_points, without_formula).suggested is Rating.Hard
    assert cover(kv, kv.key_points, "linear, and about 17 GB").suggested is Rating.Hard
    assert cover(kv, kv.key_points, "linear").suggested is Rating.Again


def test_a_followups_points_come_from_the_followup(kv):
    points = points_of(kv, "gqa")
    assert [p.id for p in points] == ["shrinks", "same-flops"]
    assert cover(kv, points, "the cache shrinks by a/a_kv").covered == 1


# --- the bank ------------------------------------------------------------------------------------

def _localized(bundled, lang):
    return [localize(q, lang) for q in bundled.questions]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_standard_answer_covers_80_percent_of_its_points_and_every_must(bundled, lang):
    low = []
    for q in _localized(bundled, lang):
        result = cover(q, q.key_points, render_text(q, q.answer))
        if result.fraction < 0.8 or not result.musts_covered or not 3 <= result.total <= 7:
            low.append((q.id, result.covered, result.total))
        for f in q.followups:
            result = cover(q, f.key_points, render_text(q, f.a))
            if result.fraction < 0.8 or not result.musts_covered or not 2 <= result.total <= 4:
                low.append((f"{q.id}/{f.id}", result.covered, result.total))
    assert low == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_template_covers_half_of_its_points(bundled, lang):
    low = [(q.id, r.covered, r.total) for q in _localized(bundled, lang) if q.template
           for r in [cover(q, q.key_points, render_text(q, q.template))] if r.fraction < 0.5]
    assert low == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_another_topics_template_covers_at_most_a_third(bundled, lang):
    questions = _localized(bundled, lang)
    templates = [(q.topic, q.id, render_text(q, q.template)) for q in questions if q.template]
    generic = []
    for q in questions:
        for topic, other, text in templates:
            if topic != q.topic:
                result = cover(q, q.key_points, text)
                if result.fraction > 1 / 3:
                    generic.append((q.id, other, [p.id for p in result.points if p.covered]))
    assert generic == []
