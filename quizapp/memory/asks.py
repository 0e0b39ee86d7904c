"""Evaluate one asked quantity of a setup: what drills grade and worked solutions print."""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from quizapp.memory.embeddings import embedding_params  # noqa: F401 - part of asks' interface
from quizapp.memory.activations import check_mla_training
from quizapp.memory.breakdown import NO_ADJUST, Adjust, breakdown
from quizapp.memory.compute import flops_per_token, step_time
from quizapp.memory.extra_asks import EXTRA_ASKS
from quizapp.memory.kernels import KERNEL_ASKS
from quizapp.memory.setup import Setup, SetupError
from quizapp.memory.solve import max_batch, max_params, max_seq

ASKS: Mapping[str, str] = MappingProxyType(
    {
        "weights": "bytes",
        "gradients": "bytes",
        "master_weights": "bytes",
        "optimizer_states": "bytes",
        "activations": "bytes",
        "kv_cache": "bytes",
        "overhead": "bytes",
        "model_states": "bytes",
        "total": "bytes",
        "cpu": "bytes",
        "params": "count",
        "trainable_params": "count",
        "bytes_per_param": "number",
        "max_batch": "count",
        "max_seq": "count",
        "max_params": "count",
        "flops_per_token": "flops",
        "step_time": "seconds",
        "headroom": "bytes",
        # issue 11 (memory-model.md sections 11-16)
        "reference_weights": "bytes",  # RLHF (section 15): the frozen reference policy
        "reward_weights": "bytes",  # PPO's frozen reward model
        "rollout_kv_cache": "bytes",  # PPO/GRPO generation with rollout_batch
        "active_params": "count",
        "kv_bytes_per_token": "bytes",
        "kv_budget": "bytes",
        "kv_tokens": "count",
        "max_concurrency": "count",
        "decode_bytes": "bytes",
        "decode_flops": "flops",
        "decode_step_s": "seconds",
        "decode_tokens_per_s": "rate",
        "per_seq_tokens_per_s": "rate",
        "prefill_flops": "flops",
        "ttft": "seconds",
        "critical_batch": "count",
        "comm_dp_bytes": "bytes",
        "comm_tp_bytes": "bytes",
        "comm_pp_bytes": "bytes",
        "comm_ep_bytes": "bytes",
        "comm_total_bytes": "bytes",
        "comm_total_s": "seconds",
        "bubble": "ratio",
        "mfu": "ratio",
        "hfu": "ratio",
        "tokens_per_s": "rate",
        "compute_budget_flops": "flops",
        "chinchilla_tokens": "count",
        "train_days": "seconds",  # in seconds like every time (a drill's `unit: d` shows days)
        "max_context": "count",
        "min_tp": "count",
        "min_gpus": "count",
        # Part III sections 17-18 (quizapp.memory.kernels; kv_ratio: the attention variants)
        "kernel_flops": "flops",  # FLOPs of one kernel (attention: per head and sequence)
        "kernel_bytes": "bytes",  # HBM bytes it reads and writes
        "intensity": "number",  # FLOP per byte (unit FLOP/B)
        "ridge": "number",  # FLOP per byte of the GPU at the dtype: peak / bandwidth
        "kernel_time": "seconds",  # max(FLOPs / peak, bytes / (bandwidth · efficiency))
        "fusion_saving": "number",  # unfused / fused bytes of an elementwise chain (unit x)
        "kv_ratio": "number",  # the MHA cache (a_kv = a, every layer global) / the model's (unit x)
        **EXTRA_ASKS,  # speculative decoding, number formats, GPU arithmetic, data, μP (extra_asks.py)
    }
)
# What a count ask counts, for its display in K/M/B/T ("2.50T tokens", not "2.50T params"); default params.
ASK_NOUNS: Mapping[str, str] = MappingProxyType({
    **{ask: "tokens" for ask in ("corpus_tokens", "chinchilla_tokens", "kv_tokens", "max_context", "max_seq",
                                 "spec_tokens_per_round")},
    **{ask: "sequences" for ask in ("packed_sequences", "max_concurrency", "max_batch")},
    "min_gpus": "GPUs", "min_tp": "GPUs",
})


def count_noun(ask: str) -> str:
    """The noun a count of `ask` takes after K/M/B/T: "params" unless ASK_NOUNS says otherwise."""
    return ASK_NOUNS.get(ask, "params")


SERVING_ASKS = ("kv_bytes_per_token", "kv_budget", "kv_tokens", "max_concurrency", "decode_bytes", "decode_flops",
                "decode_step_s", "decode_tokens_per_s", "per_seq_tokens_per_s", "prefill_flops", "ttft",
                "critical_batch", "max_context", "min_tp")
COMM_ASKS = ("comm_dp_bytes", "comm_tp_bytes", "comm_pp_bytes", "comm_ep_bytes", "comm_total_bytes", "comm_total_s",
             "bubble")
TIME_ASKS = ("mfu", "hfu", "tokens_per_s", "compute_budget_flops", "chinchilla_tokens", "train_days", "min_gpus")
_SERVING_NEEDS_GPU = ("kv_budget", "kv_tokens", "max_concurrency", "decode_bytes", "decode_flops", "decode_step_s",
                      "decode_tokens_per_s", "per_seq_tokens_per_s", "prefill_flops", "ttft", "critical_batch",
                      "max_context", "min_tp")
_TRAINING_ONLY = ("gradients", "master_weights", "optimizer_states", "activations", "trainable_params", "step_time")
_NEEDS_GPU = ("max_batch", "max_seq", "max_params", "step_time", "headroom")
# training asks whose value includes the activations: refused where the spec has no activation list for
# the model (MLA, section 11) rather than answered without them
_NEEDS_ACTIVATIONS = ("activations", "total", "headroom", "max_batch", "max_seq", "max_params", "min_gpus")


def check_ask(setup: Setup, ask: str) -> None:
    """Raise SetupError if `setup` cannot produce `ask`."""
    if ask not in ASKS:
        import difflib

        close = difflib.get_close_matches(ask, list(ASKS), n=1)
        raise SetupError("ask", f"expected one of {', '.join(ASKS)}, got {ask!r}" + (f"; did you mean {close[0]}?" if close else ""))
    if ask in EXTRA_ASKS:
        from quizapp.memory.extra_asks import derive as derive_extra

        derive_extra(setup, ask)  # the one-line error for a missing or bad key of this ask
        return
    if ask in KERNEL_ASKS:
        _check_kernel_ask(setup, ask)
        return
    if setup.kernel is not None and setup.model.name == "no model":
        raise SetupError("model", f"missing; {ask} is a model quantity (a kernel setup answers only "
                                  f"{', '.join(KERNEL_ASKS)})")
    from quizapp.memory.extras import NO_MODEL

    if setup.model is NO_MODEL:
        raise SetupError("model", f"missing; {ask} needs a model: a preset or a parameter count like 7B "
                                  "(this setup gives only inputs of other asks)")
    if ask == "kv_ratio":
        if not setup.model.has_shape:
            raise SetupError("model", "kv_ratio compares KV caches; expected a preset or a shape, not a bare count")
        return
    if ask in _TRAINING_ONLY and not setup.training:
        raise SetupError("method", f"{ask} is a training quantity; expected method full, lora or qlora")
    if ask == "kv_cache" and setup.training:
        raise SetupError("method", "kv_cache is an inference quantity; expected method inference")
    if ask in ("activations", "kv_cache") and not setup.model.has_shape:
        raise SetupError("model", f"{ask} needs a shape (a preset or layers/hidden/heads), not a bare count")
    if ask in ("max_batch", "max_seq") and not setup.model.has_shape:
        raise SetupError("model", f"{ask} needs a shape (a preset or layers/hidden/heads), not a bare count")
    if ask in _NEEDS_ACTIVATIONS:
        check_mla_training(setup)
    if ask in _NEEDS_GPU and setup.gpu is None:
        raise SetupError("gpu", f"{ask} needs a GPU preset")
    if ask in ("reference_weights", "reward_weights", "rollout_kv_cache") and not setup.rlhf:
        raise SetupError("method", f"{ask} is an RLHF term; expected method ppo, dpo or grpo")
    if ask == "reward_weights" and setup.method != "ppo":
        raise SetupError("method", "reward_weights is PPO's frozen reward model; expected method ppo")
    if ask == "rollout_kv_cache" and setup.rollout_batch is None:
        raise SetupError("rollout_batch", "the rollout KV cache needs rollout_batch (sequences generated at once)")
    if ask in SERVING_ASKS:
        from quizapp.memory.serving import check_serving

        check_serving(setup)
        if ask in _SERVING_NEEDS_GPU and setup.gpu is None:
            raise SetupError("gpu", f"{ask} needs a GPU preset")
    if ask in COMM_ASKS or ask in ("mfu", "hfu", "tokens_per_s", "train_days", "min_gpus"):
        if not setup.training:
            raise SetupError("method", f"{ask} is a training quantity; expected a training method, not inference")
    if ask == "comm_total_s":
        from quizapp.memory.comm import link_bandwidth

        if link_bandwidth(setup) is None:
            raise SetupError("gpu", "communication time needs a GPU preset (its NVLink) or link_bandwidth")
    if ask in ("mfu", "hfu", "tokens_per_s", "train_days", "min_gpus") and setup.gpu is None:
        raise SetupError("gpu", f"{ask} needs a GPU preset")


def _check_kernel_ask(setup: Setup, ask: str) -> None:
    from quizapp.memory.kernels import KernelError, peak_flops

    kernel = setup.kernel
    if kernel is None and ask != "ridge":
        raise SetupError("kernel", f"missing; {ask} needs kernel: gemm | elementwise | attention")
    if ask in ("ridge", "kernel_time") and setup.gpu is None:
        raise SetupError("gpu", f"{ask} needs a GPU preset (its peak and bandwidth)")
    if ask == "fusion_saving" and kernel.kind != "elementwise":  # type: ignore[union-attr]
        raise SetupError("kernel", f"fusion_saving compares an elementwise chain fused and unfused; expected "
                                   f"kernel elementwise, got {kernel.kind}")  # type: ignore[union-attr]
    if setup.gpu is not None:
        try:
            peak_flops(setup.gpu, setup.dtype)
        except KernelError as exc:
            raise SetupError(exc.field, exc.message) from None


def derive(setup: Setup, ask: str, naive_scores: bool = False):
    """How `ask` follows from its inputs step by step (a quizapp.memory.derivation.Derivation), for the
    asks that are no memory term; None for the asks a breakdown explains."""
    check_ask(setup, ask)
    if ask in EXTRA_ASKS:
        from quizapp.memory.extra_asks import derive as derive_extra

        return derive_extra(setup, ask)
    if ask in KERNEL_ASKS:
        from quizapp.memory.kernels import derive_kernel

        return derive_kernel(setup, ask, naive_scores)
    if ask == "kv_ratio":
        from quizapp.memory.formats import derive_kv_ratio

        return derive_kv_ratio(setup)
    derive_new = derived_asks().get(ask)
    return None if derive_new is None else derive_new(setup)


def derived_asks():
    """Ask -> its derivation function for the asks of sections 7-16 that are no memory term: serving,
    communication, counts, FLOPs, time and utilisation, fit and the inverse solves
    (derive_serving, derive_comm, derive_training, derive_fit). The memory terms and their sums
    (weights ... total, cpu, the RLHF terms) are explained by their breakdown instead."""
    from quizapp.memory import derive_comm, derive_fit, derive_serving, derive_training

    return {**derive_serving.DERIVE, **derive_comm.DERIVE, **derive_training.DERIVE, **derive_fit.DERIVE}


def evaluate(setup: Setup, ask: str, adjust: Adjust = NO_ADJUST) -> float:
    """The value of `ask` (units per ASKS) for `setup`; `adjust` reproduces a mistake (mistakes.py)."""
    check_ask(setup, ask)
    if ask in KERNEL_ASKS or ask == "kv_ratio" or ask in EXTRA_ASKS:
        return float(derive(setup, ask).value)
    if ask in SERVING_ASKS or ask in COMM_ASKS or ask in TIME_ASKS or ask == "active_params":
        return _evaluate_new(setup, ask)
    if ask == "max_batch":
        return float(max_batch(setup, setup.gpu, setup.reserve, adjust))
    if ask == "max_seq":
        return float(max_seq(setup, setup.gpu, setup.reserve, adjust))
    if ask == "max_params":
        return float(max_params(setup, setup.gpu, setup.reserve, adjust))
    if ask == "flops_per_token":
        return flops_per_token(setup)
    if ask == "step_time":
        return step_time(setup, setup.gpu)
    if ask == "params":
        if not setup.embeddings:
            return float(setup.model.params - embedding_params(setup.model))
        return float(setup.model.params)
    b = breakdown(setup, adjust)
    if ask == "trainable_params":
        return float(b.trainable_params)
    if ask in ("total", "model_states", "cpu"):
        return float(getattr(b, ask))
    if ask == "bytes_per_param":
        return float(b.model_states / b.params)
    if ask == "headroom":
        return float(setup.gpu.capacity - setup.reserve - b.total)  # type: ignore[union-attr]
    return float(b.bytes_of(ask))


def solution_setup(setup: Setup, ask: str, value: float) -> Setup:
    """The setup a worked solution should show for `ask` = `value`.

    For an inverse solve that is the answer itself (the largest batch, sequence or model put back into
    the setup), so the breakdown shows why it fits; for anything else the setup as given.
    """
    from dataclasses import replace

    from quizapp.memory.solve import max_model

    if ask in ("max_batch", "max_seq") and value >= 1:
        return replace(setup, **{ask.removeprefix("max_"): int(value)})
    if ask == "max_params" and value >= 1:
        model = max_model(setup, setup.gpu, setup.reserve)
        return replace(setup, model=model) if model is not None else setup
    return setup


def _evaluate_new(setup: Setup, ask: str) -> float:
    """The asks of sections 11-16: serving, communication, throughput and the new solves."""
    from quizapp.memory import comm, formats, serving, solve, throughput

    if ask == "active_params":
        return float(setup.model.active_params)
    if ask == "kv_bytes_per_token":
        return float(formats.kv_bytes_per_token_per_gpu(setup))
    if ask == "max_context":
        return float(solve.max_context_at_concurrency(setup))
    if ask == "min_tp":
        return float(solve.min_tp(setup))
    if ask in SERVING_ASKS:
        figures = serving.serving_figures(setup)
        return float({
            "kv_budget": lambda: figures.budget,
            "kv_tokens": lambda: figures.kv_tokens,
            "max_concurrency": lambda: figures.max_concurrency,
            "decode_bytes": lambda: figures.decode.bytes,
            "decode_flops": lambda: figures.decode.flops,
            "decode_step_s": lambda: figures.decode.step_s,
            "decode_tokens_per_s": lambda: figures.decode.tokens_per_s,
            "per_seq_tokens_per_s": lambda: figures.decode.per_seq_tokens_per_s,
            "prefill_flops": lambda: figures.prefill.flops,
            "ttft": lambda: figures.prefill.step_s,
            "critical_batch": lambda: figures.critical_batch,
        }[ask]())
    if ask in COMM_ASKS:
        traffic = comm.communication(setup)
        if ask == "bubble":
            return float(traffic.bubble)
        if ask == "comm_total_bytes":
            return float(traffic.total_bytes)
        if ask == "comm_total_s":
            return float(traffic.total_s)
        return float(traffic.of(ask.removeprefix("comm_").removesuffix("_bytes")).bytes)
    if ask in ("mfu", "hfu"):
        model_u, hardware_u = throughput.utilisation(setup)
        return float(model_u if ask == "mfu" else hardware_u)
    if ask == "tokens_per_s":
        return float(throughput.training_tokens_per_s(setup))
    if ask == "compute_budget_flops":
        return float(throughput.setup_compute_budget(setup))
    if ask == "chinchilla_tokens":
        return float(throughput.setup_chinchilla_tokens(setup))
    if ask == "train_days":
        return float(throughput.setup_train_days(setup) * throughput.SECONDS_PER_DAY)
    if ask == "min_gpus":
        plan = solve.min_gpus(setup)
        if plan is None:
            raise SetupError("gpus", "no number of GPUs fits this setup (the activations alone exceed the GPU)")
        return float(plan.gpus)
    raise SetupError("ask", f"unknown ask {ask!r}")
