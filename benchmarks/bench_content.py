"""Benchmark: load and validate 1,000 generated question files as a whole `quizapp validate` process.

Each file has 3 drills (one parametric), follow-ups, mistakes, errata and {{...}} references; the KV
cache drill's sequence length differs in every file, so most calculator work is not repeated.

Target (issue 3): under 2 s wall-clock, interpreter start-up and imports included.
Usage: python benchmarks/bench_content.py [--files 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTION = """\
id: {id}
title: 第 {n} 题：{model} 全量训练需要多少显存？ [bench]
topic: {topic}
points: [llm-training, memory]
tags: [adamw, zero]
difficulty: {difficulty}
lang: zh
intent: |
  考察模型状态、激活值和 ZeRO 的估算。
answer: |
  {model} 混合精度 AdamW 的模型状态为 {{{{states}}}}，其中优化器状态 {{{{states.optimizer_states}}}}，
  权重 {{{{states.weights}}}}。推理时 KV cache 为 {{{{kv}}}}。
template: |
  16 bytes/param × 参数量；再加激活值。
followups:
  - id: zero3
    q: 8 卡 ZeRO-3 每卡多少？
    a: 约 {{{{zero3}}}}。
  - id: kv
    q: 推理 KV cache 呢？
    a: "{{{{kv}}}}"
mistakes:
  - id: zero-single
    wrong: 单卡 ZeRO-3 省显存
    right: 单卡不省
    why: 无可切分
  - id: no-master
    wrong: 2+2+8
    right: 2+2+4+8
    why: fp32 主权重
reading:
  - "Rajbhandari et al., ZeRO: Memory Optimizations Toward Training Trillion Parameter Models"
errata:
  - claim: 原文说 57 GB
    correct: "{{{{states}}}}"
    why: 漏了主权重
drills:
  - id: states
    prompt: "{{model}} bf16 混合精度 + AdamW，模型状态多少 GB？"
    setup: {{model: {model}, method: full, precision: bf16-mixed, optimizer: adamw}}
    ask: model_states
    unit: GB
    vary: {{model: [llama-2-7b, llama-2-13b, mistral-7b]}}
    extra_mistakes:
      - label: only weights
        value: 14 GB
  - id: zero3
    prompt: "{{model}} ZeRO-3 over {{gpus}} GPUs: per-GPU model states?"
    setup: {{model: {model}, method: full, zero: 3, gpus: {gpus}}}
    ask: model_states
    unit: GB
  - id: kv
    prompt: "{{model}} {{seq}} tokens KV cache?"
    setup: {{model: {model}, method: inference, seq: {seq}, batch: 1}}
    ask: kv_cache
    unit: GB
    tolerance: 5%
"""


def generate(root: Path, count: int) -> None:
    models = ("llama-2-7b", "llama-2-13b", "mistral-7b", "qwen2.5-7b")
    for n in range(count):
        topic = f"topic-{n % 10}"
        folder = root / topic
        folder.mkdir(parents=True, exist_ok=True)
        qid = f"bench-question-{n:04d}"
        text = QUESTION.format(id=qid, n=n, topic=topic, model=models[n % len(models)], difficulty=1 + n % 5, gpus=2 + n % 7, seq=1024 + n)
        (folder / f"{qid}.yaml").write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "content"
        generate(root, args.files)
        command = [sys.executable, "-m", "quizapp", "--content", str(root), "validate", "--json"]
        first = subprocess.run(command, capture_output=True, text=True)
        if first.returncode != 0:
            print(first.stdout[-2000:], first.stderr[-2000:])
            return 1
        times, cpu = [], []
        for _ in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, check=True)
            times.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        empty = Path(tmp) / "empty"
        empty.mkdir()
        baseline = []
        for _ in range(args.runs):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "quizapp", "--content", str(empty), "validate"], capture_output=True)
            baseline.append(time.perf_counter() - start)
    print(f"quizapp validate, {args.files} question files ({3 * args.files} drills), {args.runs} runs, whole process:")
    print(f"  wall: min {min(times):.3f} s  median {statistics.median(times):.3f} s  max {max(times):.3f} s  (target < 2 s)")
    print(f"  CPU (user+sys): min {min(cpu):.3f} s  median {statistics.median(cpu):.3f} s  (wall on an idle machine)")
    print(f"  start-up + imports alone (empty folder): median {statistics.median(baseline):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
