"""Worked derivations of the communication asks (memory-model.md section 14): bytes one GPU sends per
training step for dp, tp, pp and ep, the time at the link bandwidth, and the pipeline bubble.

The last step's value is `comm.communication(setup)`'s, what `asks.evaluate` returns; the steps
before it put the numbers into the ring-collective formulas (nccl-tests bus volumes).
"""

from __future__ import annotations

from quizapp.memory.derivation import Derivation, Step, num
from quizapp.memory.notes import note


def _traffic(setup):
    from quizapp.memory.comm import communication

    return communication(setup)


def _p(setup) -> int:
    return setup.activation_bytes


def _dp_part(n: int, zero: int, grads: float, gathered: float) -> str:
    """The DP formula of `zero` with the numbers put in (G and the gathered weights per GPU)."""
    if zero == 0:
        return f"2 × ({n} − 1)/{n} × {num(grads)}"
    gathers = 2 if zero == 3 else 1
    return f"({n} − 1)/{n} × ({num(grads)} + {gathers} × {num(gathered)})"


def _dp_steps(setup) -> list[Step]:
    from quizapp.memory.comm import _DP_FORMULA, _trainable_split, dp_bytes

    traffic = _traffic(setup)
    N, t, pp, ep = setup.gpus, setup.tp, setup.pp, setup.ep
    g = 4 if setup.precision == "fp32" else setup.grads // 8
    w = 4 if setup.precision == "fp32" else 2
    dense, experts = _trainable_split(setup)
    shard = t * pp
    gathered = w * dense
    if setup.method in ("lora", "qlora") and setup.zero == 3 and setup.model.has_shape:
        from quizapp.memory.formats import setup_weights

        gathered += setup_weights(setup).total  # ZeRO-3 gathers the frozen base too
    G = g * dense / shard
    grads = Step("grad_bytes", float(G), "bytes", "g·Ψ/(t·pp)", f"{g} × {num(dense)} / {shard}",
                 note("derive.note.dp_grads", zero=setup.zero))
    formula = _DP_FORMULA[setup.zero]
    key = f"derive.note.dp_zero{setup.zero}"
    value = float(traffic.of("dp").bytes)
    if not experts:
        return [grads, Step("comm_dp_bytes", value, "bytes", formula, _dp_part(N, setup.zero, G, gathered / shard),
                            note(key))]
    dense_part = dp_bytes(N, setup.zero, G, gathered / shard)
    Ge, We = g * experts / (shard * ep), w * experts / (shard * ep)
    expert_part = dp_bytes(N // ep, setup.zero, Ge, We)
    return [grads,
            Step("comm_dp_dense", float(dense_part), "bytes", formula, _dp_part(N, setup.zero, G, gathered / shard),
                 note(key)),
            Step("comm_dp_experts", float(expert_part), "bytes", formula.replace("N", "N_e") + ", N_e = N/ep",
                 _dp_part(N // ep, setup.zero, Ge, We), note("derive.note.dp_experts")),
            Step("comm_dp_bytes", value, "bytes", "dense + experts", f"{num(dense_part)} + {num(expert_part)}",
                 note("derive.note.dp_sum"))]


def _tp_steps(setup) -> list[Step]:
    from quizapp.memory.comm import _stage_layers, all_reduce, tp_all_reduces

    traffic = _traffic(setup)
    m, t = setup.model, setup.tp
    p = _p(setup)
    if t <= 1:
        return [Step("comm_tp_bytes", 0.0, "bytes", "t = 1: no tensor parallelism", "0", note("derive.note.none"))]
    layers = _stage_layers(m.layers, setup.pp)
    tokens = setup.microbatches * setup.batch * setup.seq
    full = setup.recompute == "full"
    count = tp_all_reduces(layers, full)
    reduces = Step("all_reduces", float(count), "count", "(4 + 2·[full recompute])·L/pp",
                   f"{6 if full else 4} × {layers}", note("derive.note.tp_count"), "count")
    size = p * tokens * m.hidden
    each = Step("all_reduce_bytes", float(all_reduce(t, size)), "bytes", "2(t−1)/t · p·T·h",
                f"2 × ({t} − 1)/{t} × {p} × {num(tokens)} × {num(m.hidden)}", note("derive.note.tp_each"))
    last = Step("comm_tp_bytes", float(traffic.of("tp").bytes), "bytes", "all-reduces × bytes each",
                f"{num(count)} × {num(each.value)}", note("derive.note.tp_source"))
    return [reduces, each, last]


def _pp_steps(setup) -> list[Step]:
    traffic = _traffic(setup)
    pp, mb = setup.pp, setup.microbatches
    if pp <= 1:
        return [Step("comm_pp_bytes", 0.0, "bytes", "pp = 1: no pipeline", "0", note("derive.note.none"))]
    tokens_mb = setup.batch * setup.seq
    p, h = _p(setup), setup.model.hidden
    if pp > 2:
        formula, sub, key = "2·m·p·T_mb·h", f"2 × {mb} × {p} × {num(tokens_mb)} × {num(h)}", "derive.note.pp_middle"
    else:
        formula, sub, key = "m·p·T_mb·h", f"{mb} × {p} × {num(tokens_mb)} × {num(h)}", "derive.note.pp_end"
    return [Step("comm_pp_bytes", float(traffic.of("pp").bytes), "bytes", formula, sub, note(key))]


def _ep_steps(setup) -> list[Step]:
    from quizapp.memory.comm import _stage_layers, all_to_all

    traffic = _traffic(setup)
    m, ep = setup.model, setup.ep
    if ep <= 1:
        return [Step("comm_ep_bytes", 0.0, "bytes", "ep = 1: no expert parallelism", "0", note("derive.note.none"))]
    p = _p(setup)
    tokens = setup.microbatches * setup.batch * setup.seq
    moe_layers = _stage_layers(m.moe_layers, setup.pp) if m.is_moe else 0
    size = p * m.top_k * tokens * m.hidden
    each = Step("all_to_all_bytes", float(all_to_all(ep, size)), "bytes", "(ep−1)/ep · p·k·T·h",
                f"({ep} − 1)/{ep} × {p} × {m.top_k} × {num(tokens)} × {num(m.hidden)}", note("derive.note.ep_each"))
    last = Step("comm_ep_bytes", float(traffic.of("ep").bytes), "bytes", "4·L_moe/pp · all-to-all bytes",
                f"4 × {moe_layers} × {num(each.value)}", note("derive.note.ep_count"))
    return [each, last]


_KIND_STEPS = {"dp": _dp_steps, "tp": _tp_steps, "pp": _pp_steps, "ep": _ep_steps}
_NOTES = (note("derive.note.comm_bus"),)


def derive_kind(setup, ask: str) -> Derivation:
    kind = ask.removeprefix("comm_").removesuffix("_bytes")
    return Derivation(ask, tuple(_KIND_STEPS[kind](setup)), _NOTES)


def _kind_totals(setup) -> list[Step]:
    traffic = _traffic(setup)
    out = []
    for t in traffic.kinds:
        last = _KIND_STEPS[t.kind](setup)[-1]
        out.append(Step(f"comm_{t.kind}_bytes", float(t.bytes), "bytes", last.formula, last.substituted, last.note))
    return out


def derive_total_bytes(setup) -> Derivation:
    traffic = _traffic(setup)
    kinds = _kind_totals(setup)
    last = Step("comm_total_bytes", float(traffic.total_bytes), "bytes", "dp + tp + pp + ep",
                " + ".join(num(k.value) for k in kinds), note("derive.note.comm_sum"))
    return Derivation("comm_total_bytes", (*kinds, last), _NOTES)


def derive_total_s(setup) -> Derivation:
    from quizapp.memory.comm import link_bandwidth

    traffic = _traffic(setup)
    kinds = [k for k in _kind_totals(setup) if k.value]
    link = link_bandwidth(setup)
    given = bool(setup.link_bandwidth)
    bw = Step("link_bandwidth", float(link), "bandwidth", "link_bandwidth" if given else "NVLink per direction",
              num(link), note("calc.extra.link_given") if given else note("derive.note.link_preset", gpu=setup.gpu.name))
    total = sum(k.value for k in kinds)
    parts = " + ".join(num(k.value) for k in kinds) or "0"
    last = Step("comm_total_s", float(traffic.total_s), "seconds", "Σ_kind bytes / link_bandwidth",
                f"({parts}) / {num(link)}" if len(kinds) > 1 else f"{num(total)} / {num(link)}",
                note("derive.note.comm_no_overlap"))
    return Derivation("comm_total_s", (*kinds, bw, last), _NOTES)


def derive_bubble(setup) -> Derivation:
    traffic = _traffic(setup)
    pp, m, v = setup.pp, setup.microbatches, setup.interleave
    if pp <= 1:
        last = Step("bubble", float(traffic.bubble), "ratio", "pp = 1: no pipeline, no bubble", "0",
                    note("derive.note.none"))
    elif v > 1:
        last = Step("bubble", float(traffic.bubble), "ratio", "(p − 1) / (v·m)", f"({pp} − 1) / ({v} × {m})",
                    note("derive.note.bubble_interleaved"))
    else:
        last = Step("bubble", float(traffic.bubble), "ratio", "(p − 1) / m", f"({pp} − 1) / {m}",
                    note("derive.note.bubble_1f1b"))
    return Derivation("bubble", (last,), (note("derive.note.bubble_share"),))


DERIVE = {
    **{f"comm_{kind}_bytes": (lambda a: lambda setup: derive_kind(setup, a))(f"comm_{kind}_bytes")
       for kind in ("dp", "tp", "pp", "ep")},
    "comm_total_bytes": derive_total_bytes,
    "comm_total_s": derive_total_s,
    "bubble": derive_bubble,
}
