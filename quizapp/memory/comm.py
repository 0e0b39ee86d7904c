"""Communication per training step (memory-model.md section 14): bytes one GPU sends, and time.

Volumes are the ring "bus" volumes nccl-tests reports (what one GPU sends), one function per
collective and one per kind of parallelism (dp, tp, pp, ep); time is bytes over one link's
one-direction bandwidth, with no overlap with compute assumed (real systems hide much of it; the
worked solution says so). Pure functions of explicit numbers; `communication(setup)` wires them.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("dp", "tp", "pp", "ep")


# --- ring collectives over n GPUs on M bytes --------------------------------------------------------
def all_reduce(n: int, size: float) -> float:
    """2·(n−1)/n·M (a reduce-scatter then an all-gather)."""
    return 2 * (n - 1) * size / n if n > 1 else 0.0


def reduce_scatter(n: int, size: float) -> float:
    """(n−1)/n·M."""
    return (n - 1) * size / n if n > 1 else 0.0


def all_gather(n: int, size: float) -> float:
    """(n−1)/n·M."""
    return (n - 1) * size / n if n > 1 else 0.0


def all_to_all(n: int, size: float) -> float:
    """(n−1)/n·M: each GPU keeps 1/n of what it holds and sends the rest."""
    return (n - 1) * size / n if n > 1 else 0.0


# --- data parallel -----------------------------------------------------------------------------------
def dp_bytes(n: int, zero: int, grad_bytes: float, weight_bytes: float, naive_all_reduce: bool = False) -> float:
    """Bytes one GPU sends per step over a data-parallel group of n.

    `grad_bytes` G: the gradients reduced (2Ψ for 16-bit gradients); `weight_bytes`: the 16-bit
    weights all-gathered (2Ψ). DDP all-reduces G: 2(n−1)/n·G; ZeRO-1/2 reduce-scatter G and
    all-gather the updated weights: (n−1)/n·(G + 2Ψ); ZeRO-3 gathers the weights twice (forward and
    backward): (n−1)/n·(G + 4Ψ)."""
    if zero == 0:
        return (grad_bytes if n > 1 else 0.0) if naive_all_reduce else all_reduce(n, grad_bytes)
    gathers = 2 if zero == 3 else 1
    return reduce_scatter(n, grad_bytes) + gathers * all_gather(n, weight_bytes)


# --- tensor parallel (Megatron-LM) ------------------------------------------------------------------
def tp_all_reduces(layers: int, full_recompute: bool) -> int:
    """All-reduces per step: 2 per block forward, 2 backward (4·L), + 2·L when full recomputation
    runs every block's forward again."""
    return (6 if full_recompute else 4) * layers


def tp_bytes(t: int, layers: int, tokens: int, hidden: int, p: int, full_recompute: bool = False,
             naive_all_reduce: bool = False) -> float:
    """Each all-reduce moves p·T·h bytes (T: every token this GPU processes in the step); sequence
    parallelism swaps each for a reduce-scatter + all-gather pair of the same volume."""
    size = p * tokens * hidden
    each = (size if t > 1 else 0.0) if naive_all_reduce else all_reduce(t, size)
    return tp_all_reduces(layers, full_recompute) * each


# --- pipeline parallel ------------------------------------------------------------------------------
def pp_bytes(pp: int, microbatches: int, tokens_per_microbatch: int, hidden: int, p: int,
             stage: str = "middle") -> float:
    """Point-to-point: a middle stage sends 2·m·p·T_mb·h per step (activations forward, their
    gradients back); the first and last stages send half that."""
    if pp <= 1:
        return 0.0
    full = 2 * microbatches * p * tokens_per_microbatch * hidden
    return float(full if stage == "middle" and pp > 2 else full / 2)


def bubble(pp: int, microbatches: int, interleave: int = 1) -> float:
    """Pipeline bubble as a share of the ideal time: (pp−1)/m (1F1B), (pp−1)/(v·m) interleaved
    (Narayanan et al. 2021)."""
    return (pp - 1) / (interleave * microbatches)


def bubble_of_step(pp: int, microbatches: int, interleave: int = 1) -> float:
    """The bubble as a share of the whole step, (pp−1)/(v·m + pp−1): what `bubble-over-total` gives."""
    return (pp - 1) / (interleave * microbatches + pp - 1)


# --- expert parallel --------------------------------------------------------------------------------
def ep_bytes(ep: int, moe_layers: int, tokens: int, top_k: int, hidden: int, p: int) -> float:
    """Per MoE block 2 all-to-alls (dispatch, combine) of p·k·T·h in the forward and 2 in the
    backward, each sending (ep−1)/ep of it."""
    return 4 * moe_layers * all_to_all(ep, p * top_k * tokens * hidden)


# --- per kind and total -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Traffic:
    """Bytes one GPU sends per step for one kind, and the seconds at the link bandwidth."""

    kind: str
    bytes: float
    seconds: float
    formula: str = ""
    substituted: str = ""


@dataclass(frozen=True)
class Communication:
    kinds: tuple[Traffic, ...]  # dp, tp, pp, ep in that order (zero kinds kept)
    link_bandwidth: float  # bytes/s, one direction
    bubble: float  # share of the ideal time (0 without pipeline parallelism)

    def of(self, kind: str) -> Traffic:
        for t in self.kinds:
            if t.kind == kind:
                return t
        raise KeyError(kind)

    @property
    def total_bytes(self) -> float:
        return sum(t.bytes for t in self.kinds)

    @property
    def total_s(self) -> float:
        """No overlap assumed: the kinds one after another."""
        return sum(t.seconds for t in self.kinds)


# --- wired to a Setup ------------------------------------------------------------------------------
def link_bandwidth(setup) -> float | None:
    """bytes/s one GPU sends over: `link_bandwidth`, else the preset's NVLink (PCIe cards: their host
    link); None without either."""
    if setup.link_bandwidth:
        return float(setup.link_bandwidth)
    gpu = setup.gpu
    if gpu is None:
        return None
    return float(getattr(gpu, "nvlink", 0) or gpu.host_link)


def _stage_layers(layers: int, pp: int) -> int:
    """Blocks of the busiest pipeline stage: ⌈L/pp⌉."""
    return -(-layers // pp)


def _trainable_split(setup) -> tuple[int, int]:
    """(non-expert, routed-expert) trainable parameters of the model being trained."""
    from quizapp.memory.breakdown import lora_params

    m = setup.model
    if setup.method in ("lora", "qlora"):
        return lora_params(m, setup.lora_rank, setup.lora_targets), 0
    experts = m.routed_expert_params if m.has_shape and m.is_moe else 0
    dense = m.params - experts
    if setup.method == "ppo":  # the critic is trained beside the actor and synced the same way
        from quizapp.memory.breakdown import critic_params

        dense += critic_params(setup.critic_model or m)
    return dense, experts


def communication(setup, naive_all_reduce: bool = False) -> Communication:
    """Bytes one GPU sends per training step for dp, tp, pp and ep, and the seconds at the link bandwidth.

    Data parallelism syncs this GPU's shard (Ψ/(t·pp)) over the N = `gpus` replicas; routed experts
    (Ψ_e/(ep·t·pp)) over their group of N/ep. T = m·b·s tokens per step. RLHF methods count the
    trained models' traffic (PPO: actor and critic). `naive_all_reduce` counts every all-reduce as sending M (the
    `allreduce-once` mistake)."""
    from quizapp.memory.setup import SetupError

    if not setup.training:
        raise SetupError("method", "communication per training step; expected a training method, not inference")
    m = setup.model
    N, t, pp, ep = setup.gpus, setup.tp, setup.pp, setup.ep
    w = 4 if setup.precision == "fp32" else 2
    g = 4 if setup.precision == "fp32" else setup.grads // 8
    dense, experts = _trainable_split(setup)
    shard = t * pp
    gathered = w * dense
    if setup.method in ("lora", "qlora") and setup.zero == 3 and m.has_shape:
        # ZeRO-3 shards the frozen base too, so it gathers the base (in its stored format) with the adapters
        from quizapp.memory.formats import setup_weights

        gathered += setup_weights(setup).total
    dp = dp_bytes(N, setup.zero, g * dense / shard, gathered / shard, naive_all_reduce)
    if experts:
        dp += dp_bytes(N // ep, setup.zero, g * experts / (shard * ep), w * experts / (shard * ep), naive_all_reduce)
    needs_shape = t > 1 or pp > 1 or ep > 1
    if needs_shape and not m.has_shape:
        raise SetupError("model", "tensor, pipeline and expert parallel traffic needs a shape, not a bare count")
    p = setup.activation_bytes
    tokens_mb = setup.batch * setup.seq
    tokens = setup.microbatches * tokens_mb
    layers = _stage_layers(m.layers, pp) if m.has_shape else 0
    tp = tp_bytes(t, layers, tokens, m.hidden, p, setup.recompute == "full", naive_all_reduce) if t > 1 else 0.0
    ppb = pp_bytes(pp, setup.microbatches, tokens_mb, m.hidden, p) if pp > 1 else 0.0
    moe_layers = _stage_layers(m.moe_layers, pp) if m.has_shape and m.is_moe else 0
    epb = ep_bytes(ep, moe_layers, tokens, m.top_k, m.hidden, p) if ep > 1 else 0.0
    link = link_bandwidth(setup)

    def traffic(kind: str, sent: float, formula: str, substituted: str) -> Traffic:
        return Traffic(kind, sent, sent / link if link else float("nan"), formula, substituted)

    kinds = (
        traffic("dp", dp, _DP_FORMULA[setup.zero], f"N = {N}, Ψ/(t·pp) = {dense / shard:,.0f}"
                + (f", experts over N/ep = {N // ep}" if experts else "")),
        traffic("tp", tp, "(4 + 2·[full recompute])·L/pp · 2(t−1)/t · p·T·h",
                f"t = {t}, L/pp = {layers}, T = {tokens:,}, h = {m.hidden:,}, p = {p}"),
        traffic("pp", ppb, "2·m·p·T_mb·h (a middle stage)", f"m = {setup.microbatches}, T_mb = {tokens_mb:,}"),
        traffic("ep", epb, "4·L_moe/pp · (ep−1)/ep · p·k·T·h", f"ep = {ep}, L_moe/pp = {moe_layers}, k = {m.top_k}"),
    )
    bub = bubble(pp, setup.microbatches, setup.interleave) if pp > 1 else 0.0
    return Communication(kinds, link or 0.0, bub)


_DP_FORMULA = {
    0: "2(N−1)/N · G",
    1: "(N−1)/N · (G + 2Ψ)",
    2: "(N−1)/N · (G + 2Ψ)",
    3: "(N−1)/N · (G + 4Ψ)",
}
