"""The new asks: each is evaluated or refused with a one-line reason naming the field at fault."""

from __future__ import annotations

import pytest

from quizapp.memory import ASKS, SetupError, evaluate, setup_from_options as opts
from quizapp.memory.quantities import KINDS


def test_every_ask_has_a_known_kind():
    assert set(ASKS.values()) <= set(KINDS)


def test_rlhf_terms_as_asks():
    ppo = opts({"model": "llama-2-7b", "method": "ppo", "rollout_batch": 8})
    assert evaluate(ppo, "reference_weights") == 2 * 6_738_415_616  # frozen, 16-bit (section 15)
    assert evaluate(ppo, "rollout_kv_cache") > 0
    # section 15's reference: a bare 7B with mixed AdamW, 2 x 112 + 2 x 14 = 252 GB
    assert evaluate(opts({"model": "7B", "method": "ppo"}), "model_states") == 252e9


@pytest.mark.parametrize(
    ("options", "ask", "field"),
    [
        ({"model": "llama-2-7b"}, "reference_weights", "method"),
        ({"model": "llama-2-7b", "method": "dpo"}, "reward_weights", "method"),
        ({"model": "llama-2-7b", "method": "grpo"}, "rollout_kv_cache", "rollout_batch"),
        ({"model": "llama-2-7b"}, "max_concurrency", "method"),
        ({"model": "llama-2-7b", "method": "inference"}, "kv_budget", "gpu"),
        ({"model": "7B", "method": "inference"}, "kv_bytes_per_token", "model"),
        ({"model": "llama-2-7b", "gpus": 8}, "comm_total_s", "gpu"),
        ({"model": "llama-2-7b", "method": "inference"}, "comm_dp_bytes", "method"),
        ({"model": "llama-2-7b"}, "compute_budget_flops", "train_tokens"),
        ({"model": "llama-2-7b", "gpu": "a100-80g"}, "train_days", "train_tokens"),
        ({"model": "mixtral-8x7b"}, "chinchilla_tokens", "model"),
        ({"model": "llama-2-7b"}, "mfu", "gpu"),
        ({"model": "llama-2-7b", "method": "inference", "gpu": "a100-80g"}, "min_gpus", "method"),
    ],
)
def test_new_asks_refuse_what_the_setup_cannot_produce(options, ask, field):
    with pytest.raises(SetupError) as err:
        evaluate(opts(options), ask)
    assert err.value.field == field and "\n" not in str(err.value)
