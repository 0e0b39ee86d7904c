"""The common-mistake catalogue (memory-model.md section 9): name the misconception behind a number.

Each misconception's value is computed by the same calculator on a distorted setup (a term left
out, a wrong byte count, ZeRO applied on one GPU) or by a unit slip applied to the right answer; a
wrong answer is matched to the closest one within tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Mapping

from quizapp.memory.asks import ASKS, check_ask, evaluate
from quizapp.memory.breakdown import Adjust
from quizapp.memory.setup import Setup, SetupError


@dataclass(frozen=True)
class Mistake:
    id: str
    label_en: str
    label_zh: str


_LIST = (
    Mistake("no-master", "looks like the fp32 master copy was left out", "看起来漏算了 fp32 主权重（master weights）"),
    Mistake("no-gradients", "looks like the gradients were left out", "看起来漏算了梯度"),
    Mistake("no-optimizer", "looks like the optimizer states were left out", "看起来漏算了优化器状态"),
    Mistake("adam-16bit-states", "looks like Adam's m and v were counted in 16-bit instead of fp32",
            "看起来把 Adam 的 m 和 v 按 16 位计算了（应为 fp32）"),
    Mistake("zero-single-gpu", "looks like ZeRO was assumed to shard on a single GPU (with N = 1 it saves nothing)",
            "看起来以为 ZeRO 在单卡上也能切分（N = 1 时不省任何显存）"),
    Mistake("adam8bit-1byte", "looks like 8-bit Adam was counted as 1 byte per parameter in all (m and v are 1 byte each)",
            "看起来把 8-bit Adam 算成每参数共 1 字节（m 和 v 各 1 字节）"),
    Mistake("no-activations", "looks like the activations were left out", "看起来漏算了激活值"),
    Mistake("bits-for-bytes", "looks like bits and bytes were mixed up (a factor of 8)", "看起来混淆了比特和字节（差 8 倍）"),
    Mistake("gb-gib", "looks like GB (10^9) and GiB (2^30) were mixed up", "看起来混淆了 GB（10^9）和 GiB（2^30）"),
    Mistake("kv-one-layer", "looks like the KV cache was counted for one layer only, or for K only",
            "看起来 KV cache 只算了一层，或只算了 K"),
    Mistake("no-kv", "looks like the KV cache was left out", "看起来漏算了 KV cache"),
    Mistake("full-activations-with-recompute", "looks like gradient checkpointing was ignored (activations without recomputation)",
            "看起来忽略了梯度检查点（按不重计算的激活值算了）"),
)
MISTAKES: Mapping[str, Mistake] = MappingProxyType({m.id: m for m in _LIST})


def _variants(setup: Setup, ask: str) -> list[tuple[str, Setup, Adjust]]:
    """(mistake id, distorted setup, adjustment) for every calculator-made misconception."""
    out: list[tuple[str, Setup, Adjust]] = []
    if setup.training:
        # first: on an exact tie (ZeRO-1 over N = 3 equals "no optimizer" for mixed AdamW) the
        # misconception the setup is about wins
        if setup.zero and setup.gpus == 1:
            out += [("zero-single-gpu", replace(setup, gpus=n), Adjust()) for n in range(2, 9)]
        if setup.mixed:
            out.append(("no-master", setup, Adjust(zero=frozenset({"master_weights"}))))
        out.append(("no-gradients", setup, Adjust(zero=frozenset({"gradients"}))))
        if setup.optimizer not in ("sgd",):
            out.append(("no-optimizer", setup, Adjust(zero=frozenset({"optimizer_states"}))))
        if setup.optimizer in ("adam", "adamw") and setup.precision != "bf16":
            out.append(("adam-16bit-states", setup, Adjust(state_bytes=4)))
        if setup.optimizer == "adamw-8bit":
            out.append(("adam8bit-1byte", setup, Adjust(state_bytes=1)))
        if setup.model.has_shape:
            out.append(("no-activations", setup, Adjust(zero=frozenset({"activations"}))))
            if setup.recompute != "none":
                out.append(("full-activations-with-recompute", replace(setup, recompute="none"), Adjust()))
    elif setup.model.has_shape:
        out.append(("kv-one-layer", setup, Adjust(kv_divisor=setup.model.layers)))
        out.append(("kv-one-layer", setup, Adjust(kv_divisor=2)))
        out.append(("no-kv", setup, Adjust(zero=frozenset({"kv_cache"}))))
    return out


def mistake_candidates(setup: Setup, ask: str) -> list[tuple[Mistake, float]]:
    """Every applicable (misconception, value) for `ask`; a misconception may give several values
    (bits x8 or /8, ZeRO over N = 2..8, ...). Values equal to the right answer are left out."""
    check_ask(setup, ask)
    right = evaluate(setup, ask)
    found: list[tuple[Mistake, float]] = []

    def add(mid: str, value: float) -> None:
        if math.isfinite(value) and not math.isclose(value, right, rel_tol=1e-9, abs_tol=1e-12):
            if all(not (m.id == mid and math.isclose(v, value, rel_tol=1e-12)) for m, v in found):
                found.append((MISTAKES[mid], value))

    for mid, variant, adjust in _variants(setup, ask):
        try:
            add(mid, evaluate(variant, ask, adjust))
        except SetupError:
            continue
    if ASKS[ask] == "bytes" and right:
        add("bits-for-bytes", right * 8)
        add("bits-for-bytes", right / 8)
        add("gb-gib", right * 2**30 / 1e9)
        add("gb-gib", right * 1e9 / 2**30)
    return found


def mistake_values(setup: Setup, ask: str) -> dict[str, float]:
    """One value per applicable misconception id: the first variant of mistake_candidates (bits: x8,
    gb-gib: x2^30/10^9, kv-one-layer: / L, zero-single-gpu: N = 2)."""
    values: dict[str, float] = {}
    for mistake, value in mistake_candidates(setup, ask):
        values.setdefault(mistake.id, value)
    return values


def _close(value: float, reference: float, rel_tol: float) -> bool:
    if reference == 0:
        return value == 0
    return abs(value - reference) <= rel_tol * abs(reference)


def _distance(value: float, reference: float) -> float:
    if reference == 0:
        return 0.0 if value == 0 else math.inf
    return abs(value - reference) / abs(reference)


def diagnose(setup: Setup, ask: str, value: float, rel_tol: float = 0.10) -> tuple[Mistake, float] | None:
    """The misconception whose value is within rel_tol of `value` and closest to it, if it is closer
    than the right answer; gb-gib only when `value` is outside the tolerance of the right answer."""
    right = evaluate(setup, ask)
    near_right = _close(value, right, rel_tol)
    best: tuple[Mistake, float] | None = None
    best_distance = _distance(value, right)
    for mistake, candidate in mistake_candidates(setup, ask):
        if mistake.id == "gb-gib" and near_right:
            continue
        if not _close(value, candidate, rel_tol):
            continue
        d = _distance(value, candidate)
        if d < best_distance:
            best, best_distance = (mistake, candidate), d
    return best
