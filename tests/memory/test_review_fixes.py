"""The reviewer's three findings: FLOP counts printed readably, step time under TP and PP (memory-model.md
sections 7, 14 and 16), and the pipeline activation label. Expected values come from the spec's formulas
written out here, not from the calculator's output."""

from __future__ import annotations

import math
import re

import pytest

from quizapp.cli import main
from quizapp.memory import GPUS, PRESETS, breakdown, evaluate, setup_from_options, step_time
from quizapp.memory.quantities import format_quantity, parse_quantity
from quizapp.memory.throughput import setup_train_days, training_tokens_per_s

H100 = GPUS["h100-80g"]
L70 = PRESETS["llama-3.1-70b"]


def _spec_train_flops_per_token(model, seq: int) -> float:
    """Section 7: 6·N + 12·L·h·s (llama-3.1-70b has a·d = h)."""
    assert model.heads * model.head_dim == model.hidden
    return 6 * model.params + 12 * model.layers * model.hidden * seq


def _setup(**options):
    base = {"model": "llama-3.1-70b", "batch": 1, "seq": 4096, "gpu": "h100-80g", "mfu": 0.4}
    return setup_from_options({**base, **options})


# --- 1. FLOPs ------------------------------------------------------------------------------------------
def test_a_training_budget_prints_in_e_notation():
    """Section 16: C = (6·N + 12·L·h·s)·D for llama-3.1-405b on 15.6T tokens at seq 8192, about 4.12e25."""
    m = PRESETS["llama-3.1-405b"]
    budget = _spec_train_flops_per_token(m, 8192) * 15.6e12
    setup = setup_from_options({"model": "llama-3.1-405b", "seq": 8192, "train_tokens": "15.6T"})
    assert evaluate(setup, "compute_budget_flops") == pytest.approx(budget, rel=1e-9)
    shown = format_quantity(budget, "FLOPs")
    assert shown == f"{budget / 1e25:.2f}e25 FLOPs"
    assert parse_quantity(shown, "FLOPs").value == pytest.approx(budget, rel=0.005)  # it reads back


def test_drill_precision_keeps_three_significant_digits_in_e_notation():
    from quizapp.content.drills import precise

    assert precise(5.4624018432e22, "FLOPs") == "5.46e22 FLOPs"
    assert precise(2e15, "FLOPs") == "2.00e15 FLOPs"


def test_moderate_flops_stay_positional():
    assert format_quantity(46.9e9, "GFLOPs", 1) == "46.9 GFLOPs"
    assert format_quantity(0.622e15, "PFLOPs", 3) == "0.622 PFLOPs"
    assert format_quantity(84e21, "EFLOPs") == "84,000.00 EFLOPs"  # below 1e15 in the shown unit
    assert format_quantity(1e14, "FLOPs") == "100,000,000,000,000.00 FLOPs"


def test_no_bundled_text_prints_a_huge_positional_flop_count():
    from quizapp.content.bank import load_content
    from quizapp.content.drills import render_text

    huge = re.compile(r"\d{1,3}(?:,\d{3}){5,}(?:\.\d+)?\s?[GTPE]?FLOPs")
    def texts(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for v in value.values():
                yield from texts(v)
        elif isinstance(value, list):
            for v in value:
                yield from texts(v)

    bank = load_content()
    offenders, rendered = [], 0
    for q in bank.questions:
        for text in texts(q.model_dump(exclude={"drills", "source_path"})):
            if "{{" in text:
                rendered += 1
                if huge.search(render_text(q, text)):
                    offenders.append(q.id)
    assert rendered and not offenders


# --- 2. step time under dp x tp x pp ---------------------------------------------------------------------
def _ideal(tokens_per_replica: int, gpus_per_replica: int, mfu: float = 0.4) -> float:
    """Section 7: executed FLOPs (each GPU 1/(t·pp) of the replica's) / (peak x utilization)."""
    return _spec_train_flops_per_token(L70, 4096) * tokens_per_replica / (gpus_per_replica * H100.bf16_tflops * 1e12 * mfu)


def test_tensor_parallelism_divides_the_step_time():
    expected = _ideal(4096, 8)
    assert expected == pytest.approx(0.589, abs=5e-4)  # the reviewer's figure implied by tokens/s
    setup = _setup(tp=8)
    assert step_time(setup) == pytest.approx(expected, rel=1e-9)
    assert evaluate(setup, "step_time") == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("interleave", [1, 2])
def test_pipeline_step_is_m_microbatches_over_tp_pp_plus_the_bubble(interleave):
    """Section 14: each stage computes L/pp of the layers for m micro-batches, and the bubble adds
    (pp−1)/(v·m) of that ideal time."""
    pp, m = 2, 8
    setup = _setup(tp=8, pp=pp, microbatches=m, interleave=interleave)
    ideal = _ideal(m * 4096, 8 * pp)
    assert step_time(setup) == pytest.approx(ideal * (1 + (pp - 1) / (interleave * m)), rel=1e-9)
    assert step_time(setup) != pytest.approx(step_time(_setup(tp=8)))


def test_tokens_per_s_and_days_follow_the_step_time():
    """tokens/s = N·m·b·s per step / step time; without a bubble that is section 16's u·GPUs·peak / FLOPs."""
    flops = _spec_train_flops_per_token(L70, 4096)
    tp_only = _setup(tp=8, gpus=4)
    assert step_time(tp_only) == pytest.approx(_ideal(4096, 8), rel=1e-9)  # data parallelism: same step
    assert training_tokens_per_s(tp_only) == pytest.approx(0.4 * 32 * H100.bf16_tflops * 1e12 / flops, rel=1e-9)
    assert training_tokens_per_s(tp_only) == pytest.approx(4 * 4096 / step_time(tp_only), rel=1e-9)

    piped = _setup(tp=8, pp=4, microbatches=16, gpus=2, train_tokens="1T")
    rate = 0.4 * 64 * H100.bf16_tflops * 1e12 / flops / (1 + 3 / 16)
    assert training_tokens_per_s(piped) == pytest.approx(rate, rel=1e-9)
    assert training_tokens_per_s(piped) == pytest.approx(2 * 16 * 4096 / step_time(piped), rel=1e-9)
    assert setup_train_days(piped) == pytest.approx(1e12 / rate / 86400, rel=1e-9)
    assert evaluate(piped, "train_days") == pytest.approx(1e12 / rate, rel=1e-9)  # the ask is in seconds


def test_offload_transfer_is_per_gpu_shard():
    """Section 7: 4 bytes per parameter over the host link, of the parameters this GPU holds (1/(t·pp))."""
    setup = _setup(tp=8, offload="optimizer", model="llama-2-7b")
    m = PRESETS["llama-2-7b"]
    compute = _spec_train_flops_per_token(m, 4096) * 4096 / (8 * H100.bf16_tflops * 1e12 * 0.4)
    assert step_time(setup) == pytest.approx(compute + 4 * m.params / 8 / H100.host_link, rel=1e-9)


def test_calc_cli_time_section_agrees(capsys):
    argv = ["calc", "--model", "llama-3.1-70b", "--tp", "8", "--pp", "2", "--microbatches", "8", "--batch", "1",
            "--seq", "4096", "--gpu", "h100-80g", "--mfu", "0.4"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    step = _ideal(8 * 4096, 16) * (1 + 1 / 8)
    assert f"{step:.4g} s per step" in out
    assert f"{8 * 4096 / step:,.0f} at HFU 0.4" in out
    assert "4.715 s" not in out


def test_worked_solution_says_what_the_step_time_assumes():
    codes = breakdown(_setup(tp=8, pp=2, microbatches=8)).codes
    step = [n for n in codes if getattr(n, "key", "") == "calc.note.step_time"]
    assert len(step) == 1
    args = step[0].kwargs
    assert args["m"] == 8 and args["split"] == 16 and args["bubble"].startswith("1/8")
    from quizapp.words import say

    text = say(step[0].key, "en", **args)
    assert "bubble" in text and "communication is not" in text


# --- 3. the pipeline activation label ----------------------------------------------------------------
@pytest.mark.parametrize("microbatches", [1, 8])
def test_pipeline_activation_label_names_the_microbatches_in_flight(microbatches):
    """Section 14: the first stage keeps min(pp, m) micro-batches for its ⌈L/pp⌉ layers."""
    pp = 2
    term = next(t for t in breakdown(_setup(tp=8, pp=pp, microbatches=microbatches)).terms if t.name == "activations")
    assert term.formula.startswith("⌈L/pp⌉·min(pp, m)·[")
    count = int(term.substituted.split(" × [", 1)[0].replace(",", ""))
    assert count == math.ceil(L70.layers / pp) * min(pp, microbatches)
