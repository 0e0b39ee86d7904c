"""Every worked solution derives what it asks (issue 22): for each ask a bundled drill uses, the
drill's solution has exactly one asked row, the last of the derived rows, with the variant's
expected value; a non-memory ask is derived (its steps, no memory table). And `quizapp drill` prints
the pipeline bubble's formula rather than the setup's weights and optimizer states."""

from __future__ import annotations

import pytest

from quizapp.content import draw_variant, load_bank
from quizapp.content.solution import worked_solution
from quizapp.locations import bundled_content_dir

# the asks a memory breakdown explains: their terms and sums keep the table
MEMORY_ASKS = {"weights", "gradients", "master_weights", "optimizer_states", "activations", "kv_cache", "overhead",
               "model_states", "total", "cpu", "reference_weights", "reward_weights", "rollout_kv_cache"}


def _one_drill_per_ask():
    bank = load_bank([bundled_content_dir()])
    chosen = {}
    for question in bank.questions:
        for drill in question.drills:
            chosen.setdefault(drill.ask, (question, drill))
    return chosen


DRILLS = _one_drill_per_ask()


def test_the_bank_uses_the_asks_this_issue_is_about():
    for ask in ("bubble", "decode_step_s", "ttft", "mfu", "critical_batch", "comm_ep_bytes", "max_concurrency",
                "max_batch", "min_gpus", "headroom"):
        assert ask in DRILLS, ask


@pytest.mark.parametrize("ask", sorted(DRILLS))
def test_a_drill_of_every_ask_derives_and_marks_its_value(ask):
    question, drill = DRILLS[ask]
    variant = draw_variant(question, drill, 1)
    solution = worked_solution(variant)
    asked = [row for row in solution.rows if row.asked]
    assert len(asked) == 1, [r.name for r in solution.rows]
    row = asked[0]
    assert row.name == ask and row.value == variant.expected
    assert solution.answer == variant.expected_display
    if ask in MEMORY_ASKS:
        assert not solution.derived  # the memory table, its asked row marked
        return
    assert solution.derived, f"{ask}: a memory table instead of a derivation"
    assert solution.rows[-1] is row  # the last derived row is the asked one
    assert variant.derivation.value == variant.expected
    assert row.formula and row.substituted
    # the same in `quizapp drill`'s text: one marked line, the asked row with the expected value, its formula
    from quizapp.cli.drill import derivation_lines, row_label

    lines = derivation_lines(variant, 120)
    marked = [i for i, line in enumerate(lines) if line.startswith("▶ ")]
    assert len(marked) == 1
    assert lines[marked[0]].startswith("▶ " + row_label(ask)) and lines[marked[0]].endswith(variant.expected_display)
    assert lines[marked[0] + 1].strip() == " ".join(row.formula.split())[: len(lines[marked[0] + 1].strip())]
    # no memory table: a fit derivation may show the total, never the terms of the setup
    assert not {r.name for r in solution.rows} & {"weights", "gradients", "master_weights", "optimizer_states",
                                                  "activations", "kv_cache"}


def test_quizapp_drill_prints_the_bubble_formula_and_no_weights(capsys):
    from quizapp.cli import main

    assert main(["drill", "pipeline-bubble/pb-bubble", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "37.50%" in out
    assert "(p − 1) / m" in out and "(4 − 1) / 8" in out  # pp 4, m 8 at seed 1: 3/8
    lines = [line.strip() for line in out.splitlines()]
    assert any(line.startswith("▶ pipeline bubble") and line.endswith("37.50%") for line in lines)
    assert not any(line.startswith(("weights", "gradients", "optimizer_states")) for line in lines)
    assert "params:" not in out


def _text(ask: str, lang: str = "en") -> str:
    """The lines `quizapp drill` prints for the drill's worked solution (what _print_text prints)."""
    from quizapp.cli.drill import derivation_lines

    question, drill = DRILLS[ask]
    return "\n".join(derivation_lines(draw_variant(question, drill, 1), 100, lang))


def test_quizapp_drill_in_chinese_labels_the_derived_rows():
    out = _text("bubble", "zh")
    assert "▶ 流水线气泡" in out and "(p − 1) / m" in out
    assert "1F1B（与 GPipe 相同）" in out


@pytest.mark.parametrize("ask, formula", [
    ("decode_step_s", "max(memory time, compute time)"),
    ("ttft", "max(compute time, memory time)"),
    ("critical_batch", "⌈peak·(W/t) / (bandwidth·2·N_active/t)⌉"),
    ("comm_ep_bytes", "4·L_moe/pp · all-to-all bytes"),
    ("max_concurrency", "⌊budget / (⌈s/B⌉·B·kv)⌋"),
])
def test_quizapp_drill_prints_the_asked_formula(ask, formula):
    lines = _text(ask).splitlines()
    marked = [i for i, line in enumerate(lines) if line.startswith("▶ ")]
    assert len(marked) == 1
    assert lines[marked[0] + 1].strip() == formula  # the asked row's formula, then its numbers
    assert lines[marked[0] + 2].strip().startswith("= ")
