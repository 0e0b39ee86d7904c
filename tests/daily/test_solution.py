"""A drill's worked solution in the drill's unit with the asked row marked; verdict numbers that differ."""

from __future__ import annotations

import textwrap

import pytest

from quizapp.content import draw_variant, load_bank
from quizapp.content.solution import distinguishable, precise, worked_solution

QUESTION = """\
id: kv-per-token
title: 每个 token 的 KV cache 多大？
topic: inference
answer: |
  llama-2-7b 一个 token 的 KV cache 为 {{kv-one}}。
drills:
  - id: kv-one
    prompt: "{model} 推理，batch 1、上下文 1 个 token，KV cache 多少 MB？"
    setup: {model: llama-2-7b, method: inference, batch: 1, seq: 1}
    ask: kv_cache
    unit: MB
  - id: step
    prompt: "{model} 全量训练一步多久（秒）？"
    setup: {model: llama-2-7b, method: full, batch: 1, seq: 4096, gpu: a100-80g, mfu: 0.4}
    ask: step_time
    unit: s
"""


@pytest.fixture
def question(tmp_path):
    path = tmp_path / "inference" / "kv-per-token.yaml"
    path.parent.mkdir()
    path.write_text(QUESTION, encoding="utf-8")
    bank = load_bank([tmp_path])
    assert not bank.problems, bank.problems
    return bank.questions[0]


def test_verdict_numbers_show_the_difference():
    assert distinguishable(0.128e6, 0.131e6, "MB") == ("0.128 MB", "0.131 MB")
    assert distinguishable(112e9, 112.4e9, "GB") == ("112.00 GB", "112.40 GB")
    a, b = distinguishable(1.0001e9, 1.0002e9, "GB")
    assert a != b
    assert distinguishable(5e9, 5e9, "GB") == ("5.00 GB", "5.00 GB")


def test_precise_keeps_three_significant_digits():
    assert precise(0.128e6, "MB") == "0.128 MB"
    assert precise(4.21e3, "MB") == "0.00421 MB"
    assert precise(112e9, "GB") == "112.00 GB"


def test_a_drill_asked_in_mb_shows_its_rows_in_mb_and_marks_the_asked_one(question):
    variant = draw_variant(question, question.drill("kv-one"), 0)
    solution = worked_solution(variant)
    asked = solution.asked_row
    assert asked.name == "kv_cache"
    # 2 (K and V) x 32 layers x 4096 wide x 2 bytes = 524,288 bytes for one token (llama-2-7b, MHA)
    assert asked.value == 2 * 32 * 4096 * 2
    assert asked.shown == "0.524 MB"
    assert solution.answer == "0.524 MB"
    assert [r.name for r in solution.rows if r.asked] == ["kv_cache"]
    assert all(r.shown.endswith(" MB") for r in solution.rows)
    assert "0.00 GB" not in " ".join(r.shown for r in solution.rows)


def test_an_ask_that_is_not_a_memory_term_gets_its_own_marked_row_in_its_unit(question):
    variant = draw_variant(question, question.drill("step"), 0)
    solution = worked_solution(variant)
    asked = solution.asked_row
    assert asked.name == "step_time" and asked is solution.rows[-1]
    assert asked.shown.endswith(" s") and asked.value == pytest.approx(variant.expected)
    # derived (issue 22): the FLOPs per token and the time formula lead to it, no memory rows
    assert solution.derived
    assert [r.name for r in solution.rows] == ["attention_flops", "flops_per_token", "step_time"]
    assert asked.formula == "F·m·b·s / (t·pp) / (peak·HFU)"
    assert all("FLOPs" in r.shown for r in solution.rows[:-1])  # the steps in their own readable unit


def test_every_bundled_drill_has_a_worked_solution_with_one_asked_row(bundled_bank):
    for question in bundled_bank.questions:
        for drill in question.drills:
            variant = draw_variant(question, drill, 0)
            solution = worked_solution(variant)
            assert sum(r.asked for r in solution.rows) == 1, (question.id, drill.id)
            # in the drill's own unit, counting what the drill counts ("0.161T tokens", not "params")
            assert solution.answer == variant.expected_display, (question.id, drill.id)
            assert solution.answer.startswith(precise(variant.expected, drill.unit).split()[0])
            assert solution.asked_row.shown == solution.answer, (question.id, drill.id)
