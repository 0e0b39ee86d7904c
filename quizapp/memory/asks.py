"""Evaluate one asked quantity of a setup: what drills grade and worked solutions print."""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from quizapp.memory.breakdown import NO_ADJUST, Adjust, breakdown
from quizapp.memory.compute import flops_per_token, step_time
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
        "flops_per_token": "number",
        "step_time": "seconds",
        "headroom": "bytes",
    }
)
_TRAINING_ONLY = ("gradients", "master_weights", "optimizer_states", "activations", "trainable_params", "step_time")
_NEEDS_GPU = ("max_batch", "max_seq", "max_params", "step_time", "headroom")


def check_ask(setup: Setup, ask: str) -> None:
    """Raise SetupError if `setup` cannot produce `ask`."""
    if ask not in ASKS:
        import difflib

        close = difflib.get_close_matches(ask, list(ASKS), n=1)
        raise SetupError("ask", f"expected one of {', '.join(ASKS)}, got {ask!r}" + (f"; did you mean {close[0]}?" if close else ""))
    if ask in _TRAINING_ONLY and not setup.training:
        raise SetupError("method", f"{ask} is a training quantity; expected method full, lora or qlora")
    if ask == "kv_cache" and setup.training:
        raise SetupError("method", "kv_cache is an inference quantity; expected method inference")
    if ask in ("activations", "kv_cache") and not setup.model.has_shape:
        raise SetupError("model", f"{ask} needs a shape (a preset or layers/hidden/heads), not a bare count")
    if ask in ("max_batch", "max_seq") and not setup.model.has_shape:
        raise SetupError("model", f"{ask} needs a shape (a preset or layers/hidden/heads), not a bare count")
    if ask in _NEEDS_GPU and setup.gpu is None:
        raise SetupError("gpu", f"{ask} needs a GPU preset")


def evaluate(setup: Setup, ask: str, adjust: Adjust = NO_ADJUST) -> float:
    """The value of `ask` (units per ASKS) for `setup`; `adjust` reproduces a mistake (mistakes.py)."""
    check_ask(setup, ask)
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
