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
    """A misconception, by its stable id (JSON, statistics, YAML `extra_mistakes`); its words live in
    quizapp.words.mistakes (memory returns codes)."""

    id: str


MISTAKE_IDS = (
    # section 9
    "no-master", "no-gradients", "no-optimizer", "adam-16bit-states", "zero-single-gpu", "adam8bit-1byte",
    "no-activations", "bits-for-bytes", "gb-gib", "kv-one-layer", "no-kv", "full-activations-with-recompute",
    # section 16
    "total-as-active", "kv-all-heads", "decode-compute-bound", "allreduce-once", "bubble-over-total",
    # sections 17-18 (natural slips the spec's formulas expose)
    "kv-no-window", "attention-no-scores",
)
_LIST = tuple(Mistake(i) for i in MISTAKE_IDS)
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
    for mid, value in _section16_values(setup, ask):
        add(mid, value)
    for mid, value in _section18_values(setup, ask):
        add(mid, value)
    if ASKS[ask] == "bytes" and right:
        add("bits-for-bytes", right * 8)
        add("bits-for-bytes", right / 8)
        add("gb-gib", right * 2**30 / 1e9)
        add("gb-gib", right * 1e9 / 2**30)
    return found


_FLOPS_ASKS = ("flops_per_token", "decode_flops", "prefill_flops", "compute_budget_flops", "tokens_per_s", "train_days",
               "step_time", "mfu", "hfu", "ttft")
_MEMORY_ASKS = ("weights", "gradients", "master_weights", "optimizer_states", "model_states", "total", "kv_budget",
                "max_concurrency", "kv_tokens")
_KV_ASKS = ("kv_cache", "kv_bytes_per_token", "kv_tokens", "max_concurrency", "total", "max_context")
_DECODE_TIME_ASKS = ("decode_step_s", "decode_tokens_per_s", "per_seq_tokens_per_s")


def _section16_values(setup: Setup, ask: str) -> list[tuple[str, float]]:
    """(id, value) of section 16's misconceptions that apply to `ask`, each made by the calculator's
    own functions on a distorted input."""
    from quizapp.memory import comm, formats
    from quizapp.memory import serving as S

    out: list[tuple[str, float]] = []
    m = setup.model

    def attempt(mid: str, make) -> None:
        try:
            out.append((mid, float(make())))
        except (SetupError, ValueError, ZeroDivisionError):
            pass

    # total-as-active: FLOPs from every expert (top_k = E), or memory from only the active experts (E = k)
    if m.has_shape and m.is_moe:
        if ask in _FLOPS_ASKS:
            attempt("total-as-active", lambda: evaluate(replace(setup, model=replace(m, top_k=m.experts)), ask))
        if ask in _MEMORY_ASKS:
            active = replace(m, experts=m.top_k, router_bias=False)
            attempt("total-as-active", lambda: evaluate(replace(setup, model=active, ep=1), ask))
    # kv-all-heads: the cache of every query head (GQA: a_kv = a; MLA: K and V of all a heads)
    if not setup.training and m.has_shape and ask in _KV_ASKS and (m.is_mla or m.kv_heads != m.heads):
        def all_heads_kv() -> float:
            p = formats.kv_bytes_per_element(setup.kv_dtype)
            if m.is_mla:
                elements = m.layers * m.heads * (m.qk_nope_dim + m.qk_rope_dim + m.v_head_dim)
            else:
                elements = 2 * m.layers * m.heads * m.head_dim
                if m.windowed:  # the same window, every head: the average at seq (formats.kv_bytes_per_token_per_gpu)
                    elements = elements * m.cached_tokens(setup.seq) / (m.layers * setup.seq)
            return elements * p / min(setup.tp, m.heads)

        def with_all_heads() -> float:
            kv, right_kv = all_heads_kv(), formats.kv_bytes_per_token_per_gpu(setup)
            if ask == "kv_bytes_per_token":
                return kv
            if ask in ("kv_cache", "total"):
                return evaluate(setup, ask) + (kv - right_kv) * setup.batch * setup.seq
            budget = S.budget_of(setup)
            if ask == "kv_tokens":
                return S.kv_tokens(budget, kv, setup.kv_block)
            if ask == "max_concurrency":
                return S.max_concurrency(budget, kv, setup.seq, setup.kv_block)
            return S.max_context(budget, kv, setup.batch, setup.kv_block)

        attempt("kv-all-heads", with_all_heads)
    # decode-compute-bound: the decode step from FLOPs / peak alone
    if ask in _DECODE_TIME_ASKS:
        def compute_only() -> float:
            d = S.serving_figures(setup).decode
            return {"decode_step_s": d.compute_s, "decode_tokens_per_s": d.batch / d.compute_s,
                    "per_seq_tokens_per_s": 1 / d.compute_s}[ask]

        attempt("decode-compute-bound", compute_only)
    # allreduce-once: every all-reduce counted as sending M
    if setup.training and ask in ("comm_dp_bytes", "comm_tp_bytes", "comm_total_bytes", "comm_total_s"):
        def once() -> float:
            traffic = comm.communication(setup, naive_all_reduce=True)
            if ask == "comm_total_bytes":
                return traffic.total_bytes
            if ask == "comm_total_s":
                return traffic.total_s
            return traffic.of(ask.removeprefix("comm_").removesuffix("_bytes")).bytes

        attempt("allreduce-once", once)
    # bubble-over-total: (pp−1)/(v·m + pp−1) where (pp−1)/(v·m) is asked
    if ask == "bubble" and setup.training and setup.pp > 1:
        attempt("bubble-over-total", lambda: comm.bubble_of_step(setup.pp, setup.microbatches, setup.interleave))
    return out


_WINDOW_ASKS = ("kv_cache", "kv_bytes_per_token", "kv_tokens", "max_concurrency", "total", "decode_bytes",
                 "decode_step_s", "decode_tokens_per_s", "per_seq_tokens_per_s", "kv_ratio")


def _section18_values(setup: Setup, ask: str) -> list[tuple[str, float]]:
    """kv-no-window: a windowed model's cache (or what it bounds) with every layer caching the whole
    context; attention-no-scores: standard attention's bytes without S and P going through HBM."""
    out: list[tuple[str, float]] = []
    m = setup.model
    if m.has_shape and m.windowed and ask in _WINDOW_ASKS:
        full = replace(m, window=0, global_every=0, local_layers=0)
        try:
            out.append(("kv-no-window", float(evaluate(replace(setup, model=full), ask))))
        except (SetupError, ValueError, ZeroDivisionError):
            pass
    kernel = setup.kernel
    if (kernel is not None and kernel.kind == "attention" and not kernel.flash
            and ask in ("kernel_bytes", "intensity", "kernel_time")):
        from quizapp.memory.asks import derive

        out.append(("attention-no-scores", float(derive(setup, ask, naive_scores=True).value)))
    return out


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
