"""Worked derivations of the counting and time asks (memory-model.md sections 7 and 16): parameters,
FLOPs per token, step time, MFU and HFU, tokens per second, the compute budget, Chinchilla's tokens
and training days.

The last step's value is what `asks.evaluate` returns, from the same functions (compute.*,
throughput.*, the breakdown); the steps before it show the formula with the numbers.
"""

from __future__ import annotations

from quizapp.memory.derivation import Derivation, Step, num
from quizapp.memory.notes import note


# --- counts -------------------------------------------------------------------------------------------
def derive_params(setup) -> Derivation:
    from quizapp.memory.embeddings import embedding_params

    m = setup.model
    total = Step("params", float(m.params), "count", "Ψ", num(m.params), note("derive.note.params", model=m.name))
    if setup.embeddings:
        return Derivation("params", (total,))
    emb = embedding_params(m)
    formula = "V·h·(1 if tied else 2)" + (" + n_pos·h" if m.positions else "")
    sub = f"{num(m.vocab)} × {num(m.hidden)} × {1 if m.tied else 2}" + (
        f" + {num(m.positions)} × {num(m.hidden)}" if m.positions else "")
    embed = Step("embedding_params", float(emb), "count", formula, sub, note("derive.note.embeddings"))
    last = Step("params", float(m.params - emb), "count", "Ψ − embeddings", f"{num(m.params)} − {num(emb)}",
                note("derive.note.non_embedding"))
    return Derivation("params", (Step("params_total", total.value, "count", "Ψ", num(m.params), total.note), embed, last))


def derive_active_params(setup) -> Derivation:
    m = setup.model
    if not (m.has_shape and m.is_moe):
        return Derivation("active_params", (Step("active_params", float(m.active_params), "count", "Ψ (dense: every "
                                                 "parameter is used)", num(m.params), note("derive.note.dense_active")),))
    total = Step("params_total", float(m.params), "count", "Ψ", num(m.params), note("derive.note.params", model=m.name))
    routed = m.routed_expert_params
    one = routed // m.experts
    experts = Step("expert_params", float(one), "count", "Ψ_routed / E", f"{num(routed)} / {m.experts}",
                   note("derive.note.expert_params", layers=m.moe_layers))
    last = Step("active_params", float(m.active_params), "count", "Ψ − (E − k)·Ψ_routed/E",
                f"{num(m.params)} − ({m.experts} − {m.top_k}) × {num(one)}", note("derive.note.active"))
    return Derivation("active_params", (total, experts, last))


def derive_trainable_params(setup) -> Derivation:
    from quizapp.memory.breakdown import breakdown, lora_params

    b = breakdown(setup)
    m = setup.model
    value = float(b.trainable_params)
    if setup.method in ("lora", "qlora"):
        r = setup.lora_rank
        chosen = [(d_in, d_out) for name, d_in, d_out in m.block_matrices()
                  if setup.lora_targets == "all-linear" or name in ("q", "v")]
        terms = " + ".join(f"{r} × ({num(d_in)} + {num(d_out)})" for d_in, d_out in chosen)
        lora = Step("trainable_params", float(lora_params(m, r, setup.lora_targets)), "count",
                    "L · Σ_adapted r·(d_in + d_out)", f"{m.layers} × ({terms})", note("derive.note.lora"))
        if lora.value == value:
            return Derivation("trainable_params", (lora,))
        last = Step("trainable_params", value, "count", "trainable parameters of the trained models", num(value),
                    note("derive.note.full_trainable", method=setup.method))
        return Derivation("trainable_params", (Step("lora_params", lora.value, "count", lora.formula,
                                                    lora.substituted, lora.note), last))
    else:
        last = Step("trainable_params", value, "count", "Ψ (every parameter trained)", num(value),
                    note("derive.note.full_trainable", method=setup.method))
    return Derivation("trainable_params", (last,))


def derive_bytes_per_param(setup) -> Derivation:
    from quizapp.memory.breakdown import breakdown

    b = breakdown(setup)
    states = Step("model_states", float(b.model_states), "bytes", "weights + gradients + master + optimizer",
                  " + ".join(num(t.bytes) for t in b.terms if t.name in ("weights", "gradients", "master_weights",
                                                                       "optimizer_states")),
                  note("derive.note.model_states"))
    params = Step("params", float(b.params), "count", "Ψ", num(b.params), note("derive.note.params", model=setup.model.name))
    last = Step("bytes_per_param", float(b.model_states / b.params), "number", "model states / Ψ",
                f"{num(states.value)} / {num(params.value)}", note("derive.note.bytes_per_param"))
    return Derivation("bytes_per_param", (states, params, last))


# --- FLOPs --------------------------------------------------------------------------------------------
def _attention_step(setup) -> Step:
    from quizapp.memory.compute import attention_flops_per_token, attention_share

    m = setup.model
    share = attention_share(setup)
    a = attention_flops_per_token(m, setup.seq) * share
    if not m.has_shape:
        return Step("attention_flops", 0.0, "flops", "A = 0 (a bare count has no shape)", "0",
                    note("derive.note.no_attention"))
    if m.is_mla:
        formula = "2·L·a·(d_n + d_r + d_v)·s × share"
        sub = f"2 × {m.layers} × {m.heads} × ({m.qk_nope_dim} + {m.qk_rope_dim} + {m.v_head_dim}) × {num(setup.seq)} × {num(share)}"
    else:
        formula = "4·a·d·Σ_l min(s, W_l) × share" if m.windowed else "4·L·a·d·s × share"
        cached = m.cached_tokens(setup.seq)
        sub = (f"4 × {m.heads} × {m.head_dim} × {num(cached)} × {num(share)}" if m.windowed else
               f"4 × {m.layers} × {m.heads} × {m.head_dim} × {num(setup.seq)} × {num(share)}")
    return Step("attention_flops", float(a), "flops", formula, sub,
                note("derive.note.attention_share", convention=setup.attention_flops))


def _n_active(setup) -> int:
    m = setup.model
    return m.active_params if m.has_shape else m.params


def flops_steps(setup, recompute: bool = True) -> list[Step]:
    """The attention term A, then FLOPs per token (executed; `recompute` False: the model's, for MFU)."""
    from quizapp.memory.compute import flops_per_token, model_flops_per_token

    attn = _attention_step(setup)
    n, a = _n_active(setup), num(attn.value)
    # no attention term (a bare count, or attention_flops none): the formula without A, no A row
    lead, plus = ([attn], lambda k: f" + {k}A".replace(" + 1A", " + A")) if attn.value else ([], lambda k: "")
    sub = (lambda k: f" + {k} × {a}".replace(" + 1 × ", " + ")) if attn.value else (lambda k: "")
    if not setup.training:
        return [*lead, Step("flops_per_token", flops_per_token(setup), "flops", "2·N" + plus(1),
                            f"2 × {num(n)}" + sub(1), note("derive.note.flops_inference"))]
    if recompute and setup.recompute == "full":
        return [*lead, Step("flops_per_token", flops_per_token(setup), "flops", "8·N" + plus("4·") + " (full recompute)",
                            f"8 × {num(n)}" + sub(4), note("derive.note.flops_recompute"))]
    value = model_flops_per_token(setup) if not recompute else flops_per_token(setup)
    name = "flops_per_token" if recompute else "model_flops_per_token"
    return [*lead, Step(name, value, "flops", "6·N" + plus("3·"), f"6 × {num(n)}" + sub(3),
                        note("derive.note.flops_training"))]


def derive_flops_per_token(setup) -> Derivation:
    return Derivation("flops_per_token", tuple(flops_steps(setup)), (note("derive.note.flops_source"),))


def _step_time_steps(setup) -> tuple[list[Step], object]:
    from quizapp.memory.comm import bubble
    from quizapp.memory.compute import peak_tflops, step_time_parts

    parts = step_time_parts(setup)
    flops = flops_steps(setup)
    F = flops[-1].value
    peak = peak_tflops(setup) * 1e12
    mb, tokens = setup.microbatches, setup.tokens
    ideal = Step("compute_time", parts.compute, "seconds", "F·m·b·s / (t·pp) / (peak·HFU)",
                 f"{num(F)} × {mb} × {num(tokens)} / ({setup.tp} × {setup.pp}) / ({num(peak)} × {num(setup.mfu)})",
                 note("derive.note.step_compute", gpu=setup.gpu.name))
    steps = [*flops, ideal]
    if setup.pp > 1:
        steps.append(Step("bubble_time", parts.bubble, "seconds", "compute time × (p − 1)/(v·m)",
                          f"{num(parts.compute)} × {num(bubble(setup.pp, mb, setup.interleave))}",
                          note("derive.note.bubble_1f1b")))
    if parts.offload:
        steps.append(Step("offload_time", parts.offload, "seconds", "4·Ψ_trainable/shards / host link",
                          f"{num(parts.offload * setup.gpu.host_link)} / {num(setup.gpu.host_link)}",
                          note("derive.note.offload")))
    return steps, parts


def derive_step_time(setup) -> Derivation:
    from quizapp.memory.compute import step_time

    steps, parts = _step_time_steps(setup)
    if len(steps) == len(flops_steps(setup)) + 1:  # compute time only
        last = Step("step_time", step_time(setup, setup.gpu), "seconds", steps[-1].formula, steps[-1].substituted,
                    steps[-1].note)
        steps = steps[:-1]
    else:
        last = Step("step_time", step_time(setup, setup.gpu), "seconds", "compute + bubble + offload",
                    f"{num(parts.compute)} + {num(parts.bubble)} + {num(parts.offload)}", note("derive.note.step_total"))
    return Derivation("step_time", (*steps, last), (note("derive.note.step_no_comm"),))


def derive_utilisation(setup, ask: str) -> Derivation:
    from quizapp.memory import throughput
    from quizapp.memory.serving import peak_flops

    model_u, hardware_u = throughput.utilisation(setup)
    value = float(model_u if ask == "mfu" else hardware_u)
    if setup.tokens_per_s is not None:
        flops = flops_steps(setup, recompute=ask == "hfu")
        peak = peak_flops(setup)
        n = setup.world_size
        peak_step = Step("peak_flops", peak, "flops", "peak", num(peak),
                         note("derive.note.peak", gpu=setup.gpu.name, dtype=setup.compute))
        last = Step(ask, value, "ratio", "tokens/s · F / (N_gpus · peak)",
                    f"{num(setup.tokens_per_s)} × {num(flops[-1].value)} / ({n} × {num(peak)})",
                    note(f"derive.note.{ask}_measured"))
        return Derivation(ask, (*flops, peak_step, last), (note("derive.note.mfu_source"),))
    if ask == "hfu":
        return Derivation(ask, (Step("hfu", value, "ratio", "HFU = the utilisation setting", num(setup.mfu),
                                     note("derive.note.hfu_setting")),), (note("derive.note.mfu_source"),))
    model = flops_steps(setup, recompute=False)
    executed = flops_steps(setup)
    steps = [*model, executed[-1]]
    last = Step("mfu", value, "ratio", "HFU × model FLOPs / executed FLOPs",
                f"{num(setup.mfu)} × {num(model[-1].value)} / {num(executed[-1].value)}", note("derive.note.mfu_from_hfu"))
    return Derivation(ask, (*steps, last), (note("derive.note.mfu_source"),))


def derive_tokens_per_s(setup) -> Derivation:
    from quizapp.memory.throughput import training_tokens_per_s

    steps, parts = _step_time_steps(setup)
    total = Step("step_time", parts.total, "seconds", "compute + bubble + offload",
                 f"{num(parts.compute)} + {num(parts.bubble)} + {num(parts.offload)}", note("derive.note.step_total"))
    tokens = Step("tokens_per_step", float(parts.tokens), "count", "N·m·b·s",
                  f"{num(setup.gpus)} × {setup.microbatches} × {num(setup.batch)} × {num(setup.seq)}",
                  note("derive.note.tokens_per_step"), "tokens")
    last = Step("tokens_per_s", float(training_tokens_per_s(setup)), "rate", "tokens per step / step time",
                f"{num(parts.tokens)} / {num(parts.total)}", note("derive.note.tokens_per_s"))
    return Derivation("tokens_per_s", (*steps, total, tokens, last), (note("derive.note.step_no_comm"),))


def derive_compute_budget(setup) -> Derivation:
    from quizapp.memory.throughput import attention_budget_per_token, setup_compute_budget

    value = float(setup_compute_budget(setup))
    n = setup.model.active_params
    attn = attention_budget_per_token(setup)
    D = setup.train_tokens
    active = Step("active_params", float(n), "count", "N (active parameters)", num(n), note("derive.note.active_budget"))
    steps = [active]
    if attn:
        steps.append(Step("attention_flops", float(attn), "flops", "3·A per training token", num(attn),
                          note("derive.note.attention_share", convention=setup.attention_flops)))
        last = Step("compute_budget_flops", value, "flops", "C = (6·N + 3·A)·D", f"(6 × {num(n)} + {num(attn)}) × {num(D)}",
                    note("derive.note.budget"))
    else:
        last = Step("compute_budget_flops", value, "flops", "C = 6·N·D", f"6 × {num(n)} × {num(D)}",
                    note("derive.note.budget"))
    return Derivation("compute_budget_flops", (*steps, last), (note("derive.note.budget_source"),))


def derive_chinchilla(setup) -> Derivation:
    from quizapp.memory.throughput import CHINCHILLA_TOKENS_PER_PARAM, setup_chinchilla_tokens

    n = setup.model.params
    return Derivation("chinchilla_tokens", (Step("chinchilla_tokens", float(setup_chinchilla_tokens(setup)), "count",
                                                 "D = 20·N", f"{CHINCHILLA_TOKENS_PER_PARAM} × {num(n)}",
                                                 note("derive.note.chinchilla"), "tokens"),),
                      (note("derive.note.chinchilla_source"),))


def derive_train_days(setup) -> Derivation:
    from quizapp.memory.throughput import SECONDS_PER_DAY, setup_train_days

    rate = derive_tokens_per_s(setup)
    D = setup.train_tokens
    value = float(setup_train_days(setup) * SECONDS_PER_DAY)
    # the step's parts are in the rate's numbers; shown in days they would read 0.00000252 d
    shown = [s for s in rate.steps if s.kind != "seconds"]
    last = Step("train_days", value, "seconds", "D / tokens per second / 86,400 s per day",
                f"{num(D)} / {num(rate.value)} / 86,400", note("derive.note.train_seconds"))
    return Derivation("train_days", (*shown, last), rate.notes)


DERIVE = {
    "params": derive_params,
    "active_params": derive_active_params,
    "trainable_params": derive_trainable_params,
    "bytes_per_param": derive_bytes_per_param,
    "flops_per_token": derive_flops_per_token,
    "step_time": derive_step_time,
    "mfu": lambda setup: derive_utilisation(setup, "mfu"),
    "hfu": lambda setup: derive_utilisation(setup, "hfu"),
    "tokens_per_s": derive_tokens_per_s,
    "compute_budget_flops": derive_compute_budget,
    "chinchilla_tokens": derive_chinchilla,
    "train_days": derive_train_days,
}
