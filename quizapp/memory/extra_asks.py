"""The extra asks: quantities the third bank needs that no memory, serving or training term is
(speculative decoding, number formats, GPU arithmetic, disaggregated serving, data, μP).

Each ask maps to its unit kind (quantities.KINDS) and to a function of the setup that returns a
`Derivation` (derivation.py): the worked solution and, as its last step, the value. asks.py
evaluates them through `derive`; the inputs are `Setup.extras` (extras.py) plus, where an ask says
so, the model, kv_dtype, prompt, gpu and link_bandwidth of the setup.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Callable, Mapping

from quizapp.memory import data, disagg, hardware, mup, numerics, speculative
from quizapp.memory.derivation import Derivation

_ASKS: tuple[tuple[str, str, Callable[..., Derivation]], ...] = (
    ("spec_tokens_per_round", "count", speculative.derive_tokens),
    ("spec_speedup", "number", speculative.derive_speedup),
    *((ask, "number", (lambda a: lambda setup: numerics.derive_format(setup, a))(ask)) for ask in numerics.FORMAT_ASKS),
    ("fp8_scale", "number", numerics.derive_fp8_scale),
    ("sm_peak_flops", "flops", hardware.derive_sm_peak),  # FLOP/s, shown as TFLOPs (what people write TFLOPS for)
    ("hbm_bandwidth", "bandwidth", hardware.derive_hbm),
    ("bytes_in_flight", "bytes", hardware.derive_in_flight),
    ("transfer_s", "seconds", hardware.derive_transfer),
    ("kv_transfer_bytes", "bytes", disagg.derive_bytes),
    ("kv_transfer_s", "seconds", disagg.derive_seconds),
    ("corpus_tokens", "count", data.derive_corpus),
    ("lsh_match_probability", "ratio", data.derive_lsh),
    ("padding_waste", "ratio", data.derive_padding),
    ("packed_sequences", "count", data.derive_packing),
    ("mup_lr", "number", mup.derive),
)

EXTRA_ASKS: Mapping[str, str] = MappingProxyType({ask: kind for ask, kind, _ in _ASKS})
# the unit `quizapp calc --ask` shows each in (a drill shows its own `unit`)
DISPLAY_UNITS: Mapping[str, str] = MappingProxyType({
    "spec_tokens_per_round": "tokens", "spec_speedup": "x", "fp8_scale": "x", "sm_peak_flops": "TFLOPs",
    "hbm_bandwidth": "GB/s", "bytes_in_flight": "MB", "transfer_s": "ms", "kv_transfer_bytes": "GB",
    "kv_transfer_s": "ms", "corpus_tokens": "tokens", "lsh_match_probability": "%", "padding_waste": "%",
    "packed_sequences": "count", "mup_lr": "x",
    **{ask: "x" for ask in numerics.FORMAT_ASKS},
})
# asks that also use the setup's model (the rest refuse nothing for a missing model: they need none)
MODEL_ASKS = ("kv_transfer_bytes", "kv_transfer_s")
_DERIVE: Mapping[str, Callable[..., Derivation]] = MappingProxyType({ask: f for ask, _, f in _ASKS})


def derive(setup, ask: str) -> Derivation:
    """The derivation of extra ask `ask` for `setup` (SetupError naming a missing or bad key)."""
    if ask in MODEL_ASKS and _no_model(setup):
        from quizapp.memory.setup import SetupError

        raise SetupError("model", f"missing; {ask} needs the model whose KV cache moves (a preset or a shape)")
    return _DERIVE[ask](setup)


def _no_model(setup) -> bool:
    from quizapp.memory.extras import NO_MODEL

    return setup.model is NO_MODEL
