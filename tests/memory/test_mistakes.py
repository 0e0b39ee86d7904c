"""The common-mistake catalogue (memory-model.md section 9) and evaluate()."""

from __future__ import annotations

import pytest

from quizapp.memory import ASKS, MISTAKES, PRESETS, GPUS, Setup, SetupError, diagnose, evaluate, mistake_values
from quizapp.memory import setup_from_options as opts
from quizapp.memory.mistakes import mistake_candidates
from quizapp.words.mistakes import TEXT as WORDS

SPEC_IDS = {
    "total-as-active", "kv-all-heads", "decode-compute-bound", "allreduce-once", "bubble-over-total",
    "no-master", "no-gradients", "no-optimizer", "adam-16bit-states", "zero-single-gpu", "adam8bit-1byte",
    "no-activations", "bits-for-bytes", "gb-gib", "kv-one-layer", "no-kv", "full-activations-with-recompute",
    # sections 17-18: natural slips of the window and of standard attention (tests/memory/test_kernels.py,
    # test_attention_variants.py)
    "kv-no-window", "attention-no-scores",
}
PSI = 7e9


def test_ids_are_exactly_the_spec():
    assert set(MISTAKES) == SPEC_IDS
    for m in MISTAKES.values():
        assert m.id == m.id.lower()
        en, zh = WORDS[m.id]  # every id has its words in both languages
        assert en and zh
    assert WORDS["no-master"][0] == "looks like the fp32 master copy was left out"


def test_model_state_mistake_values():
    values = mistake_values(opts({"model": "7B"}), "model_states")
    assert values["no-master"] == 12 * PSI
    assert values["no-gradients"] == 14 * PSI
    assert values["no-optimizer"] == 8 * PSI
    assert values["adam-16bit-states"] == 12 * PSI
    assert values["bits-for-bytes"] == 8 * 16 * PSI
    assert "zero-single-gpu" not in values and "no-activations" not in values


def test_diagnose_no_optimizer_and_none_for_right_answer():
    setup = opts({"model": "7B"})
    mistake, value = diagnose(setup, "model_states", 57e9)
    assert mistake.id == "no-optimizer" and value == 56e9
    assert diagnose(setup, "model_states", 112e9) is None
    assert diagnose(setup, "model_states", 300e9) is None


def test_gb_gib_only_outside_tolerance():
    setup = opts({"model": "7B"})
    gib_value = 14e9 / 2**30 * 1e9  # weights 14 GB said in GiB: 13.04 "GB", within 10 % of 14
    assert diagnose(setup, "weights", gib_value, rel_tol=0.10) is None
    mistake, _ = diagnose(setup, "weights", gib_value, rel_tol=0.02)
    assert mistake.id == "gb-gib"


def test_zero_single_gpu_only_with_n_1_and_a_stage():
    one = opts({"model": "7B", "zero": 1})
    # the seed card: "ZeRO-1 on one GPU takes 84 GB down to 28 GB" = master + Adam divided by N = 3
    mistake, value = diagnose(one, "model_states", 2 * PSI + 2 * PSI + 28e9)
    assert mistake.id == "zero-single-gpu" and value == 4 * PSI + 12 * PSI / 3
    # a clearer case: N = 4
    mistake, value = diagnose(one, "model_states", 49.5e9)
    assert mistake.id == "zero-single-gpu" and value == 4 * PSI + 12 * PSI / 4
    assert "zero-single-gpu" not in mistake_values(opts({"model": "7B"}), "model_states")
    assert "zero-single-gpu" not in mistake_values(opts({"model": "7B", "zero": 1, "gpus": 4}), "model_states")
    ns = {v for m, v in mistake_candidates(one, "model_states") if m.id == "zero-single-gpu"}
    assert ns == {4 * PSI + 12 * PSI / n for n in range(2, 9)}


def test_adam8bit_one_byte():
    values = mistake_values(opts({"model": "7B", "optimizer": "adamw-8bit"}), "optimizer_states")
    assert values["adam8bit-1byte"] == PSI


def test_activation_mistakes(llama7b):
    setup = Setup(llama7b, recompute="full")
    values = mistake_values(setup, "total")
    plain = evaluate(Setup(llama7b), "total")
    assert values["full-activations-with-recompute"] == plain
    assert values["no-activations"] == 16 * llama7b.params


def test_kv_mistakes(llama7b):
    setup = Setup(llama7b, method="inference", seq=4096)
    kv = 2 * 32 * 4096 * 4096 * 2
    cands = {(m.id, v) for m, v in mistake_candidates(setup, "kv_cache")}
    assert ("kv-one-layer", kv / 32) in cands and ("kv-one-layer", kv / 2) in cands
    assert mistake_values(setup, "total")["no-kv"] == 2 * llama7b.params
    mistake, _ = diagnose(setup, "kv_cache", 1.07e9)
    assert mistake.id == "kv-one-layer"


def test_max_params_mistake_uses_the_solver():
    setup = opts({"model": "7B", "gpu": "rtx-4090"})
    usable = 24564 * 2**20 - 2**30  # RTX 4090 as nvidia-smi reports it (spec section 8), less 1 GiB
    assert evaluate(setup, "max_params") == usable // 16
    assert mistake_values(setup, "max_params")["no-master"] == usable // 12


def test_evaluate_asks(llama7b):
    setup = Setup(llama7b, gpu=GPUS["a100-80g"], recompute="full", zero=3, gpus=8)
    assert evaluate(setup, "params") == llama7b.params
    assert evaluate(setup, "bytes_per_param") == 2
    assert evaluate(setup, "headroom") == 79 * 2**30 - evaluate(setup, "total")
    assert evaluate(setup, "max_batch") >= 1
    from quizapp.memory.asks import KERNEL_ASKS, SERVING_ASKS
    from quizapp.memory.extra_asks import EXTRA_ASKS  # their own inputs (tests/memory/test_extra_drills.py)

    for ask in ASKS:
        # kv_cache and the serving asks are inference figures; D-based asks need train_tokens; the kernel
        # asks need a kernel (tests/memory/test_kernels.py)
        if ask not in ("kv_cache", "cpu", "compute_budget_flops", "train_days", "reference_weights",
                       "reward_weights", "rollout_kv_cache", *SERVING_ASKS, *KERNEL_ASKS, *EXTRA_ASKS):
            evaluate(setup, ask)
    evaluate(setup.with_(train_tokens=10**12), "train_days")
    serving = Setup(llama7b, method="inference", gpu=GPUS["a100-80g"])
    for ask in SERVING_ASKS:
        evaluate(serving, ask)


@pytest.mark.parametrize(
    "setup, ask, field",
    [
        (Setup(PRESETS["llama-2-7b"]), "kv_cache", "method"),
        (Setup(PRESETS["llama-2-7b"], method="inference"), "activations", "method"),
        (Setup(PRESETS["llama-2-7b"]), "max_batch", "gpu"),
        (Setup(PRESETS["llama-2-7b"]), "step_time", "gpu"),
        (Setup(PRESETS["llama-2-7b"]), "headroom", "gpu"),
        (opts({"model": "7B"}), "activations", "model"),
        (Setup(PRESETS["llama-2-7b"]), "nonsense", "ask"),
    ],
)
def test_evaluate_refuses_what_the_setup_cannot_produce(setup, ask, field):
    with pytest.raises(SetupError) as err:
        evaluate(setup, ask)
    assert err.value.field == field
