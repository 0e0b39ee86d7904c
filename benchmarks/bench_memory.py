"""Benchmark of the memory calculator: one breakdown, inverse solves, and `quizapp calc` as a process.

Targets (issue 2): breakdown well under 1 ms, an inverse solve under 20 ms, `quizapp calc` well under
300 ms. Issue 11: one serving breakdown under 1 ms, one communication breakdown under 1 ms, each
extended inverse solve (concurrency at a context, context at a concurrency, smallest TP, fewest GPUs)
under 20 ms. Run: /tmp/venv/bin/python benchmarks/bench_memory.py [path/to/quizapp]
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
import timeit
from pathlib import Path


def _per_call_ms(fn, number: int, repeat: int = 5) -> float:
    """Median over `repeat` rounds of the mean time of one call, in ms."""
    rounds = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(rounds) / number * 1000


def main() -> None:
    from quizapp.memory import GPUS, PRESETS, Setup, breakdown, max_batch, max_params, max_seq

    setup = Setup(PRESETS["llama-2-7b"], impl="hf", attention="eager")
    print(f"breakdown (llama-2-7b, hf, eager)            {_per_call_ms(lambda: breakdown(setup), 2000) * 1000:8.1f} µs")
    qlora = Setup(PRESETS["llama-3-8b"], method="qlora", recompute="full")
    a100 = GPUS["a100-80g"]
    print(f"max_batch (llama-3-8b qlora, a100-80g)       {_per_call_ms(lambda: max_batch(qlora, a100), 50):8.2f} ms")
    print(f"max_seq   (llama-3-8b qlora, a100-80g)       {_per_call_ms(lambda: max_seq(qlora, a100), 50):8.2f} ms")
    full = Setup(PRESETS["llama-2-7b"], recompute="full")
    r4090 = GPUS["rtx-4090"]
    print(f"max_params (llama-2-7b family, rtx-4090)     {_per_call_ms(lambda: max_params(full, r4090), 50):8.2f} ms")
    _issue_11()

    exe = sys.argv[1] if len(sys.argv) > 1 else (shutil.which("quizapp") or str(Path(sys.executable).with_name("quizapp")))
    argv = [exe, "calc", "--model", "llama-2-7b", "--gpu", "rtx-4090", "--max", "batch", "--method", "qlora"]
    subprocess.run(argv, check=True, capture_output=True)  # warm the file cache
    times = []
    for _ in range(15):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
    print(f"`quizapp calc ... --max batch` process       {statistics.median(times):8.1f} ms median of 15 "
          f"(min {min(times):.1f}, max {max(times):.1f})")
    bare = [sys.executable, "-c", "pass"]
    base = []
    for _ in range(15):
        start = time.perf_counter()
        subprocess.run(bare, check=True)
        base.append((time.perf_counter() - start) * 1000)
    print(f"  (bare `python -c pass` on this machine       {statistics.median(base):8.1f} ms median)")


def _issue_11() -> None:
    from quizapp.memory import (
        communication, max_concurrency_at_context, max_context_at_concurrency, min_gpus, min_tp, serving_figures,
        setup_from_options,
    )

    serve = setup_from_options({"model": "mixtral-8x7b", "method": "inference", "gpu": "h100-80g", "tp": 4,
                                "batch": 64, "seq": 8192})
    print(f"serving (mixtral-8x7b tp 4, h100, b 64)      {_per_call_ms(lambda: serving_figures(serve), 2000) * 1000:8.1f} µs")
    cluster = setup_from_options({"model": "qwen3-30b-a3b", "gpus": 8, "ep": 8, "tp": 2, "pp": 4, "microbatches": 16,
                                  "zero": 1, "recompute": "full", "gpu": "h100-80g"})
    print(f"communication (qwen3-30b-a3b dp8 ep8 tp2 pp4) {_per_call_ms(lambda: communication(cluster), 2000) * 1000:8.1f} µs")
    dense = setup_from_options({"model": "llama-3-70b", "method": "inference", "gpu": "a100-80g", "tp": 4,
                                "seq": 8192, "batch": 32})
    print(f"max concurrency (llama-3-70b tp 4, a100)     {_per_call_ms(lambda: max_concurrency_at_context(dense), 2000) * 1000:8.1f} µs")
    print(f"max context (llama-3-70b tp 4, a100, b 32)   {_per_call_ms(lambda: max_context_at_concurrency(dense), 2000) * 1000:8.1f} µs")
    print(f"min tp (llama-3-70b, a100, 32 x 8K)          {_per_call_ms(lambda: min_tp(dense), 200):8.2f} ms")
    train = setup_from_options({"model": "llama-3-70b", "recompute": "full", "gpu": "h100-80g"})
    print(f"min gpus, ZeRO-3 (llama-3-70b, h100)         {_per_call_ms(lambda: min_gpus(train), 50):8.2f} ms")
    split = train.with_(tp=2)
    print(f"min gpus, tp x pp (llama-3-70b, h100)        {_per_call_ms(lambda: min_gpus(split), 20):8.2f} ms")


if __name__ == "__main__":
    main()
