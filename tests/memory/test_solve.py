"""Fit check and inverse solves: the answer fits, one more does not."""

from __future__ import annotations

from dataclasses import replace

import pytest

from quizapp.memory import GPUS, PRESETS, Setup, SetupError, breakdown, fit, max_batch, max_model, max_params, max_seq
from quizapp.memory.models import scaled_family

GiB = 2**30


def _fits(setup: Setup, gpu) -> bool:
    return breakdown(setup).total <= gpu.capacity - GiB


def test_fit_check_numbers(llama7b):
    gpu = GPUS["a100-80g"]
    b = breakdown(Setup(llama7b, method="qlora"))
    f = fit(b, gpu)
    assert f.capacity == 80 * GiB and f.usable == 79 * GiB and f.reserve == GiB
    assert f.fits and f.headroom == 79 * GiB - b.total


@pytest.mark.parametrize(
    "setup, gpu",
    [
        (Setup(PRESETS["llama-2-7b"], method="qlora", recompute="full"), "rtx-4090"),
        (Setup(PRESETS["llama-3-8b"], method="lora", attention="eager"), "a100-80g"),
        (Setup(PRESETS["llama-2-7b"], zero=3, gpus=8, recompute="full"), "a100-80g"),
        (Setup(PRESETS["llama-3-8b"], method="inference", seq=8192), "h100-80g"),
        (Setup(PRESETS["gpt2"], seq=1024), "rtx-3090"),
    ],
)
def test_max_batch_fits_and_one_more_does_not(setup, gpu):
    g = GPUS[gpu]
    n = max_batch(setup, g)
    assert n >= 1
    assert _fits(replace(setup, batch=n), g)
    assert not _fits(replace(setup, batch=n + 1), g)


@pytest.mark.parametrize("attention", ["flash", "eager"])
def test_max_seq_fits_and_one_more_does_not(attention):
    setup = Setup(PRESETS["llama-2-7b"], method="qlora", attention=attention)
    g = GPUS["a100-40g"]
    n = max_seq(setup, g)
    assert _fits(replace(setup, seq=n), g) and not _fits(replace(setup, seq=n + 1), g)


def test_nothing_fits_gives_zero(llama7b):
    assert max_batch(Setup(llama7b), GPUS["rtx-4090"]) == 0
    assert max_seq(Setup(PRESETS["llama-3.1-405b"], method="inference"), GPUS["h200"]) == 0


def test_bare_count_max_params_is_usable_over_16():
    setup = Setup(PRESETS["gpt2"].__class__(name="x", count=10**9))
    g = GPUS["rtx-4090"]
    # spec section 8: capacity as the card reports it (RTX 4090: 24,564 MiB), less the 1 GiB reserve
    assert max_params(setup, g) == (24564 * 2**20 - GiB) // 16


def test_family_max_params_fits_and_next_does_not(llama7b):
    g = GPUS["rtx-4090"]
    setup = Setup(llama7b, recompute="full")
    best = max_model(setup, g)
    assert best.head_dim == 128 and best.vocab == 32000 and best.style == "llama"
    assert _fits(replace(setup, model=best), g)
    assert not _fits(replace(setup, model=scaled_family(llama7b, best.heads, layers=best.layers + 1)), g)
    assert not _fits(replace(setup, model=scaled_family(llama7b, best.heads + 1)), g)
    assert max_params(setup, g) == best.params
    # 16 bytes/param on 23 GiB bounds it from above
    assert best.params < (24564 * 2**20 - GiB) / 16


def test_family_of_the_preset_itself_is_the_preset():
    for name in ("llama-2-7b", "llama-2-13b", "llama-3-8b", "mistral-7b"):
        m = PRESETS[name]
        assert scaled_family(m, m.heads).params == m.params


def test_solves_need_a_gpu_and_a_shape(llama7b):
    with pytest.raises(SetupError) as err:
        max_batch(Setup(llama7b), None)
    assert err.value.field == "gpu"
    with pytest.raises(SetupError) as err:
        max_seq(Setup(llama7b.__class__(name="x", count=7 * 10**9)), GPUS["h100-80g"])
    assert err.value.field == "model"


@pytest.mark.parametrize("answer", [0, 1, 2, 7, 1000, 123_456_789, 2**50 - 1])
@pytest.mark.parametrize("guess", [None, 1, 2, 6, 8, 999, 1001, 10**6, 123_456_780, 2**49, 2**50, 2**60])
def test_search_from_any_guess_finds_the_exact_answer(answer, guess):
    """The guess only says where the search starts: the largest n with n <= answer is found exactly."""
    from quizapp.memory.solve import _largest

    probes: list[int] = []

    def fits(n: int) -> bool:
        probes.append(n)
        return n <= answer

    assert _largest(fits, guess=guess) == answer
    assert len(probes) <= 2 * 52 + 2  # doubling then bisecting, never a walk


def test_search_without_a_bound_says_so_whatever_the_guess():
    from quizapp.memory.solve import _largest

    for guess in (None, 5, 2**60):
        assert _largest(lambda n: True, guess=guess) is None
    assert _largest(lambda n: n <= 9, lo=10, guess=50) == 9  # nothing from lo on fits: lo - 1


def test_a_good_guess_needs_few_breakdowns():
    """Bare counts are linear in memory, so the solve needs a handful of breakdowns, not ~60."""
    import quizapp.memory.solve as solve

    real = solve.breakdown
    calls = []

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    setup = Setup(PRESETS["gpt2"].__class__(name="x", count=10**9))
    g = GPUS["h100-80g"]
    solve.breakdown = counting
    try:
        n = max_params(setup, g)
    finally:
        solve.breakdown = real
    assert n == (81559 * 2**20 - GiB) // 16  # H100 80GB HBM3 reports 81,559 MiB (spec section 8)
    assert len(calls) <= 8
