"""Worked derivations of the serving asks (memory-model.md section 13): the paged KV budget, the
tokens and sequences it holds, the decode and prefill rooflines and the critical batch.

Each `derive_*` returns a `Derivation` whose steps go from the inputs to the asked value: formula in
symbols, the same with the numbers, the value. The last step's value is the one `asks.evaluate`
returns, taken from the same functions (serving.serving_figures, solve.*), never recomputed another
way; the steps before it show where it comes from.
"""

from __future__ import annotations

from quizapp.memory.derivation import Derivation, Step, num
from quizapp.memory.notes import note

SOURCE_VLLM = "vLLM"


def _figures(setup):
    from quizapp.memory.serving import serving_figures

    return serving_figures(setup)


# --- the inputs every serving figure shares ---------------------------------------------------------
def kv_steps(setup) -> list[Step]:
    """KV bytes per token of the whole model, then per GPU (÷ min(t, a_kv)) when that differs; the
    last step is named kv_bytes_per_token and is the per-GPU figure the serving asks use."""
    from quizapp.memory import formats

    m = setup.model
    p = num(formats.KV_BYTES[setup.kv_dtype])
    per_gpu = formats.kv_bytes_per_token_per_gpu(setup)
    whole = formats.kv_bytes_per_token(m, setup.kv_dtype)
    if m.is_mla:
        formula, sub = "L·(r_kv + d_r)·p_kv", f"{m.layers} × ({m.kv_lora_rank} + {m.qk_rope_dim}) × {p}"
    else:
        formula, sub = "2·L·a_kv·d·p_kv", f"2 × {m.layers} × {m.kv_heads} × {m.head_dim} × {p}"
    steps = []
    if m.windowed:
        seq_bytes = formats.kv_bytes_per_sequence(m, setup.kv_dtype, setup.seq)
        steps.append(Step("kv_bytes_per_sequence", float(seq_bytes), "bytes", "2·a_kv·d·Σ_l min(s, W_l)·p_kv",
                          f"2 × {m.kv_heads} × {m.head_dim} × {num(m.cached_tokens(setup.seq))} × {p}",
                          note("derive.note.kv_windowed", window=m.window)))
        whole = seq_bytes / setup.seq
        formula, sub = "kv_bytes_per_sequence / s", f"{num(seq_bytes)} / {num(setup.seq)}"
    div = formats.kv_divisor(m, setup.tp)
    if div == 1:
        steps.append(Step("kv_bytes_per_token", float(per_gpu), "bytes", formula, sub,
                          note("calc.extra.kv_per_token", dtype=setup.kv_dtype)))
        return steps
    steps.append(Step("kv_bytes_per_token_model", float(whole), "bytes", formula, sub,
                      note("calc.extra.kv_per_token", dtype=setup.kv_dtype)))
    steps.append(Step("kv_bytes_per_token", float(per_gpu), "bytes", "kv / min(t, a_kv)",
                      f"{num(whole)} / min({setup.tp}, {m.kv_heads})", note("derive.note.kv_split")))
    return steps


def weights_step(setup) -> Step:
    from quizapp.memory import formats

    stored = formats.setup_weights(setup)
    t = setup.tp
    if t == 1:
        return Step("weights_per_gpu", float(stored.total), "bytes", "W", num(stored.total),
                    note("derive.note.weights_format", fmt=stored.fmt))
    return Step("weights_per_gpu", float(stored.total / t), "bytes", "W / t", f"{num(stored.total)} / {t}",
                note("derive.note.weights_format", fmt=stored.fmt))


def budget_step(setup, weights: Step) -> Step:
    f = _figures(setup)
    gpu = setup.gpu
    fixed = setup.reserve + setup.overhead
    return Step("kv_budget", float(f.budget), "bytes", "u·C − W/t − reserve",
                f"{num(setup.gpu_util)} × {num(gpu.capacity)} − {num(weights.value)} − {num(fixed)}",
                note("derive.note.kv_budget", gpu=gpu.name, source=SOURCE_VLLM))


def _budget_steps(setup) -> list[Step]:
    w = weights_step(setup)
    return [w, budget_step(setup, w)]


# --- capacity -----------------------------------------------------------------------------------------
def derive_kv_bytes_per_token(setup) -> Derivation:
    return Derivation("kv_bytes_per_token", tuple(kv_steps(setup)))


def derive_kv_budget(setup) -> Derivation:
    return Derivation("kv_budget", tuple(_budget_steps(setup)), (note("derive.note.serving_bound"),))


def derive_kv_tokens(setup) -> Derivation:
    f = _figures(setup)
    kv, budget = kv_steps(setup), _budget_steps(setup)
    B = setup.kv_block
    last = Step("kv_tokens", float(f.kv_tokens), "count", "⌊budget / (B·kv)⌋·B",
                f"⌊{num(budget[-1].value)} / ({B} × {num(kv[-1].value)})⌋ × {B}",
                note("derive.note.kv_tokens", source=SOURCE_VLLM), "tokens")
    return Derivation("kv_tokens", (*kv, *budget, last), (note("derive.note.serving_bound"),))


def derive_max_concurrency(setup) -> Derivation:
    from quizapp.memory.serving import blocks_for

    f = _figures(setup)
    kv, budget = kv_steps(setup), _budget_steps(setup)
    B, s = setup.kv_block, setup.seq
    blocks = blocks_for(s, B)
    per_seq = Step("kv_per_sequence", float(blocks * B * kv[-1].value), "bytes", "⌈s/B⌉·B·kv",
                   f"⌈{num(s)}/{B}⌉ × {B} × {num(kv[-1].value)}", note("derive.note.kv_blocks", block=B))
    last = Step("max_concurrency", float(f.max_concurrency), "count", "⌊budget / (⌈s/B⌉·B·kv)⌋",
                f"⌊{num(budget[-1].value)} / {num(per_seq.value)}⌋", note("derive.note.max_concurrency"), "count")
    return Derivation("max_concurrency", (*kv, *budget, per_seq, last), (note("derive.note.serving_bound"),))


def derive_max_context(setup) -> Derivation:
    from quizapp.memory.solve import max_context_at_concurrency

    kv, budget = kv_steps(setup), _budget_steps(setup)
    B, b = setup.kv_block, setup.batch
    value = float(max_context_at_concurrency(setup))
    if setup.model.windowed:
        last = Step("max_context", value, "count", "largest s (whole blocks) with b·kv_sequence(s)/min(t, a_kv) ≤ budget",
                    f"b = {b}, budget = {num(budget[-1].value)}", note("derive.note.max_context_windowed"), "tokens")
        return Derivation("max_context", (*budget, last), (note("derive.note.serving_bound"),))
    last = Step("max_context", value, "count", "⌊budget / (b·B·kv)⌋·B",
                f"⌊{num(budget[-1].value)} / ({num(b)} × {B} × {num(kv[-1].value)})⌋ × {B}",
                note("derive.note.max_context"), "tokens")
    return Derivation("max_context", (*kv, *budget, last), (note("derive.note.serving_bound"),))


def derive_min_tp(setup) -> Derivation:
    from dataclasses import replace

    from quizapp.memory.solve import _divisors, max_concurrency_at_context, min_tp

    value = min_tp(setup)
    steps: list[Step] = []
    tried = [t for t in _divisors(setup.model.heads) if value == 0 or t <= value]
    for t in tried[-2:] if value else tried[-1:]:
        trial = replace(setup, tp=t)
        n = max_concurrency_at_context(trial)
        steps.append(Step("concurrency_at_tp", float(n), "count", f"max_concurrency at t = {t}",
                          f"{num(n)} {'≥' if n >= setup.batch else '<'} b = {setup.batch}",
                          note("derive.note.min_tp_try", t=t), "count"))
    steps.append(Step("min_tp", float(value), "count", "smallest t | a with max_concurrency(t) ≥ b",
                      f"b = {setup.batch}, s = {num(setup.seq)}", note("derive.note.min_tp"), "GPUs"))
    return Derivation("min_tp", tuple(steps), (note("derive.note.serving_bound"),))


# --- rooflines ------------------------------------------------------------------------------------------
def _decode_weight_step(setup) -> Step:
    from quizapp.memory import formats
    from quizapp.memory.serving import routed_weight_bytes

    m = setup.model
    stored = formats.setup_weights(setup)
    if not m.is_moe:
        return Step("weights_read", float(stored.total), "bytes", "W", num(stored.total),
                    note("derive.note.weights_format", fmt=stored.fmt))
    read = routed_weight_bytes(stored.total, stored.per_expert, m.experts, m.moe_layers, setup.batch, m.top_k)
    return Step("weights_read", float(read), "bytes", "W − L_moe·(E − min(E, b·k))·W_expert",
                f"{num(stored.total)} − {m.moe_layers} × ({m.experts} − min({m.experts}, {num(setup.batch)} × {m.top_k}))"
                f" × {num(stored.per_expert)}", note("derive.note.moe_read"))


def _decode_bytes_step(setup, weights: Step, kv: Step) -> Step:
    f = _figures(setup)
    t, b, s = setup.tp, setup.batch, setup.seq
    return Step("decode_bytes", float(f.decode.bytes), "bytes", "W_read/t + b·s·kv",
                f"{num(weights.value)}/{t} + {num(b)} × {num(s)} × {num(kv.value)}", note("derive.note.decode_bytes"))


def _decode_attention(setup) -> float:
    """Attention FLOPs per context token of one decode step (serving_figures' decode_attn)."""
    from quizapp.memory.compute import attention_flops_per_token
    from quizapp.memory.serving import attention_flops

    if setup.attention_flops == "none":
        return 0.0
    if setup.model.windowed:
        return attention_flops_per_token(setup.model, setup.seq) / setup.seq
    return float(attention_flops(setup))


def _decode_flops_step(setup) -> Step:
    f = _figures(setup)
    t, b, s = setup.tp, setup.batch, setup.seq
    attn = _decode_attention(setup)
    return Step("decode_flops", float(f.decode.flops), "flops", "b·(2·N_active + A·s)/t",
                f"{num(b)} × (2 × {num(setup.model.active_params)} + {num(attn)} × {num(s)}) / {t}",
                note("derive.note.decode_flops"))


def _peak_step(setup) -> Step:
    from quizapp.memory.serving import peak_flops

    peak = peak_flops(setup)
    return Step("peak_flops", float(peak), "flops", "peak", num(peak),
                note("derive.note.peak", gpu=setup.gpu.name, dtype=setup.compute))


def _bandwidth_step(setup) -> Step:
    gpu = setup.gpu
    bw = gpu.mem_bandwidth * setup.bandwidth_efficiency
    return Step("bandwidth", float(bw), "bandwidth", "HBM bandwidth × efficiency",
                f"{num(gpu.mem_bandwidth)} × {num(setup.bandwidth_efficiency)}",
                note("calc.extra.bandwidth_preset", gpu=gpu.name))


def _decode_steps(setup) -> list[Step]:
    f = _figures(setup)
    kv = kv_steps(setup)
    w = _decode_weight_step(setup)
    read = _decode_bytes_step(setup, w, kv[-1])
    flops = _decode_flops_step(setup)
    bw, peak = _bandwidth_step(setup), _peak_step(setup)
    mem = Step("memory_time", f.decode.memory_s, "seconds", "bytes / bandwidth", f"{num(read.value)} / {num(bw.value)}",
               note("derive.note.memory_time"))
    comp = Step("compute_time", f.decode.compute_s, "seconds", "FLOPs / peak", f"{num(flops.value)} / {num(peak.value)}",
                note("derive.note.compute_time_decode"))
    step = Step("decode_step_s", f.decode.step_s, "seconds", "max(memory time, compute time)",
                f"max({num(mem.value)}, {num(comp.value)})", note(f"derive.note.bound_{f.decode.bound}"))
    return [*kv, w, read, flops, bw, peak, mem, comp, step]


def derive_decode_bytes(setup) -> Derivation:
    kv = kv_steps(setup)
    w = _decode_weight_step(setup)
    return Derivation("decode_bytes", (*kv, w, _decode_bytes_step(setup, w, kv[-1])), (note("derive.note.roofline"),))


def derive_decode_flops(setup) -> Derivation:
    return Derivation("decode_flops", (_decode_flops_step(setup),), (note("derive.note.roofline"),))


def derive_decode_step_s(setup) -> Derivation:
    return Derivation("decode_step_s", tuple(_decode_steps(setup)), (note("derive.note.roofline"),))


def derive_decode_tokens_per_s(setup) -> Derivation:
    f = _figures(setup)
    steps = _decode_steps(setup)
    last = Step("decode_tokens_per_s", f.decode.tokens_per_s, "rate", "b / step", f"{num(setup.batch)} / {num(steps[-1].value)}",
                note("derive.note.decode_rate"))
    return Derivation("decode_tokens_per_s", (*steps, last), (note("derive.note.roofline"),))


def derive_per_seq_tokens_per_s(setup) -> Derivation:
    f = _figures(setup)
    steps = _decode_steps(setup)
    last = Step("per_seq_tokens_per_s", f.decode.per_seq_tokens_per_s, "rate", "1 / step", f"1 / {num(steps[-1].value)}",
                note("derive.note.per_seq_rate"))
    return Derivation("per_seq_tokens_per_s", (*steps, last), (note("derive.note.roofline"),))


def _prefill_attention(setup) -> float:
    from quizapp.memory.compute import attention_flops_per_token, attention_share
    from quizapp.memory.serving import attention_flops

    if setup.model.windowed:
        s = setup.prompt_tokens
        return attention_flops_per_token(setup.model, s) / s * attention_share(setup)
    return attention_flops(setup) * attention_share(setup)


def _prefill_flops_step(setup) -> Step:
    f = _figures(setup)
    t, b, s = setup.tp, setup.batch, setup.prompt_tokens
    attn = _prefill_attention(setup)
    return Step("prefill_flops", float(f.prefill.flops), "flops", "b·s_p·(2·N_active + A·s_p)/t",
                f"{num(b)} × {num(s)} × (2 × {num(setup.model.active_params)} + {num(attn)} × {num(s)}) / {t}",
                note("derive.note.prefill_flops", convention=setup.attention_flops))


def derive_prefill_flops(setup) -> Derivation:
    return Derivation("prefill_flops", (_prefill_flops_step(setup),), (note("derive.note.flops_source"),))


def derive_ttft(setup) -> Derivation:
    from quizapp.memory import formats
    from quizapp.memory.serving import routed_weight_bytes

    f = _figures(setup)
    m = setup.model
    flops = _prefill_flops_step(setup)
    peak, bw = _peak_step(setup), _bandwidth_step(setup)
    comp = Step("compute_time", f.prefill.compute_s, "seconds", "FLOPs / (peak·MFU)",
                f"{num(flops.value)} / ({num(peak.value)} × {num(setup.mfu)})", note("derive.note.compute_time_prefill"))
    stored = formats.setup_weights(setup)
    read = routed_weight_bytes(stored.total, stored.per_expert, m.experts, m.moe_layers,
                               setup.batch * setup.prompt_tokens, m.top_k)
    mem = Step("memory_time", f.prefill.memory_s, "seconds", "W_read / (t·bandwidth)",
               f"{num(read)} / ({setup.tp} × {num(bw.value)})", note("derive.note.memory_time"))
    last = Step("ttft", f.prefill.step_s, "seconds", "max(compute time, memory time)",
                f"max({num(comp.value)}, {num(mem.value)})", note(f"derive.note.bound_{f.prefill.bound}"))
    return Derivation("ttft", (flops, peak, comp, bw, mem, last), (note("derive.note.ttft"),))


def derive_critical_batch(setup) -> Derivation:
    f = _figures(setup)
    w = weights_step(setup)
    peak, bw = _peak_step(setup), _bandwidth_step(setup)
    t, n = setup.tp, setup.model.active_params
    last = Step("critical_batch", float(f.critical_batch), "count", "⌈peak·(W/t) / (bandwidth·2·N_active/t)⌉",
                f"⌈{num(peak.value)} × {num(w.value)} / ({num(bw.value)} × 2 × {num(n)} / {t})⌉",
                note("derive.note.critical_batch"), "count")
    return Derivation("critical_batch", (w, peak, bw, last), (note("derive.note.critical_kv"),))


DERIVE = {
    "kv_bytes_per_token": derive_kv_bytes_per_token,
    "kv_budget": derive_kv_budget,
    "kv_tokens": derive_kv_tokens,
    "max_concurrency": derive_max_concurrency,
    "max_context": derive_max_context,
    "min_tp": derive_min_tp,
    "decode_bytes": derive_decode_bytes,
    "decode_flops": derive_decode_flops,
    "decode_step_s": derive_decode_step_s,
    "decode_tokens_per_s": derive_decode_tokens_per_s,
    "per_seq_tokens_per_s": derive_per_seq_tokens_per_s,
    "prefill_flops": derive_prefill_flops,
    "ttft": derive_ttft,
    "critical_batch": derive_critical_batch,
}
