"""Benchmarks (run with --benchmark-enable): one breakdown, one inverse solve. Not timed assertions.

The speed targets (a breakdown under 1 ms, an inverse solve under 20 ms) are advisory: their figures are in
the README from `pytest tests/memory/test_bench_memory.py --benchmark-enable`, never asserted here (shared,
noisy machines). What is asserted is the value each benchmarked call returns.
"""

from __future__ import annotations

import pytest

from quizapp.memory import GPUS, PRESETS, Setup, breakdown, max_batch, max_params


@pytest.mark.benchmark(group="memory")
def test_bench_breakdown(benchmark):
    setup = Setup(PRESETS["llama-2-7b"], impl="hf", attention="eager")
    result = benchmark(breakdown, setup)
    assert result.total == sum(t.bytes for t in result.terms) and result.model_states == 16 * 6_738_415_616


@pytest.mark.benchmark(group="memory")
def test_bench_max_batch(benchmark):
    setup = Setup(PRESETS["llama-3-8b"], method="qlora", recompute="full")
    assert benchmark(max_batch, setup, GPUS["a100-80g"]) > 0


@pytest.mark.benchmark(group="memory")
def test_bench_max_params(benchmark):
    setup = Setup(PRESETS["llama-2-7b"], recompute="full")
    assert benchmark(max_params, setup, GPUS["rtx-4090"]) > 0


# issue 11: one serving breakdown, one communication breakdown (targets under 1 ms), the extended
# inverse solves (under 20 ms each)
def _serving_setup():
    from quizapp.memory import setup_from_options

    return setup_from_options({"model": "mixtral-8x7b", "method": "inference", "gpu": "h100-80g", "tp": 4,
                               "batch": 64, "seq": 8192})


@pytest.mark.benchmark(group="memory-issue-11")
def test_bench_serving(benchmark):
    from quizapp.memory import serving_figures

    assert benchmark(serving_figures, _serving_setup()).decode.step_s > 0


@pytest.mark.benchmark(group="memory-issue-11")
def test_bench_communication(benchmark):
    from quizapp.memory import communication, setup_from_options

    setup = setup_from_options({"model": "qwen3-30b-a3b", "gpus": 8, "ep": 8, "tp": 2, "pp": 4, "microbatches": 16,
                                "gpu": "h100-80g"})
    assert benchmark(communication, setup).total_bytes > 0


@pytest.mark.benchmark(group="memory-issue-11")
@pytest.mark.parametrize("solve", ["max_concurrency_at_context", "max_context_at_concurrency", "min_tp"])
def test_bench_serving_solves(benchmark, solve):
    import quizapp.memory as M

    assert benchmark(getattr(M, solve), _serving_setup()) >= 0


@pytest.mark.benchmark(group="memory-issue-11")
@pytest.mark.parametrize("tp", [1, 2])
def test_bench_min_gpus(benchmark, tp):
    from quizapp.memory import min_gpus, setup_from_options

    setup = setup_from_options({"model": "llama-3-70b", "recompute": "full", "gpu": "h100-80g", "tp": tp})
    assert benchmark(min_gpus, setup).gpus >= 1
