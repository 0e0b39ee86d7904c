"""Inverse solves: the largest micro-batch, sequence and model that fit a GPU.

Memory never decreases in batch, sequence or model size (a property test checks it), so each solve
brackets the answer by doubling and then bisects: a few dozen breakdowns, a few milliseconds. Where
memory is close to linear in the searched number (a bare parameter count, the batch, the sequence),
the line through two breakdowns first estimates the answer and the doubling starts there, so a
solve takes a handful of breakdowns; the estimate only saves work, the answer is exact either way.

The largest model: with a bare parameter count, the count itself is searched (architecture-free terms
only). With a shaped model, the setup's model is scaled within its family (models.scaled_family:
same head_dim, GQA ratio, ffn/hidden ratio, vocabulary and flags, layers growing with heads at the
model's aspect ratio): first the largest head count whose family member fits, then, at that width,
the largest number of layers that fits. The answer is that model's parameter count.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from quizapp.memory.activations import check_mla_training
from quizapp.memory.breakdown import NO_ADJUST, Adjust, breakdown
from quizapp.memory.fit import DEFAULT_RESERVE
from quizapp.memory.gpus import GPU
from quizapp.memory.models import ModelSpec, bare_model, scaled_family
from quizapp.memory.setup import Setup, SetupError

_CAP = 2**50


def _largest(fits: Callable[[int], bool], lo: int = 1, guess: int | None = None) -> int | None:
    """The largest n >= lo with fits(n) for a monotone predicate; lo − 1 if none; None if unbounded
    (fits(2**50)).

    `guess` (an estimate of the answer, or None) is where the search starts: it gallops away from
    the guess in doubling steps until the answer is bracketed, then bisects, so a good guess costs a
    few probes and a bad one about as many as no guess."""
    if not fits(lo):
        return lo - 1
    good, bad, step = lo, None, 1
    if guess is not None and guess > lo:
        guess = min(guess, _CAP)
        if fits(guess):
            good = guess
        else:
            bad = guess
            while True:  # gallop down from a guess that was too large
                probe = bad - step
                if probe <= good:
                    break
                if fits(probe):
                    good = probe
                    break
                bad, step = probe, step * 2
    if bad is None:
        while True:
            if good >= _CAP:
                return None
            probe = min(good + step, _CAP)
            if not fits(probe):
                bad = probe
                break
            good, step = probe, step * 2
    while bad - good > 1:
        mid = (good + bad) // 2
        if fits(mid):
            good = mid
        else:
            bad = mid
    return good

def _smallest(fits: Callable[[int], bool], lo: int = 1) -> int:
    """The smallest n >= lo with fits(n), for a predicate that stays true once true; some n must fit."""
    return _largest(lambda n: not fits(n), lo) + 1


def _linear_guess(total: Callable[[int], float], usable: float, a: int, b: int) -> int | None:
    """Where the line through (a, total(a)) and (b, total(b)) reaches `usable` (None if flat)."""
    ta, tb = total(a), total(b)
    if tb <= ta:
        return None
    return a + int((usable - ta) * (b - a) / (tb - ta))


def _remembered(total: Callable[[int], float]) -> Callable[[int], float]:
    """`total` with its results kept for one solve (the guess and the search probe the same points)."""
    seen: dict[int, float] = {}

    def measured(n: int) -> float:
        if n not in seen:
            seen[n] = total(n)
        return seen[n]

    return measured


def _usable(setup: Setup, gpu: GPU | None, reserve: int | None) -> float:
    gpu = gpu or setup.gpu
    if gpu is None:
        raise SetupError("gpu", "an inverse solve needs a GPU preset")
    return gpu.capacity - (setup.reserve if reserve is None else reserve)


def _solve(setup, gpu, reserve, field, adjust) -> int:
    if not setup.model.has_shape:
        what = "activations" if setup.training else "the KV cache"
        raise SetupError("model", f"the largest {field} depends on {what}, which need a shape, not a bare count")
    check_mla_training(setup)  # MLA training activations are out of scope: no largest value without them
    usable = _usable(setup, gpu, reserve)
    total = _remembered(lambda n: breakdown(replace(setup, **{field: n}), adjust).total)
    # Activations and the KV cache grow linearly in batch and (flash attention) sequence; eager
    # attention's quadratic term makes the guess overshoot, and the search gallops back down.
    guess = _linear_guess(total, usable, 1, 2) if total(1) <= usable else None
    found = _largest(lambda n: total(n) <= usable, guess=guess)
    if found is None:
        raise SetupError(field, "memory does not grow with it here, so there is no largest value")
    return found


def max_batch(setup: Setup, gpu: GPU | None = None, reserve: int | None = DEFAULT_RESERVE,
              adjust: Adjust = NO_ADJUST) -> int:
    """The largest micro-batch (inference: concurrent sequences) that fits; 0 if batch 1 does not."""
    return _solve(setup, gpu, reserve, "batch", adjust)


def max_seq(setup: Setup, gpu: GPU | None = None, reserve: int | None = DEFAULT_RESERVE,
            adjust: Adjust = NO_ADJUST) -> int:
    """The longest sequence (inference: context length) that fits; 0 if one token does not."""
    return _solve(setup, gpu, reserve, "seq", adjust)


def max_model(setup: Setup, gpu: GPU | None = None, reserve: int | None = DEFAULT_RESERVE,
              adjust: Adjust = NO_ADJUST) -> ModelSpec | None:
    """The largest model of the setup's family that fits (see the module docstring); None if none."""
    usable = _usable(setup, gpu, reserve)

    def fits_model(model: ModelSpec) -> bool:
        return breakdown(replace(setup, model=model), adjust).total <= usable

    base = setup.model
    if base.has_shape and (base.is_moe or base.is_mla):
        raise SetupError("model", "the largest model is searched within a dense family (scaled heads and layers); "
                                  "not modelled for mixture-of-experts or MLA models")
    if not base.has_shape:
        # Architecture-free terms are (nearly) linear in the count: usable / bytes-per-param, less
        # the fixed terms, starts the search.
        total = _remembered(lambda n: breakdown(replace(setup, model=bare_model(n)), adjust).total)
        guess = _linear_guess(total, usable, 1, 2**30) if total(1) <= usable else None
        count = _largest(lambda n: total(n) <= usable, guess=guess)
        if count is None:
            raise SetupError("model", "memory does not grow with the parameter count here")
        return bare_model(count, f"{count:,} params") if count else None
    heads = _largest(lambda n: fits_model(scaled_family(base, n)))
    if heads is None:
        raise SetupError("model", "memory does not grow with the model here")
    if heads == 0:
        if not fits_model(scaled_family(base, 1, layers=1)):
            return None
        heads = 1
    layers0 = scaled_family(base, heads).layers
    layers = _largest(lambda L: fits_model(scaled_family(base, heads, layers=L)), lo=layers0)
    if layers is None or layers < layers0:
        layers = layers0 if fits_model(scaled_family(base, heads)) else 1
    return scaled_family(base, heads, layers=layers)


def max_params(setup: Setup, gpu: GPU | None = None, reserve: int | None = DEFAULT_RESERVE,
               adjust: Adjust = NO_ADJUST) -> int:
    """The parameter count of max_model (0 if nothing fits)."""
    model = max_model(setup, gpu, reserve, adjust)
    return model.params if model else 0


# --- serving and cluster solves (issue 11) -----------------------------------------------------------
def max_concurrency_at_context(setup: Setup) -> int:
    """The most sequences of `seq` tokens the paged KV cache holds at once (0 if the weights leave no
    room); exact: n·⌈s/B⌉·B·kv fits the budget and n + 1 does not."""
    from quizapp.memory import formats
    from quizapp.memory import serving as S

    S.check_serving(setup)
    return S.max_concurrency(S.budget_of(setup), formats.kv_bytes_per_token_per_gpu(setup), setup.seq, setup.kv_block)


def max_context_at_concurrency(setup: Setup) -> int:
    """The longest context (a whole number of KV blocks) that `batch` concurrent sequences can each
    hold (0 if not one block each fits)."""
    from quizapp.memory import formats
    from quizapp.memory import serving as S

    S.check_serving(setup)
    m = setup.model
    if m.windowed:
        return _max_windowed_context(setup)
    return S.max_context(S.budget_of(setup), formats.kv_bytes_per_token_per_gpu(setup), setup.batch, setup.kv_block)


def _max_windowed_context(setup: Setup) -> int:
    """max_context for a windowed model (section 18): the largest whole number of KV blocks s with
    b · kv_bytes_per_sequence(s) / min(t, a_kv) <= budget (local layers stop growing at W), by bisection."""
    from quizapp.memory import formats
    from quizapp.memory import serving as S

    m, B = setup.model, setup.kv_block
    budget = S.budget_of(setup)
    div = formats.kv_divisor(m, setup.tp)

    def fits(blocks: int) -> bool:
        return setup.batch * formats.kv_bytes_per_sequence(m, setup.kv_dtype, blocks * B) / div <= budget

    if not m.n_global and fits(-(-m.window // B)):
        raise SetupError("model", f"every layer of {m.name} is windowed: each sequence's cache stops growing at "
                                  f"W = {m.window} tokens, so any context fits {setup.batch} sequences")
    if not fits(1):
        return 0
    low, high = 1, 2
    while fits(high):
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return low * B


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def min_tp(setup: Setup) -> int:
    """The smallest tensor-parallel degree t (a divisor of the heads) at which `batch` sequences of
    `seq` tokens fit the KV budget left by W/t on each GPU; 0 if no degree does."""
    from quizapp.memory import serving as S

    S.check_serving(setup)
    if setup.gpu is None:
        raise SetupError("gpu", "the smallest TP degree needs a GPU preset")
    for t in _divisors(setup.model.heads):
        trial = replace(setup, tp=t)
        if max_concurrency_at_context(trial) >= setup.batch:
            return t
    return 0


@dataclass(frozen=True)
class GpuPlan:
    """The smallest cluster that fits a training setup: `gpus` in all, as `dp` x `tp` x `pp`."""

    gpus: int
    strategy: str  # "zero-3" | "tp x pp"
    dp: int
    tp: int
    pp: int


def _fits_training(setup: Setup, usable: float) -> bool:
    return breakdown(setup).total <= usable


def min_gpus(setup: Setup) -> GpuPlan | None:
    """The fewest GPUs that fit a training setup per GPU; None if no number does.

    With tp or pp given (> 1): the smallest t·pp (t a divisor of the heads, pp at most the layers;
    fewer stages first on a tie) with one data-parallel replica. Otherwise ZeRO-3 over N data-parallel
    GPUs: memory per GPU falls with N towards the activations, so the smallest N that fits is
    bracketed by doubling and bisected (exact)."""
    if not setup.training:
        raise SetupError("method", "the smallest cluster is a training solve; for serving use min_tp")
    check_mla_training(setup)
    usable = _usable(setup, None, None)
    m = setup.model
    if setup.tp > 1 or setup.pp > 1:
        if not m.has_shape:
            raise SetupError("model", "tensor and pipeline parallelism need a shape, not a bare count")
        best: GpuPlan | None = None
        for t in _divisors(m.heads):
            if best is not None and t > best.gpus:
                break

            def fits_pp(pp: int, t: int = t) -> bool:
                return _fits_training(replace(setup, tp=t, pp=pp, interleave=1, gpus=1, zero=0, ep=1), usable)

            if not fits_pp(m.layers):
                continue
            # the fewest stages that fit (fits_pp is monotone in pp; never probed past one stage a layer)
            pp = _smallest(lambda n, fits=fits_pp, most=m.layers: n >= most or fits(n))
            if best is None or t * pp < best.gpus:
                best = GpuPlan(t * pp, "tp x pp", 1, t, pp)
        return best
    base = replace(setup, zero=3, tp=1, pp=1, interleave=1)

    def fits_n(n: int) -> bool:
        try:
            trial = replace(base, gpus=n, ep=setup.ep if n % setup.ep == 0 else 1)
        except SetupError:
            return False
        return _fits_training(trial, usable)

    if not fits_n(2**20):
        return None
    n = _smallest(fits_n)
    return GpuPlan(n, "zero-3", n, 1, 1)
