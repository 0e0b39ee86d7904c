"""RLHF and preference tuning (memory-model.md section 15): PPO's four models, DPO, GRPO, rollout KV."""

from __future__ import annotations

import pytest

from quizapp.memory import PRESETS, Setup, SetupError, breakdown, setup_from_options
from quizapp.memory.breakdown import critic_params


def test_ppo_on_a_bare_7b_is_252_gb_of_weights_and_states():
    # section 15: mixed AdamW 2 x 112 + 2 x 14 = 252 GB (critic counted as the actor's size)
    b = breakdown(setup_from_options({"model": "7B", "method": "ppo"}))
    assert b.model_states == 252e9
    assert b.term("reference_weights").bytes == b.term("reward_weights").bytes == 14e9


def test_ppo_llama_2_7b_is_240_22_gb():
    # the critic and the reward model replace the LM head (V·h) by a value head of h + 1
    m = PRESETS["llama-2-7b"]
    critic = m.params - 32000 * 4096 + 4096 + 1
    assert critic_params(m) == critic
    b = breakdown(Setup(m, method="ppo"))
    assert b.model_states == 16 * m.params + 16 * critic + 2 * m.params + 2 * critic
    assert round(b.model_states / 1e9, 2) == 240.22


def test_tied_critic_keeps_the_embedding_and_adds_the_head():
    m = PRESETS["llama-3.2-1b"]
    assert critic_params(m) == m.params + 2048 + 1


def test_ppo_with_another_critic_and_reward_model():
    b = breakdown(setup_from_options({"model": "llama-2-13b", "method": "ppo", "critic_model": "llama-2-7b",
                                      "reward_model": "7B"}))
    actor, critic = PRESETS["llama-2-13b"].params, critic_params(PRESETS["llama-2-7b"])
    assert b.term("weights").bytes == 2 * actor + 2 * critic
    assert b.term("reward_weights").bytes == 2 * 7e9
    assert {p.code for p in b.term("optimizer_states").parts} == {"actor", "critic"}


def test_dpo_and_grpo_keep_a_frozen_reference_and_no_critic():
    m = PRESETS["llama-2-7b"]
    for method in ("dpo", "grpo"):
        b = breakdown(Setup(m, method=method, recompute="full"))
        assert b.model_states == 16 * m.params + 2 * m.params
        assert b.term("reward_weights") is None


def test_rollout_kv_cache_is_its_own_term():
    m = PRESETS["llama-3-8b"]
    b = breakdown(Setup(m, method="grpo", rollout_batch=64, seq=1024))
    assert b.term("rollout_kv_cache").bytes == 2 * 32 * 8 * 128 * 1024 * 64 * 2
    assert breakdown(Setup(m, method="grpo")).term("rollout_kv_cache") is None


@pytest.mark.parametrize("options, field", [
    ({"model": "llama-2-7b", "method": "ppo", "reward_model": "nope"}, "reward_model"),
    ({"model": "llama-2-7b", "method": "ppo", "critic_model": "lama-2-7b"}, "critic_model"),
    ({"model": "llama-2-7b", "method": "grpo", "rollout_batch": 0}, "rollout_batch"),
    ({"model": "llama-2-7b", "method": "grpo", "group": "-1"}, "group"),
])
def test_rlhf_settings_are_checked(options, field):
    with pytest.raises(SetupError) as err:
        setup_from_options(options)
    assert err.value.field == field


def test_rlhf_settings_are_ignored_by_other_methods():
    # a drill's extra_mistakes override the method and keep the other keys (e.g. grpo -> full)
    m = PRESETS["llama-2-7b"]
    plain = breakdown(Setup(m))
    kept = breakdown(setup_from_options({"model": "llama-2-7b", "group": 8, "rollout_batch": 16,
                                         "critic_model": "llama-2-7b"}))
    assert kept.total == plain.total and kept.term("rollout_kv_cache") is None
