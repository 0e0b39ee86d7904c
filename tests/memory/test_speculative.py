"""Speculative decoding (Leviathan et al. 2023): tokens per round and the walltime speedup."""

from __future__ import annotations

import pytest

from quizapp.memory import SetupError, evaluate, setup_from_options
from quizapp.memory.asks import derive


def _value(ask: str, **setup) -> float:
    return evaluate(setup_from_options(setup), ask)


def test_tokens_per_round_is_the_papers_expectation():
    # alpha = 0.8, gamma = 4: (1 - 0.8^5) / (1 - 0.8) = (1 - 0.32768) / 0.2 = 3.3616
    assert _value("spec_tokens_per_round", acceptance=0.8, draft_len=4) == pytest.approx((1 - 0.8**5) / 0.2)
    assert _value("spec_tokens_per_round", acceptance=0.8, draft_len=4) == pytest.approx(3.3616)


def test_every_token_accepted_gives_gamma_plus_one_and_none_gives_one():
    assert _value("spec_tokens_per_round", acceptance=1, draft_len=4) == 5  # the limit alpha -> 1: gamma + 1
    assert _value("spec_tokens_per_round", acceptance=0, draft_len=4) == 1  # only the target's own token


def test_speedup_divides_by_the_round_cost():
    # 3.3616 tokens per round over gamma*c + 1 = 4*0.05 + 1 = 1.2 target steps: 2.80133...
    assert _value("spec_speedup", acceptance=0.8, draft_len=4, draft_cost=0.05) == pytest.approx(3.3616 / 1.2)
    # a free draft (c = 0) gives the tokens per round themselves
    assert _value("spec_speedup", acceptance=0.6, draft_len=3, draft_cost=0) == pytest.approx((1 - 0.6**4) / 0.4)


def test_the_derivation_shows_the_formula_with_the_numbers():
    d = derive(setup_from_options({"acceptance": 0.8, "draft_len": 4, "draft_cost": 0.05}), "spec_speedup")
    assert [s.name for s in d.steps] == ["spec_tokens_per_round", "spec_round_cost", "spec_speedup"]
    assert d.steps[0].substituted == "(1 − 0.8^5) / (1 − 0.8)"
    assert d.steps[1].substituted == "4 × 0.05 + 1"


@pytest.mark.parametrize("setup, field", [
    ({"acceptance": 0.8}, "draft_len"),
    ({"draft_len": 4}, "acceptance"),
    ({"acceptance": 1.2, "draft_len": 4}, "acceptance"),
    ({"acceptance": "often", "draft_len": 4}, "acceptance"),
    ({"acceptance": 0.8, "draft_len": 0}, "draft_len"),
])
def test_bad_or_missing_keys_are_one_line_errors(setup, field):
    with pytest.raises(SetupError) as err:
        evaluate(setup_from_options(setup), "spec_tokens_per_round")
    assert err.value.field == field and "\n" not in str(err.value)


def test_speedup_needs_the_draft_cost():
    with pytest.raises(SetupError, match="draft_cost: missing"):
        _value("spec_speedup", acceptance=0.8, draft_len=4)


def test_an_extra_key_changes_no_memory_ask():
    plain = setup_from_options({"model": "llama-2-7b", "method": "inference"})
    with_extra = setup_from_options({"model": "llama-2-7b", "method": "inference", "acceptance": 0.8, "draft_len": 4})
    for ask in ("weights", "total", "kv_cache"):
        assert evaluate(plain, ask) == evaluate(with_extra, ask)


def test_a_setup_without_a_model_refuses_the_model_asks():
    setup = setup_from_options({"acceptance": 0.8, "draft_len": 4})
    with pytest.raises(SetupError, match="model: missing"):
        evaluate(setup, "weights")
