"""The conventions an interviewer accepts (spec section 19): each is a change of the calculator's
inputs, so the value an answer under that convention should have is computed, never typed.

- causal: attention FLOPs halved by the causal mask (prefill, training), against PaLM's full count;
- 6n: training FLOPs 6·N per token without the attention term, against 6·N + 12·L·a·d·s;
- fp32-grads: fp32 gradients (18 bytes per parameter for mixed AdamW), against 16;
- no-embeddings: parameter counts without the embedding and LM-head matrices (Kaplan's N);
- line-rate: link times at the GPU's datasheet rate, against the achieved rate a prompt gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

_REMOVE = object()  # an input the convention takes away (line-rate: no achieved link bandwidth)

CONVENTIONS: Mapping[str, Mapping[str, object]] = MappingProxyType({
    "causal": MappingProxyType({"attention_flops": "causal"}),
    "6n": MappingProxyType({"attention_flops": "none"}),
    "fp32-grads": MappingProxyType({"grads": 32}),
    "no-embeddings": MappingProxyType({"embeddings": False}),
    "line-rate": MappingProxyType({"link_bandwidth": _REMOVE}),
})


# Conventions that can move only some asks: attention FLOPs never change a size or a count of memory,
# the embedding convention only a parameter count. Skipping the rest saves a breakdown per drill.
_FLOPS_FREE_KINDS = ("bytes", "count")
_FLOPS_DEPENDENT_COUNTS = ("mfu", "hfu", "critical_batch", "min_gpus")


def relevant(name: str, ask: str) -> bool:
    """Whether convention `name` can change the value of `ask` at all."""
    from quizapp.memory.asks import ASKS

    kind = ASKS.get(ask, "number")
    from quizapp.memory.extra_asks import EXTRA_ASKS

    if ask in EXTRA_ASKS:  # their own inputs: only an achieved link rate has a datasheet reading
        return name == "line-rate" and ask in ("transfer_s", "kv_transfer_s")
    if name in ("causal", "6n"):
        return kind not in _FLOPS_FREE_KINDS or ask in _FLOPS_DEPENDENT_COUNTS
    if name == "no-embeddings":
        return ask in ("params", "active_params")
    return True


def convention_options(options: Mapping[str, object], name: str, accepted: bool = False) -> dict[str, object] | None:
    """The calculator inputs of `options` under convention `name`; None when it changes nothing (the
    options already follow it, line-rate without an achieved rate) or when the options choose that
    input themselves (a drill written as 6N, `attention_flops: none`, has no causal reading), unless
    the drill accepts the convention (`accepted`: its author asked for the other reading)."""
    changed = dict(options)
    for key, value in CONVENTIONS[name].items():
        if value is _REMOVE:
            changed.pop(key, None)
        elif key in options and not accepted:
            return None
        else:
            changed[key] = value
    return None if changed == dict(options) else changed


def convention_value(options: Mapping[str, object], ask: str, name: str, accepted: bool = False) -> float | None:
    """What `ask` is under convention `name`, or None when the convention changes nothing or the
    calculator cannot compute it for these inputs (a bare count has no embeddings to leave out)."""
    from quizapp.memory.asks import evaluate
    from quizapp.memory.setup import SetupError, setup_from_options

    changed = convention_options(options, name, accepted) if relevant(name, ask) else None
    if changed is None:
        return None
    try:
        return float(evaluate(setup_from_options(changed), ask))
    except (SetupError, ValueError, ZeroDivisionError):
        return None
