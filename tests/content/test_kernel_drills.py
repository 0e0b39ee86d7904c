"""Drills with the kernel and attention-variant asks (memory-model.md sections 17-18): a question file
using them validates, draws, shows a derived worked solution and grades (units FLOP/B, x, us)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quizapp.cli import main
from quizapp.content import draw_variant, load_question_file
from quizapp.content.grading import grade
from quizapp.content.solution import worked_solution

ROOT = Path(__file__).resolve().parents[2]
DRILLS = """\
  - id: k-gemm-intensity
    prompt:
      en: 'A bf16 GEMM ({shape}, as m, n, k) on one {gpu}: its arithmetic intensity in FLOP/B, counting each operand read once and the output written once?'
      zh: 'bf16 GEMM（{shape}，即 m、n、k），在一张 {gpu} 上：每个操作数读一次、输出写一次，算术强度是多少 FLOP/B？'
    setup: {kernel: gemm, shape: [4096, 4096, 4096], dtype: bf16, gpu: a100-80g}
    ask: intensity
    unit: FLOP/B
  - id: k-ridge
    prompt:
      en: 'The ridge point of an {gpu} at bf16 (dense tensor peak over HBM bandwidth), in FLOP/B?'
      zh: '{gpu} 在 bf16 下的 ridge point（稠密 tensor 峰值除以 HBM 带宽）是多少 FLOP/B？'
    setup: {dtype: bf16, gpu: h100-80g}
    ask: ridge
    unit: FLOP/B
    vary: {gpu: [h100-80g, a100-80g]}
  - id: k-attn-bytes
    prompt:
      en: 'Standard (non-fused) attention forward, one head, one sequence of {seq} tokens, head dim {head_dim}, bf16: how many MB move through HBM?'
      zh: '标准（未融合）attention 前向，一个 head、一条 {seq} token 的序列，head dim {head_dim}，bf16：HBM 上搬运多少 MB？'
    setup: {kernel: attention, seq: 4096, head_dim: 128, dtype: bf16}
    ask: kernel_bytes
    unit: MB
  - id: k-flash-time
    prompt:
      en: 'FlashAttention-2 forward (B_r = 128), one head, {seq} tokens, head dim 128, bf16, causal mask halving the FLOPs, on an {gpu}: the roofline time in us?'
      zh: 'FlashAttention-2 前向（B_r = 128），一个 head，{seq} token，head dim 128，bf16，causal mask 让 FLOPs 减半，在 {gpu} 上：roofline 时间多少 us？'
    setup: {kernel: attention, seq: 4096, head_dim: 128, flash: true, block_rows: 128, attention_flops: causal, gpu: h100-80g}
    ask: kernel_time
    unit: us
  - id: k-fusion
    prompt:
      en: 'A bias add, GELU and dropout on a bf16 tensor of 16,777,216 elements, three kernels of one input and one output each versus one fused kernel (one input, one output): how many times fewer bytes?'
      zh: '在一个 16,777,216 元素的 bf16 张量上做 bias add、GELU、dropout：三个各读一写一的 kernel 对比一个融合 kernel（读一写一），字节数少多少倍？'
    setup: {kernel: elementwise, elements: 16777216, chain: [[1, 1], [1, 1], [1, 1]], chain_inputs: 1, chain_outputs: 1}
    ask: fusion_saving
    unit: x
  - id: k-kv-ratio
    prompt:
      en: '{model} at a {seq}-token context: how many times smaller is its KV cache than the same shape with MHA on every layer at full context?'
      zh: '{model} 在 {seq} token 上下文时：KV cache 比同样形状、每层都是 MHA 且看完整上下文时小多少倍？'
    setup: {model: gemma-2-9b, method: inference, seq: 8192}
    ask: kv_ratio
    unit: x
  - id: k-gemma-kv
    prompt:
      en: '{model} inference, batch 1, a {seq}-token context, bf16 KV cache, local layers keeping only their sliding window: KV cache in GB?'
      zh: '{model} 推理，batch 1，{seq} token 上下文，bf16 KV cache，local 层只保留 sliding window：KV cache 多少 GB？'
    setup: {model: gemma-3-12b, method: inference, seq: 32768, batch: 1, kv_dtype: bf16}
    ask: kv_cache
    unit: GB
"""


@pytest.fixture
def question_file(tmp_path: Path) -> Path:
    # a bundled question with the new drills appended (its own drills and prose stay valid)
    text = (ROOT / "content" / "inference" / "kv-cache.yaml").read_text(encoding="utf-8")
    text = re.sub(r"^id: kv-cache$", "id: kv-cache-kernels", text, flags=re.M).rstrip("\n") + "\n" + DRILLS
    path = tmp_path / "kv-cache-kernels.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_file_validates(capsys, question_file):
    code = main(["validate", str(question_file)])
    out = capsys.readouterr().out
    assert code == 0 and "no problems" in out, out


def _variant(question_file: Path, drill_id: str):
    question, problems = load_question_file(question_file)
    assert question is not None, problems
    drill = question.drill(drill_id)
    return draw_variant(question, drill, 0), drill


def test_ridge_and_intensity_in_flop_per_byte(question_file):
    variant, drill = _variant(question_file, "k-gemm-intensity")
    assert variant.expected == pytest.approx(2 * 4096**3 / (2 * 3 * 4096**2))  # 1365.3 FLOP/B
    assert variant.expected_display.endswith("FLOP/B")
    assert grade(variant, drill, "1365 FLOP/B").verdict == "correct"
    solution = worked_solution(variant)
    names = [row.name for row in solution.rows]
    assert names == ["kernel_flops", "kernel_bytes", "intensity"] and solution.rows[-1].asked
    assert "2·m·n·k" in solution.rows[0].formula and "4,096" in solution.rows[0].substituted


def test_flash_time_solution_derives_the_time(question_file):
    variant, drill = _variant(question_file, "k-flash-time")
    nbytes = 2 * (2 * 4096 * 128 + 2 * 32 * 4096 * 128) + 4 * 4096
    assert variant.expected == pytest.approx(nbytes / 3.35e12)  # memory-bound on H100
    solution = worked_solution(variant)
    assert [r.name for r in solution.rows][-1] == "kernel_time" and solution.answer.endswith("us")
    assert "weights" not in [r.name for r in solution.rows]  # no memory table


def test_standard_attention_grading_names_the_missing_round_trip(question_file):
    variant, drill = _variant(question_file, "k-attn-bytes")
    assert variant.expected == 2 * (4 * 4096 * 128 + 4 * 4096**2)
    graded = grade(variant, drill, "4.19 MB")  # p·4·N·d: S and P left out
    assert graded.verdict != "correct" and "attention-no-scores" in graded.mistake_ids


def test_kv_ratio_and_windowed_cache(question_file):
    variant, drill = _variant(question_file, "k-kv-ratio")
    assert variant.expected == pytest.approx(8 / 3) and variant.expected_display.startswith("2.67")
    assert grade(variant, drill, "2.67x").verdict == "correct"
    variant, drill = _variant(question_file, "k-gemma-kv")
    assert variant.expected == 2 * 8 * 256 * (40 * 1024 + 8 * 32768) * 2
    graded = grade(variant, drill, f"{2 * 48 * 8 * 256 * 32768 * 2 / 1e9:.2f} GB")  # the window ignored
    assert "kv-no-window" in graded.mistake_ids


def test_fusion_saving_in_x(question_file):
    variant, drill = _variant(question_file, "k-fusion")
    assert variant.expected == pytest.approx(3.0)
    assert grade(variant, drill, "3x").verdict == "correct"


def test_a_kernel_drill_without_its_gpu_is_reported_at_its_line(tmp_path, capsys, question_file):
    text = question_file.read_text(encoding="utf-8").replace(
        "setup: {kernel: attention, seq: 4096, head_dim: 128, flash: true, block_rows: 128, attention_flops: causal, gpu: h100-80g}",
        "setup: {kernel: attention, seq: 4096, head_dim: 128, flash: true, block_rows: 128, attention_flops: causal}")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("id: kv-cache-kernels", "id: bad"), encoding="utf-8")
    code = main(["validate", str(bad)])
    out = capsys.readouterr().out
    assert code != 0 and "gpu" in out and "bad.yaml:" in out
