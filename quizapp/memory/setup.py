"""Calculator inputs: the typed `Setup` and `setup_from_options`, the one parser of them.

The CLI (argparse dest names) and YAML drills (`setup:` blocks) both go through
`setup_from_options`, so a value means the same thing everywhere and every bad value gets the same
one-line error naming the field, the accepted values and a did-you-mean.
"""

from __future__ import annotations

import difflib
import math
import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Mapping

from quizapp.memory.gpus import GPU, GPU_ALIASES, GPUS
from quizapp.memory.models import (
    BIASES, PRESETS, STYLES, CountRangeError, ModelSpec, bare_model, llama_ffn, parse_count,
)

METHODS = ("full", "lora", "qlora", "inference")
PRECISIONS = ("fp32", "bf16-mixed", "fp16-mixed", "bf16")
OPTIMIZERS = ("adamw", "adam", "adamw-8bit", "sgd", "sgd-momentum", "lion", "adafactor")
RECOMPUTES = ("none", "selective", "full")
ATTENTIONS = ("flash", "eager")
LOSSES = ("standard", "chunked")
IMPLS = ("ideal", "hf")
OFFLOADS = ("none", "optimizer", "optimizer+params")
LORA_TARGETS = ("qv", "all-linear")
WEIGHT_DTYPES = ("16-bit", "int8", "int4", "nf4")
KV_DTYPES = ("16-bit", "fp8", "int8", "int4")

OPTION_KEYS = (
    "model", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "style", "tied", "positions",
    "bias", "method", "precision", "grads", "optimizer", "batch", "seq", "recompute", "attention",
    "loss", "impl", "zero", "gpus", "offload", "lora_rank", "lora_targets", "weights_dtype", "kv_dtype",
    "double_quant", "gpu", "mfu", "reserve", "overhead",
)
SHAPE_KEYS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "style", "tied", "positions", "bias")

_ALIASES: dict[str, dict[str, str]] = {
    "method": {"ft": "full", "full-finetune": "full", "finetune": "full", "infer": "inference",
               "serve": "inference", "serving": "inference"},
    "precision": {"mixed": "bf16-mixed", "amp": "bf16-mixed", "bf16-amp": "bf16-mixed",
                  "fp16-amp": "fp16-mixed", "float32": "fp32", "32": "fp32", "pure-bf16": "bf16"},
    "optimizer": {"adam8bit": "adamw-8bit", "adamw8bit": "adamw-8bit", "adam-8bit": "adamw-8bit",
                  "8bit-adam": "adamw-8bit", "8-bit-adam": "adamw-8bit", "8bit-adamw": "adamw-8bit",
                  "momentum": "sgd-momentum"},
    "recompute": {"off": "none", "no": "none", "false": "none", "0": "none", "on": "full",
                  "true": "full", "yes": "full", "checkpointing": "full"},
    "attention": {"sdpa": "flash", "flash-attention": "flash", "flashattention": "flash"},
    "loss": {"fused": "chunked"},
    "offload": {"no": "none", "off": "none", "false": "none", "cpu": "optimizer",
                "optimizer-params": "optimizer+params", "params": "optimizer+params"},
    "lora_targets": {"all": "all-linear", "q-v": "qv", "q,v": "qv"},
    "weights_dtype": {"16": "16-bit", "bf16": "16-bit", "fp16": "16-bit", "16bit": "16-bit",
                      "8-bit": "int8", "8bit": "int8", "4-bit": "int4", "4bit": "int4"},
    "kv_dtype": {"16": "16-bit", "bf16": "16-bit", "fp16": "16-bit", "16bit": "16-bit", "8-bit": "int8",
                 "8bit": "int8", "fp8-e4m3": "fp8", "e4m3": "fp8", "4-bit": "int4", "4bit": "int4"},
}


class SetupError(ValueError):
    """A bad calculator input: `field` names the setting (setup key), `message` says what was expected."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Setup:
    """Every calculator input, typed and validated (construct directly or with setup_from_options)."""

    model: ModelSpec
    method: str = "full"
    precision: str = "bf16-mixed"
    grads: int = 16  # gradient bits under mixed/bf16 precision; fp32 precision forces 32
    optimizer: str = "adamw"
    batch: int = 1
    seq: int = 2048
    recompute: str = "none"
    attention: str = "flash"
    loss: str = "standard"
    impl: str = "ideal"
    zero: int = 0
    gpus: int = 1
    offload: str = "none"
    lora_rank: int = 8  # PEFT's LoraConfig default
    lora_targets: str = "qv"  # the LoRA paper's choice
    weights_dtype: str = "16-bit"  # inference only
    kv_dtype: str = "16-bit"  # inference only
    double_quant: bool = True  # QLoRA paper's setting (Hugging Face defaults to False)
    gpu: GPU | None = None
    mfu: float = 0.4
    reserve: int = 2**30  # fit checks: CUDA context + allocator slack
    overhead: int = 0  # an explicit overhead term in the breakdown (spec section 1: default 0)

    def __post_init__(self) -> None:
        _check_choice("method", self.method, METHODS)
        _check_choice("precision", self.precision, PRECISIONS)
        _check_choice("optimizer", self.optimizer, OPTIMIZERS)
        _check_choice("recompute", self.recompute, RECOMPUTES)
        _check_choice("attention", self.attention, ATTENTIONS)
        _check_choice("loss", self.loss, LOSSES)
        _check_choice("impl", self.impl, IMPLS)
        _check_choice("offload", self.offload, OFFLOADS)
        _check_choice("lora_targets", self.lora_targets, LORA_TARGETS)
        _check_choice("weights_dtype", self.weights_dtype, WEIGHT_DTYPES)
        _check_choice("kv_dtype", self.kv_dtype, KV_DTYPES)
        if self.grads not in (16, 32):
            raise SetupError("grads", f"expected 16 or 32, got {self.grads!r}")
        if self.precision == "fp32" and self.grads != 32:
            # fp32 training has fp32 gradients; Setup() defaults grads to 16, so map silently only there
            object.__setattr__(self, "grads", 32)
        for name in ("batch", "seq", "gpus", "lora_rank"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise SetupError(name, f"expected a positive integer, got {value!r}")
        if self.zero not in (0, 1, 2, 3):
            raise SetupError("zero", f"expected a ZeRO stage 0, 1, 2 or 3, got {self.zero!r}")
        if not (0 < self.mfu <= 1):
            raise SetupError("mfu", f"expected a fraction in (0, 1], e.g. 0.4 or 40%, got {self.mfu!r}")
        if self.reserve < 0 or self.overhead < 0:
            raise SetupError("reserve" if self.reserve < 0 else "overhead", "expected bytes >= 0")
        if self.gpu is not None and self.reserve >= self.gpu.capacity:
            raise SetupError("reserve", reserve_message(self.reserve, self.gpu))
        training = self.method != "inference"
        if self.offload == "optimizer+params" and self.zero != 3:
            raise SetupError("offload", f"optimizer+params needs ZeRO stage 3 (zero 3), got zero {self.zero}")
        if not training and self.zero:
            raise SetupError("zero", "ZeRO shards training states; expected 0 with method inference")
        if not training and self.offload != "none":
            raise SetupError("offload", "offload is a training setting; expected none with method inference")
        if training and self.weights_dtype != "16-bit":
            raise SetupError(
                "weights_dtype",
                f"{self.weights_dtype} applies to method inference; expected 16-bit for method "
                f"{self.method} (use method qlora for an NF4 base)",
            )
        if not self.model.has_shape:
            needs = None
            if self.optimizer == "adafactor" and training:
                needs = ("optimizer", "adafactor's factored states need the matrix shapes")
            elif self.offload == "optimizer+params":
                needs = ("offload", "optimizer+params keeps one block's weights on the GPU")
            elif self.method in ("lora", "qlora"):
                needs = ("method", f"{self.method} adapts the block matrices")
            if needs:
                raise SetupError(needs[0], f"{needs[1]}: give a preset or layers/hidden/heads, not a bare count")

    # --- derived -----------------------------------------------------------------------------------
    @property
    def training(self) -> bool:
        return self.method != "inference"

    @property
    def mixed(self) -> bool:
        return self.precision in ("bf16-mixed", "fp16-mixed")

    @property
    def activation_bytes(self) -> int:
        """p: bytes per activation element (4 for fp32, 2 for 16-bit and mixed)."""
        return 4 if self.precision == "fp32" else 2

    @property
    def tokens(self) -> int:
        return self.batch * self.seq

    def with_(self, **changes: object) -> "Setup":
        return replace(self, **changes)


def _check_choice(field: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise SetupError(field, _expected(choices, value))


def _expected(choices, got: object, extra: str = "") -> str:
    text = f"expected {' | '.join(str(c) for c in choices)}{extra}, got {got!r}"
    close = difflib.get_close_matches(str(got).lower(), [str(c) for c in choices], n=1, cutoff=0.6)
    return text + (f"; did you mean {close[0]}?" if close else "")


def reserve_message(reserve: int, gpu: GPU) -> str:
    """Why a reserve of `reserve` bytes leaves nothing usable on `gpu` (shared with fit())."""
    return (f"{reserve / 2**30:,.2f} GiB is at or above {gpu.name}'s capacity of {gpu.capacity / 2**30:,.2f} GiB; "
            f"expected bytes below the capacity (default 1 GiB)")


def suggest(key: str, names, aliases: Mapping[str, str] | None = None, limit: int = 4) -> list[str]:
    """Names the user probably meant by `key`: prefix and substring matches first, then difflib.

    "a100" -> a100-40g, a100-80g (a prefix), rather than difflib's closest spelling v100-32g.
    Aliases count as names and suggest what they stand for.
    """
    aliases = aliases or {}
    pool = list(names) + list(aliases)
    found: list[str] = []

    def add(name: str) -> None:
        target = aliases.get(name, name)
        if target not in found:
            found.append(target)

    if key:
        for name in pool:
            if name.startswith(key):
                add(name)
        for name in pool:
            if key in name or (len(name) >= 3 and name in key):
                add(name)
    if not found:
        for name in difflib.get_close_matches(key, pool, n=1, cutoff=0.6):
            add(name)
    return found[:limit]


def _did_you_mean(options: list[str]) -> str:
    if not options:
        return ""
    return "; did you mean " + (options[0] if len(options) == 1 else ", ".join(options[:-1]) + " or " + options[-1]) + "?"


def _norm(value: object) -> str:
    text = unicodedata.normalize("NFKC", str(value)).strip().lower()
    return re.sub(r"[\s_]+", "-", text)


def _choice(field: str, value: object, choices: tuple[str, ...]) -> str:
    key = _norm(value)
    key = _ALIASES.get(field, {}).get(key, key)
    if key in choices:
        return key
    raise SetupError(field, _expected(choices, value))


def _int(field: str, value: object, minimum: int = 1, k_suffix: bool = False) -> int:
    if isinstance(value, bool):
        raise SetupError(field, f"expected an integer >= {minimum}, got {value!r}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    else:
        text = unicodedata.normalize("NFKC", str(value)).strip().lower().replace(",", "").replace("_", "")
        scale = 1
        if k_suffix and text.endswith("k"):
            text, scale = text[:-1], 1024
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            hint = " (or Nk = N×1024)" if k_suffix else ""
            raise SetupError(field, f"expected an integer >= {minimum}{hint}, got {value!r}")
        number = int(text) * scale
    if number < minimum:
        raise SetupError(field, f"expected an integer >= {minimum}, got {value!r}")
    return number


def _bool(field: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    key = _norm(value)
    if key in ("true", "yes", "on", "1", "y"):
        return True
    if key in ("false", "no", "off", "0", "n"):
        return False
    raise SetupError(field, f"expected true or false, got {value!r}")


def _fraction(field: str, value: object) -> float:
    if isinstance(value, bool):
        raise SetupError(field, f"expected a fraction in (0, 1], e.g. 0.4 or 40%, got {value!r}")
    text = unicodedata.normalize("NFKC", str(value)).strip()
    try:
        number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        number = math.nan
    if not (0 < number <= 1):
        raise SetupError(field, f"expected a fraction in (0, 1], e.g. 0.4 or 40%, got {value!r}")
    return number


_BYTE_UNITS = {"": 1, "b": 1, "bytes": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
               "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def _bytes(field: str, value: object) -> int:
    if isinstance(value, bool):
        raise SetupError(field, f"expected bytes like 1 GiB or 1073741824, got {value!r}")
    text = unicodedata.normalize("NFKC", str(value)).strip().lower().replace(",", "")
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)\s*([a-z]*)", text)
    if not match or match.group(2) not in _BYTE_UNITS:
        raise SetupError(field, f"expected bytes like 1 GiB or 1073741824, got {value!r}")
    number = float(match.group(1)) * _BYTE_UNITS[match.group(2)]
    if not math.isfinite(number):
        raise SetupError(field, f"expected a finite size, got {value!r}")
    return round(number)


def _gpu(value: object) -> GPU:
    if isinstance(value, GPU):
        return value
    key = _norm(value).replace("nvidia-", "")
    key = re.sub(r"(\d+)gb?$", r"\1g", key)
    key = GPU_ALIASES.get(key, key)
    if key.startswith("rtx") and not key.startswith("rtx-"):
        key = "rtx-" + key[3:]
    if key in GPUS:
        return GPUS[key]
    message = f"expected {' | '.join(GPUS)}, got {value!r}"
    raise SetupError("gpu", message + _did_you_mean(suggest(key, GPUS, GPU_ALIASES)))


def _model(value: object) -> ModelSpec:
    if isinstance(value, ModelSpec):
        return value
    key = _norm(value)
    key = key.replace("llama2", "llama-2").replace("llama3", "llama-3")
    if key in PRESETS:
        return PRESETS[key]
    try:
        count = parse_count(value)  # type: ignore[arg-type]
    except CountRangeError as exc:
        raise SetupError("model", str(exc)) from None
    except ValueError:
        pass
    else:
        return bare_model(count)
    message = (
        f"unknown model {value!r}; expected a preset ({', '.join(PRESETS)}) "
        "or a parameter count like 7B, 7e9, 6.7 billion, 70亿"
    )
    raise SetupError("model", message + _did_you_mean(suggest(key, PRESETS)))


def _shape(options: Mapping[str, object], base: ModelSpec | None) -> ModelSpec:
    """A custom shape from the shape keys, on top of a preset if one was named."""
    if base is not None and not base.has_shape:
        bad = next(k for k in SHAPE_KEYS if options.get(k) is not None)
        raise SetupError(bad, f"a shape setting needs a preset or a full shape, not the bare count {base.name}")
    style = _choice("style", options["style"], STYLES) if options.get("style") is not None else (
        base.style if base else "llama"
    )
    values: dict[str, object] = {}
    for key in ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab"):
        if options.get(key) is not None:
            values[key] = _int(key, options[key])
    if options.get("positions") is not None:
        values["positions"] = _int("positions", options["positions"], minimum=0)
    if base is None:
        for key in ("layers", "hidden", "heads"):
            if key not in values:
                raise SetupError(key, f"a custom shape needs --layers, --hidden and --heads (missing {key})")
        values.setdefault("kv_heads", values["heads"])
        values.setdefault("ffn", llama_ffn(values["hidden"]) if style == "llama" else 4 * values["hidden"])
        values.setdefault("vocab", 32000 if style == "llama" else 50257)
        values.setdefault("positions", 0 if style == "llama" else 1024)
        tied = style == "gpt"
        bias = "none" if style == "llama" else "all"
        name = "custom"
    else:
        if "heads" in values and "kv_heads" not in values:
            values["kv_heads"] = base.kv_heads if base.kv_heads != base.heads else values["heads"]
        tied, bias, name = base.tied, base.bias, f"{base.name} (modified)"
    if options.get("tied") is not None:
        tied = _bool("tied", options["tied"])
    if options.get("bias") is not None:
        bias = _choice("bias", options["bias"], BIASES)
    hidden = int(values.get("hidden", base.hidden if base else 0))
    heads = int(values.get("heads", base.heads if base else 0))
    kv_heads = int(values.get("kv_heads", base.kv_heads if base else 0))
    if hidden % heads:
        near = (d for d in range(max(1, heads - 4096), heads + 4096) if hidden % d == 0)
        divisors = sorted(near, key=lambda d: (abs(d - heads), d))[:4] or [1]
        raise SetupError("heads", f"{heads} heads do not divide hidden {hidden}; expected a divisor of hidden "
                                  f"(e.g. {', '.join(map(str, sorted(divisors)))})")
    if heads % kv_heads:
        raise SetupError("kv_heads", f"{kv_heads} KV heads do not divide {heads} heads; expected a divisor of heads")
    fields = dict(
        name=name, style=style, tied=tied, bias=bias,
        layers=int(values.get("layers", base.layers if base else 0)), hidden=hidden, heads=heads,
        kv_heads=kv_heads, ffn=int(values.get("ffn", base.ffn if base else 0)),
        vocab=int(values.get("vocab", base.vocab if base else 0)),
        positions=int(values.get("positions", base.positions if base else 0)),
    )
    return ModelSpec(**fields)  # type: ignore[arg-type]


def setup_from_options(options: Mapping[str, object]) -> Setup:
    """Parse calculator inputs (strings or numbers; None = not given) into a validated Setup."""
    for key in options:
        if key not in OPTION_KEYS:
            close = difflib.get_close_matches(str(key), OPTION_KEYS, n=1, cutoff=0.6)
            raise SetupError(
                str(key),
                f"unknown setting; expected one of {', '.join(OPTION_KEYS)}"
                + (f"; did you mean {close[0]}?" if close else ""),
            )
    given = {k: v for k, v in options.items() if v is not None}
    base = _model(given["model"]) if "model" in given else None
    if any(k in given for k in SHAPE_KEYS):
        model = _shape(given, base)
    elif base is None:
        raise SetupError("model", f"missing; expected a preset ({', '.join(PRESETS)}) or a parameter count like 7B")
    else:
        model = base
    kwargs: dict[str, object] = {"model": model}
    for key in ("method", "precision", "optimizer", "recompute", "attention", "loss", "impl", "offload",
                "lora_targets", "weights_dtype", "kv_dtype"):
        if key in given:
            choices = {
                "method": METHODS, "precision": PRECISIONS, "optimizer": OPTIMIZERS, "recompute": RECOMPUTES,
                "attention": ATTENTIONS, "loss": LOSSES, "impl": IMPLS, "offload": OFFLOADS,
                "lora_targets": LORA_TARGETS, "weights_dtype": WEIGHT_DTYPES, "kv_dtype": KV_DTYPES,
            }[key]
            value = given[key]
            if key == "recompute" and isinstance(value, bool):
                value = "full" if value else "none"
            kwargs[key] = _choice(key, value, choices)
    precision = kwargs.get("precision", "bf16-mixed")
    if "grads" in given:
        raw = _norm(given["grads"])
        raw = {"bf16": "16", "fp16": "16", "16-bit": "16", "fp32": "32", "32-bit": "32"}.get(raw, raw)
        if raw not in ("16", "32"):
            raise SetupError("grads", _expected(("16", "32"), given["grads"]))
        kwargs["grads"] = int(raw)
        if precision == "fp32" and raw == "16":
            raise SetupError("grads", "fp32 precision keeps 32-bit gradients; expected 32 (or a mixed precision)")
    for key in ("batch", "gpus", "lora_rank"):
        if key in given:
            kwargs[key] = _int(key, given[key])
    if "seq" in given:
        kwargs["seq"] = _int("seq", given["seq"], k_suffix=True)
    if "zero" in given:
        raw = _norm(given["zero"]).removeprefix("zero").removeprefix("-").removeprefix("stage").removeprefix("-")
        if raw not in ("0", "1", "2", "3"):
            raise SetupError("zero", f"expected a ZeRO stage 0 | 1 | 2 | 3, got {given['zero']!r}")
        kwargs["zero"] = int(raw)
    if "double_quant" in given:
        kwargs["double_quant"] = _bool("double_quant", given["double_quant"])
    if "gpu" in given:
        kwargs["gpu"] = _gpu(given["gpu"])
    if "mfu" in given:
        kwargs["mfu"] = _fraction("mfu", given["mfu"])
    for key in ("reserve", "overhead"):
        if key in given:
            kwargs[key] = _bytes(key, given[key])
    return Setup(**kwargs)  # type: ignore[arg-type]
