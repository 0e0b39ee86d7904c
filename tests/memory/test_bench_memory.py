"""Benchmarks (run with --benchmark-enable): one breakdown, one inverse solve. Not timed assertions."""

from __future__ import annotations

import pytest

from quizapp.memory import GPUS, PRESETS, Setup, breakdown, max_batch, max_params


@pytest.mark.benchmark(group="memory")
def test_bench_breakdown(benchmark):
    setup = Setup(PRESETS["llama-2-7b"], impl="hf", attention="eager")
    result = benchmark(breakdown, setup)
    assert result.total > 0


@pytest.mark.benchmark(group="memory")
def test_bench_max_batch(benchmark):
    setup = Setup(PRESETS["llama-3-8b"], method="qlora", recompute="full")
    assert benchmark(max_batch, setup, GPUS["a100-80g"]) > 0


@pytest.mark.benchmark(group="memory")
def test_bench_max_params(benchmark):
    setup = Setup(PRESETS["llama-2-7b"], recompute="full")
    assert benchmark(max_params, setup, GPUS["rtx-4090"]) > 0
