"""Worked derivations of the fit asks and inverse solves (memory-model.md sections 1, 9 and 16):
headroom, the largest batch, sequence and model, and the fewest GPUs.

An inverse solve has no closed form once activations or the KV cache enter (eager attention is
quadratic in s), so its derivation shows what makes the answer the answer: the memory budget, the
total at the answer (it fits), the total one step further (it does not), the bytes that step adds,
and the value, which is the one solve.py finds and `asks.evaluate` returns.
"""

from __future__ import annotations

from dataclasses import replace

from quizapp.memory.derivation import Derivation, Step, num
from quizapp.memory.notes import note


def usable_step(setup) -> Step:
    gpu = setup.gpu
    return Step("usable", float(gpu.capacity - setup.reserve), "bytes", "C − reserve",
                f"{num(gpu.capacity)} − {num(setup.reserve)}", note("derive.note.usable", gpu=gpu.name))


def _total(setup) -> float:
    from quizapp.memory.breakdown import breakdown

    return float(breakdown(setup).total)


def derive_headroom(setup) -> Derivation:
    from quizapp.memory.breakdown import breakdown

    b = breakdown(setup)
    usable = usable_step(setup)
    total = Step("total", float(b.total), "bytes", "Σ terms", " + ".join(num(t.bytes) for t in b.terms),
                 note("derive.note.total_terms"))
    last = Step("headroom", float(setup.gpu.capacity - setup.reserve - b.total), "bytes", "usable − total",
                f"{num(usable.value)} − {num(total.value)}", note("derive.note.headroom"))
    return Derivation("headroom", (usable, total, last), (note("derive.note.fit_source"),))


def _solve_steps(setup, field: str, value: int, unit: str) -> list[Step]:
    usable = usable_step(setup)
    steps = [usable]
    n = int(value)
    above = _total(replace(setup, **{field: n + 1}))
    if n >= 1:
        at = _total(replace(setup, **{field: n}))
        steps.append(Step(f"total_at_{field}", at, "bytes", f"total at {field} = {num(n)}",
                          f"{num(at)} ≤ {num(usable.value)}", note("derive.note.fits")))
        steps.append(Step(f"bytes_per_{field}", above - at, "bytes", f"total({num(n + 1)}) − total({num(n)})",
                          f"{num(above)} − {num(at)}", note(f"derive.note.per_{field}")))
    steps.append(Step(f"total_above_{field}", above, "bytes", f"total at {field} = {num(n + 1)}",
                      f"{num(above)} > {num(usable.value)}", note("derive.note.does_not_fit")))
    steps.append(Step(f"max_{field}", float(value), "count", f"largest {field} with total ≤ usable",
                      f"{num(n)} (fits) and {num(n + 1)} (does not)", note("derive.note.solve"), unit))
    return steps


def derive_max_batch(setup) -> Derivation:
    from quizapp.memory.solve import max_batch

    value = max_batch(setup, setup.gpu, setup.reserve)
    return Derivation("max_batch", tuple(_solve_steps(setup, "batch", value, "count")),
                      (note("derive.note.solve_monotone"),))


def derive_max_seq(setup) -> Derivation:
    from quizapp.memory.solve import max_seq

    value = max_seq(setup, setup.gpu, setup.reserve)
    return Derivation("max_seq", tuple(_solve_steps(setup, "seq", value, "tokens")),
                      (note("derive.note.solve_monotone"),))


def derive_max_params(setup) -> Derivation:
    from quizapp.memory.breakdown import breakdown
    from quizapp.memory.solve import max_model, max_params

    value = max_params(setup, setup.gpu, setup.reserve)
    usable = usable_step(setup)
    steps = [usable]
    model = max_model(setup, setup.gpu, setup.reserve) if value else None
    if model is not None:
        b = breakdown(replace(setup, model=model))
        per = b.total / model.params
        shape = (f"{model.layers} layers, {model.heads} heads, h = {num(model.hidden)}" if model.has_shape
                 else f"{num(model.params)} params")
        steps.append(Step("bytes_per_param_total", float(per), "number", "total / Ψ at the answer",
                          f"{num(b.total)} / {num(model.params)}", note("derive.note.per_param")))
        steps.append(Step("total", float(b.total), "bytes", f"total of the largest model ({shape})",
                          f"{num(b.total)} ≤ {num(usable.value)}", note("derive.note.fits")))
        formula = ("largest Ψ with total(Ψ) ≤ usable" if not model.has_shape
                   else "largest family member (heads, then layers) with total ≤ usable")
        sub = (f"≈ {num(usable.value)} / {num(per)}" if not model.has_shape else shape)
    else:
        formula, sub = "nothing fits", "0"
    steps.append(Step("max_params", float(value), "count", formula, sub,
                      note("derive.note.max_params_bare" if model is None or not model.has_shape
                           else "derive.note.max_params_family")))
    return Derivation("max_params", tuple(steps), (note("derive.note.solve_monotone"),))


def derive_min_gpus(setup) -> Derivation:
    from quizapp.memory.setup import SetupError
    from quizapp.memory.solve import min_gpus

    plan = min_gpus(setup)
    if plan is None:
        raise SetupError("gpus", "no number of GPUs fits this setup (the activations alone exceed the GPU)")
    usable = usable_step(setup)
    steps = [usable]
    if plan.strategy == "zero-3":
        base = replace(setup, zero=3, tp=1, pp=1, interleave=1)

        def trial(n: int):
            return replace(base, gpus=n, ep=setup.ep if n % setup.ep == 0 else 1)

        at = _total(trial(plan.gpus))
        steps.append(Step("total_at_gpus", at, "bytes", f"total per GPU, ZeRO-3 over N = {plan.gpus}",
                          f"{num(at)} ≤ {num(usable.value)}", note("derive.note.fits")))
        if plan.gpus > 1:
            try:
                below = _total(trial(plan.gpus - 1))
            except SetupError:
                below = None
            if below is not None:
                steps.append(Step("total_below_gpus", below, "bytes", f"total per GPU, ZeRO-3 over N = {plan.gpus - 1}",
                                  f"{num(below)} > {num(usable.value)}", note("derive.note.does_not_fit")))
        last = Step("min_gpus", float(plan.gpus), "count", "smallest N with total per GPU ≤ usable",
                    f"N = {plan.gpus}", note("derive.note.min_gpus_zero3"), "GPUs")
    else:
        trial = replace(setup, tp=plan.tp, pp=plan.pp, interleave=1, gpus=1, zero=0, ep=1)
        at = _total(trial)
        steps.append(Step("total_at_gpus", at, "bytes", f"total per GPU at t = {plan.tp}, pp = {plan.pp}",
                          f"{num(at)} ≤ {num(usable.value)}", note("derive.note.fits")))
        last = Step("min_gpus", float(plan.gpus), "count", "smallest t·pp that fits", f"{plan.tp} × {plan.pp}",
                    note("derive.note.min_gpus_tp_pp"), "GPUs")
    return Derivation("min_gpus", (*steps, last), (note("derive.note.solve_monotone"),))


DERIVE = {
    "headroom": derive_headroom,
    "max_batch": derive_max_batch,
    "max_seq": derive_max_seq,
    "max_params": derive_max_params,
    "min_gpus": derive_min_gpus,
}
