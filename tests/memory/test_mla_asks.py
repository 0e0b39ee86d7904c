"""memory-model.md section 11: on an MLA model, `ask: activations` (and every ask whose value includes the
activations) is refused with one line; weights, states, KV cache and FLOPs keep working."""

from __future__ import annotations

import pytest

from quizapp.memory import PRESETS, SetupError, evaluate, setup_from_options
from quizapp.memory.activations import check_activations

TRAINING = {"model": "deepseek-v2-lite", "gpu": "h200", "gpus": 8, "zero": 3}


@pytest.mark.parametrize("ask", ["activations", "total", "headroom", "max_batch", "max_seq", "min_gpus"])
def test_asks_that_need_activations_are_refused_in_one_line(ask):
    setup = setup_from_options(TRAINING)
    with pytest.raises(SetupError) as err:
        evaluate(setup, ask)
    with pytest.raises(SetupError) as direct:
        check_activations(setup)
    assert str(err.value) == str(direct.value)  # the one reason activations.py gives
    assert err.value.field == "model" and "MLA" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("ask", ["weights", "gradients", "master_weights", "optimizer_states", "model_states",
                                 "params", "active_params", "flops_per_token", "step_time"])
def test_weights_states_and_flops_still_work(ask):
    setup = setup_from_options(TRAINING)
    assert evaluate(setup, ask) > 0


def test_model_states_are_sixteen_bytes_per_parameter_over_n():
    # mixed-precision AdamW, ZeRO-3 over N = 8 (section 3): 16·Ψ / 8, MLA or not
    setup = setup_from_options(TRAINING)
    assert evaluate(setup, "model_states") == pytest.approx(16 * PRESETS["deepseek-v2-lite"].params / 8)


def test_inference_on_mla_keeps_working():
    # MLA caches the latent and the shared RoPE key: (r_kv + d_r) bytes·p_kv per token per layer (section 11)
    m = PRESETS["deepseek-v3"]
    setup = setup_from_options({"model": "deepseek-v3", "method": "inference", "seq": 1000, "batch": 1})
    assert evaluate(setup, "kv_cache") == m.layers * (512 + 64) * 2 * 1000
    assert evaluate(setup, "total") == pytest.approx(evaluate(setup, "weights") + evaluate(setup, "kv_cache"))


def test_a_dense_model_is_not_refused():
    setup = setup_from_options({**TRAINING, "model": "llama-2-7b"})
    assert evaluate(setup, "activations") > 0 and evaluate(setup, "max_batch") >= 0


@pytest.mark.parametrize("solve", ["max_batch", "max_seq", "min_gpus"])
def test_the_inverse_solves_refuse_too(solve):
    import quizapp.memory as M

    with pytest.raises(SetupError, match="MLA"):
        getattr(M, solve)(setup_from_options(TRAINING))


def test_quizapp_calc_max_batch_on_mla_is_one_line_exit_2(capsys):
    from quizapp.cli import main

    code = main(["calc", "--model", "deepseek-v2-lite", "--gpu", "h200", "--max", "batch"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "MLA" in err and "Traceback" not in err
