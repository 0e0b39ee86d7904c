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
from quizapp.memory.kernels import DTYPES as KERNEL_DTYPES
from quizapp.memory.kernels import KERNEL_KINDS, Kernel, KernelError
from quizapp.memory.errors import SetupError
from quizapp.memory.extras import EXTRA_KEYS, NO_EXTRAS, Extras, parse_extras
from quizapp.memory.models import (
    BIASES, PRESETS, STYLES, CountRangeError, ModelSpec, ShapeError, bare_model, llama_ffn, parse_count,
)

METHODS = ("full", "lora", "qlora", "inference", "ppo", "dpo", "grpo")
RLHF_METHODS = ("ppo", "dpo", "grpo")
PRECISIONS = ("fp32", "bf16-mixed", "fp16-mixed", "bf16")
OPTIMIZERS = ("adamw", "adam", "adamw-8bit", "sgd", "sgd-momentum", "lion", "adafactor")
RECOMPUTES = ("none", "selective", "full")
ATTENTIONS = ("flash", "eager")
LOSSES = ("standard", "chunked")
IMPLS = ("ideal", "hf")
OFFLOADS = ("none", "optimizer", "optimizer+params")
LORA_TARGETS = ("qv", "all-linear")
WEIGHT_FORMATS = ("bf16", "fp16", "fp8", "int8", "gptq-int4", "awq-int4", "nf4", "gguf-q8_0", "gguf-q6_k", "gguf-q4_0",
                  "mxfp4", "nvfp4")
WEIGHT_DTYPES = ("16-bit", "int8", "int4", "nf4")  # the old `weights_dtype` names, still accepted
KV_DTYPES = ("bf16", "fp16", "fp8", "int8", "int4")
COMPUTES = ("bf16", "fp8")
# How attention FLOPs are counted (section 19's conventions): PaLM's full count, halved by the causal
# mask, or left out (the 6N rule of thumb).
ATTENTION_COUNTS = ("full", "causal", "none")

OPTION_KEYS = (
    "model", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "style", "tied", "positions",
    "bias", "method", "precision", "grads", "optimizer", "batch", "seq", "recompute", "attention",
    "loss", "impl", "zero", "gpus", "offload", "lora_rank", "lora_targets", "weights_dtype", "kv_dtype",
    "double_quant", "gpu", "mfu", "reserve", "overhead",
    # memory-model.md Part II (sections 11-16)
    "head_dim", "qk_norm", "experts", "top_k", "expert_ffn", "shared_experts", "shared_ffn", "dense_layers",
    "router_bias", "q_lora_rank", "kv_lora_rank", "qk_nope_dim", "qk_rope_dim", "v_head_dim",
    "weights", "group_size", "tp", "pp", "ep", "sp", "microbatches", "interleave", "link_bandwidth",
    "kv_block", "gpu_util", "bandwidth_efficiency", "prompt", "group", "critic_model", "reward_model",
    "rollout_batch", "tokens_per_s", "train_tokens", "compute", "lora_dropout",
    # Part III (section 19): the conventions an interviewer accepts
    "attention_flops", "embeddings",
    # the extra asks (quizapp.memory.extras: speculative decoding, formats, GPU arithmetic, data, μP)
    *EXTRA_KEYS,
    # Part III sections 17-18: kernel arithmetic (quizapp.memory.kernels) and attention variants
    *("kernel", "shape", "dtype", "elements", "chain", "chain_inputs", "chain_outputs", "fused", "flash",
      "block_rows", "window", "global_every", "local_layers"),
)
# what a kernel reads (with `seq`, `head_dim` and `dtype`); with `kernel` given, `head_dim` is the kernel's
KERNEL_KEYS = ("kernel", "shape", "elements", "chain", "chain_inputs", "chain_outputs", "fused", "flash", "block_rows")
SHAPE_INT_KEYS = ("head_dim", "experts", "top_k", "expert_ffn", "shared_experts", "shared_ffn", "dense_layers",
                  "q_lora_rank", "kv_lora_rank", "qk_nope_dim", "qk_rope_dim", "v_head_dim",
                  "window", "global_every", "local_layers")
SHAPE_BOOL_KEYS = ("qk_norm", "router_bias")
SHAPE_KEYS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "style", "tied", "positions", "bias",
              *SHAPE_INT_KEYS, *SHAPE_BOOL_KEYS)

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
    "weights": {"16-bit": "bf16", "16": "bf16", "16bit": "bf16", "bfloat16": "bf16", "float16": "fp16",
                "half": "fp16", "8-bit": "int8", "8bit": "int8", "llm.int8": "int8", "llm-int8": "int8",
                "fp8-e4m3": "fp8", "e4m3": "fp8", "int4": "nf4", "4-bit": "nf4", "4bit": "nf4",
                "gptq": "gptq-int4", "gptq-4bit": "gptq-int4", "awq": "awq-int4", "awq-4bit": "awq-int4",
                "mx-fp4": "mxfp4", "nv-fp4": "nvfp4",
                # _norm turns "_" into "-": gguf-q4_0 arrives as gguf-q4-0
                "q8-0": "gguf-q8_0", "gguf-q8-0": "gguf-q8_0", "q6-k": "gguf-q6_k", "gguf-q6-k": "gguf-q6_k",
                "q4-0": "gguf-q4_0", "gguf-q4-0": "gguf-q4_0"},
    "kv_dtype": {"16-bit": "bf16", "16": "bf16", "16bit": "bf16", "bfloat16": "bf16", "float16": "fp16",
                 "8-bit": "int8", "8bit": "int8", "fp8-e4m3": "fp8", "e4m3": "fp8", "4-bit": "int4", "4bit": "int4"},
    "compute": {"bfloat16": "bf16", "16-bit": "bf16", "fp16": "bf16", "fp8-e4m3": "fp8", "e4m3": "fp8"},
    "dtype": {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32", "float": "fp32",
              "fp8-e4m3": "fp8", "e4m3": "fp8", "fp8-e5m2": "fp8", "e5m2": "fp8"},
    "kernel": {"matmul": "gemm", "gemv": "gemm", "mm": "gemm", "pointwise": "elementwise", "attn": "attention",
               "flash-attention": "attention"},
}
_ALIASES["weights_dtype"] = _ALIASES["weights"]  # the old key takes every name the new one does
# what the old `weights_dtype` names mean now (int4 was computed as NF4 before formats existed)
LEGACY_WEIGHTS = {"16-bit": "bf16", "int8": "int8", "int4": "nf4", "nf4": "nf4"}


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
    lora_dropout: float = 0.0  # peft's LoraConfig default; > 0 changes what adapters keep (section 4)
    weights: str = "bf16"  # weight format (section 12): inference, and the frozen base of LoRA
    kv_dtype: str = "bf16"  # KV-cache element type (section 12): inference and RLHF rollouts
    double_quant: bool = True  # QLoRA paper's setting (Hugging Face defaults to False)
    gpu: GPU | None = None
    mfu: float = 0.4  # the utilization setting; strictly the HFU (section 7)
    reserve: int = 2**30  # fit checks: CUDA context + allocator slack
    overhead: int = 0  # an explicit overhead term in the breakdown (spec section 1: default 0)
    group_size: int = 128  # GPTQ/AWQ quantization group
    tp: int = 1  # tensor-parallel degree t
    pp: int = 1  # pipeline-parallel stages
    ep: int = 1  # expert-parallel degree (divides experts and gpus)
    sp: bool = False  # sequence parallelism (with tp)
    microbatches: int = 1  # m micro-batches per step (pipeline schedule; `batch` is one micro-batch)
    interleave: int = 1  # v model chunks per GPU (interleaved 1F1B)
    link_bandwidth: float | None = None  # bytes/s per GPU, one direction; None = the GPU preset's nvlink
    kv_block: int = 16  # paged-KV block, tokens (vLLM default)
    gpu_util: float = 0.9  # vLLM gpu_memory_utilization
    bandwidth_efficiency: float = 1.0  # share of the memory bandwidth decode reaches
    prompt: int | None = None  # prefill length; None = seq
    group: int = 8  # GRPO responses per prompt (TRL's num_generations default)
    critic_model: ModelSpec | None = None  # PPO critic; None = the actor's shape with a value head
    reward_model: ModelSpec | None = None  # PPO reward model; None = the critic's shape
    rollout_batch: int | None = None  # PPO/GRPO generation batch; set = a rollout KV-cache term
    tokens_per_s: float | None = None  # measured training throughput (all GPUs) for the MFU ask
    train_tokens: int | None = None  # D training tokens for the budget and days asks
    compute: str = "bf16"  # peak FLOPs: bf16 or the preset's fp8
    attention_flops: str = "full"  # attention FLOPs: full (PaLM), causal (halved), none (6N)
    embeddings: bool = True  # the `params` ask counts the embedding and LM-head matrices (False: Kaplan's N)
    extras: Extras = NO_EXTRAS  # inputs only the extra asks read (extras.py); never a memory or time term
    kernel: Kernel | None = None  # one operation for the kernel asks (section 17); no memory term reads it
    dtype: str = "bf16"  # the kernel's element type and the peak it runs at (ridge, kernel_time)

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
        _check_choice("weights", _canonical(self, "weights", LEGACY_WEIGHTS), WEIGHT_FORMATS)
        _check_choice("kv_dtype", _canonical(self, "kv_dtype", {"16-bit": "bf16"}), KV_DTYPES)
        _check_choice("compute", self.compute, COMPUTES)
        _check_choice("attention_flops", self.attention_flops, ATTENTION_COUNTS)
        _check_choice("dtype", self.dtype, KERNEL_DTYPES)
        if self.grads not in (16, 32):
            raise SetupError("grads", f"expected 16 or 32, got {self.grads!r}")
        if self.precision == "fp32" and self.grads != 32:
            # fp32 training has fp32 gradients; Setup() defaults grads to 16, so map silently only there
            object.__setattr__(self, "grads", 32)
        for name in ("batch", "seq", "gpus", "lora_rank", "group_size", "tp", "pp", "ep", "microbatches",
                     "interleave", "kv_block", "group"):
            _check_positive(name, getattr(self, name))
        for name in ("prompt", "rollout_batch", "train_tokens"):
            if getattr(self, name) is not None:
                _check_positive(name, getattr(self, name))
        if self.zero not in (0, 1, 2, 3):
            raise SetupError("zero", f"expected a ZeRO stage 0, 1, 2 or 3, got {self.zero!r}")
        for name in ("mfu", "gpu_util", "bandwidth_efficiency"):
            if isinstance(getattr(self, name), bool) or not (0 < getattr(self, name) <= 1):
                raise SetupError(name, f"expected a fraction in (0, 1], e.g. 0.4 or 40%, got {getattr(self, name)!r}")
        if isinstance(self.lora_dropout, bool) or not (0 <= self.lora_dropout < 1):
            raise SetupError("lora_dropout", f"expected a probability in [0, 1), e.g. 0.05, got {self.lora_dropout!r}")
        for name in ("link_bandwidth", "tokens_per_s"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not (0 < value < math.inf)):
                raise SetupError(name, f"expected a positive finite rate, got {value!r}")
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
        if not training and self.pp > 1:
            raise SetupError("pp", "pipeline parallelism is modelled for training; expected 1 with method "
                                   "inference (serving shards with tp)")
        if self.interleave > 1 and self.pp == 1:
            raise SetupError("interleave", f"interleaving splits pipeline stages; expected 1 without pp, got {self.interleave}")
        if self.method == "qlora" and self.weights not in ("bf16", "nf4"):
            raise SetupError("weights", f"qlora's frozen base is nf4; expected nf4, got {self.weights} "
                                        f"(use method lora with weights {self.weights})")
        if self.method not in ("inference", "lora", "qlora") and self.weights not in ("bf16", "fp16"):
            raise SetupError(
                "weights",
                f"{self.weights} applies to method inference or the frozen base of lora; expected bf16 for "
                f"method {self.method} (use method qlora for an NF4 base)",
            )
        # critic_model, reward_model (ppo), rollout_batch (ppo, grpo) and group (grpo) are ignored by the
        # other methods rather than refused: a drill's extra_mistakes override the method and keep the rest
        if self.prompt is not None and self.prompt > self.seq:
            raise SetupError("prompt", f"the prompt is part of the context; expected at most seq = {self.seq}, "
                                       f"got {self.prompt}")
        m = self.model
        if self.ep > 1:
            if not m.is_moe:
                raise SetupError("ep", f"expert parallelism needs a mixture-of-experts model; expected 1 for {m.name}")
            if m.experts % self.ep:
                raise SetupError("ep", f"expected a divisor of experts = {m.experts}, got {self.ep}")
            if training and self.gpus % self.ep:
                raise SetupError("ep", f"experts are sharded inside the data-parallel group; expected a divisor of "
                                       f"gpus = {self.gpus}, got {self.ep}")
        if m.has_shape:
            if self.tp > 1 and m.heads % self.tp:
                raise SetupError("tp", f"tensor parallelism splits the {m.heads} heads; expected a divisor of "
                                       f"heads, got {self.tp}")
            if self.pp > m.layers:
                raise SetupError("pp", f"expected at most layers = {m.layers} stages, got {self.pp}")
        if not m.has_shape:
            needs = None
            if self.optimizer == "adafactor" and training:
                needs = ("optimizer", "adafactor's factored states need the matrix shapes")
            elif self.offload == "optimizer+params":
                needs = ("offload", "optimizer+params keeps one block's weights on the GPU")
            elif self.method in ("lora", "qlora"):
                needs = ("method", f"{self.method} adapts the block matrices")
            if needs:
                raise SetupError(needs[0], f"{needs[1]}: give a preset or layers/hidden/heads, not a bare count")
        elif self.method in ("lora", "qlora") and (m.is_moe or m.is_mla):
            raise SetupError("method", f"{self.method} on a mixture-of-experts or MLA model is not modelled "
                                       "(the spec lists LoRA's terms for dense attention blocks only)")

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

    @property
    def weights_dtype(self) -> str:
        """The old name of the weight format (16-bit | int8 | int4 | nf4, else the format itself)."""
        return {"bf16": "16-bit", "fp16": "16-bit"}.get(self.weights, self.weights)

    @property
    def world_size(self) -> int:
        """GPUs in all: gpus (the data-parallel degree N that ZeRO divides by) x tp x pp."""
        return self.gpus * self.tp * self.pp

    @property
    def prompt_tokens(self) -> int:
        """The prefill length: `prompt`, or the whole context."""
        return self.prompt if self.prompt is not None else self.seq

    @property
    def rlhf(self) -> bool:
        return self.method in RLHF_METHODS

    def with_(self, **changes: object) -> "Setup":
        return replace(self, **changes)


def _canonical(setup: "Setup", field: str, legacy: Mapping[str, str]) -> str:
    """Map an old name given directly to Setup (weights "16-bit", kv_dtype "16-bit") to the new one."""
    value = getattr(setup, field)
    if isinstance(value, str) and value in legacy:
        value = legacy[value]
        object.__setattr__(setup, field, value)
    return value


def _check_positive(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise SetupError(name, f"expected a positive integer, got {value!r}")


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
        if not re.fullmatch(r"[+-]?[0-9]{1,30}", text):  # bounded: int() of 5,000 digits raises (issue 15)
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
    extra: dict[str, object] = {}
    for key in SHAPE_INT_KEYS:
        if options.get(key) is not None:
            extra[key] = _int(key, options[key], minimum=0)
        elif base is not None:
            extra[key] = getattr(base, key)
    for key in SHAPE_BOOL_KEYS:
        if options.get(key) is not None:
            extra[key] = _bool(key, options[key])
        elif base is not None:
            extra[key] = getattr(base, key)
    if base is not None:
        extra["block_norms"] = base.block_norms
        extra["moe_family"] = base.moe_family
        if options.get("head_dim") is None and base.head_dim * base.heads == base.hidden:
            extra["head_dim"] = 0  # implicit in the preset: follow a changed hidden or heads
        if options.get("expert_ffn") is None and base.experts and base.expert_ffn == base.ffn and "ffn" in values:
            extra["expert_ffn"] = 0
        if options.get("shared_ffn") is None and base.experts and base.shared_ffn == base.expert_ffn:
            extra["shared_ffn"] = 0
        if options.get("experts") is not None and not extra["experts"]:  # experts 0: make it dense
            for key in ("top_k", "expert_ffn", "shared_experts", "shared_ffn", "dense_layers"):
                extra[key] = 0
            extra["router_bias"] = False
    if not extra.get("head_dim") and hidden % heads:
        near = (d for d in range(max(1, heads - 4096), heads + 4096) if hidden % d == 0)
        divisors = sorted(near, key=lambda d: (abs(d - heads), d))[:4] or [1]
        raise SetupError("heads", f"{heads} heads do not divide hidden {hidden}; expected a divisor of hidden "
                                  f"(e.g. {', '.join(map(str, sorted(divisors)))}) or an explicit head_dim")
    if heads % kv_heads:
        raise SetupError("kv_heads", f"{kv_heads} KV heads do not divide {heads} heads; expected a divisor of heads")
    if base is None and extra.get("experts") and "ffn" not in values:
        values["ffn"] = int(extra.get("expert_ffn") or 0) or llama_ffn(hidden)
    fields = dict(
        name=name, style=style, tied=tied, bias=bias,
        layers=int(values.get("layers", base.layers if base else 0)), hidden=hidden, heads=heads,
        kv_heads=kv_heads, ffn=int(values.get("ffn", base.ffn if base else 0)),
        vocab=int(values.get("vocab", base.vocab if base else 0)),
        positions=int(values.get("positions", base.positions if base else 0)),
        **extra,
    )
    try:
        return ModelSpec(**fields)  # type: ignore[arg-type]
    except ShapeError as exc:
        raise SetupError(exc.field, exc.message) from None


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
    kernel_head_dim = given.pop("head_dim", None) if "kernel" in given else None
    base = _model(given["model"]) if "model" in given else None
    if any(k in given for k in SHAPE_KEYS):
        model = _shape(given, base)
    elif base is None:
        if not any(k in given for k in (*EXTRA_KEYS, *KERNEL_KEYS, "dtype")):
            raise SetupError("model", f"missing; expected a preset ({', '.join(PRESETS)}) or a parameter count like 7B")
        from quizapp.memory.extras import NO_MODEL

        model = NO_MODEL  # an extra ask's setup (acceptance, format, sms, ...) needs no model; model asks refuse it
    else:
        model = base
    kwargs: dict[str, object] = {"model": model, "extras": parse_extras(given)}
    choices = {
        "method": METHODS, "precision": PRECISIONS, "optimizer": OPTIMIZERS, "recompute": RECOMPUTES,
        "attention": ATTENTIONS, "loss": LOSSES, "impl": IMPLS, "offload": OFFLOADS,
        "lora_targets": LORA_TARGETS, "weights": WEIGHT_FORMATS, "kv_dtype": KV_DTYPES, "compute": COMPUTES,
        "attention_flops": ATTENTION_COUNTS,
    }
    if "weights" in given and "weights_dtype" in given:
        raise SetupError("weights_dtype", "the old name of weights; expected one of them, not both")
    weights_key = "weights_dtype" if "weights_dtype" in given else "weights"
    for key, accepted in choices.items():
        source = weights_key if key == "weights" else key
        if source in given:
            value = given[source]
            if key == "recompute" and isinstance(value, bool):
                value = "full" if value else "none"
            if source == "weights_dtype":
                key_norm = _norm(value)
                if key_norm in LEGACY_WEIGHTS:
                    kwargs[key] = LEGACY_WEIGHTS[key_norm]
                    continue
            kwargs[key] = _choice(source, value, accepted)
    precision = kwargs.get("precision", "bf16-mixed")
    if "grads" in given:
        raw = _norm(given["grads"])
        raw = {"bf16": "16", "fp16": "16", "16-bit": "16", "fp32": "32", "32-bit": "32"}.get(raw, raw)
        if raw not in ("16", "32"):
            raise SetupError("grads", _expected(("16", "32"), given["grads"]))
        kwargs["grads"] = int(raw)
        if precision == "fp32" and raw == "16":
            raise SetupError("grads", "fp32 precision keeps 32-bit gradients; expected 32 (or a mixed precision)")
    for key in ("batch", "gpus", "lora_rank", "group_size", "tp", "pp", "ep", "microbatches", "interleave",
                "kv_block", "group", "rollout_batch"):
        if key in given:
            kwargs[key] = _int(key, given[key])
    for key in ("seq", "prompt"):
        if key in given:
            kwargs[key] = _int(key, given[key], k_suffix=True)
    if "zero" in given:
        raw = _norm(given["zero"]).removeprefix("zero").removeprefix("-").removeprefix("stage").removeprefix("-")
        if raw not in ("0", "1", "2", "3"):
            raise SetupError("zero", f"expected a ZeRO stage 0 | 1 | 2 | 3, got {given['zero']!r}")
        kwargs["zero"] = int(raw)
    for key in ("double_quant", "sp", "embeddings"):
        if key in given:
            kwargs[key] = _bool(key, given[key])
    if "gpu" in given:
        kwargs["gpu"] = _gpu(given["gpu"])
    for key in ("mfu", "gpu_util", "bandwidth_efficiency"):
        if key in given:
            kwargs[key] = _fraction(key, given[key])
    for key in ("reserve", "overhead"):
        if key in given:
            kwargs[key] = _bytes(key, given[key])
    if "lora_dropout" in given:
        raw = given["lora_dropout"]
        try:
            text = unicodedata.normalize("NFKC", str(raw)).strip()
            kwargs["lora_dropout"] = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise SetupError("lora_dropout", f"expected a probability in [0, 1), e.g. 0.05, got {raw!r}") from None
        if isinstance(raw, bool):
            raise SetupError("lora_dropout", f"expected a probability in [0, 1), e.g. 0.05, got {raw!r}")
    if "link_bandwidth" in given:
        kwargs["link_bandwidth"] = _rate("link_bandwidth", given["link_bandwidth"], _BANDWIDTH_UNITS,
                                         "bytes/s like 50 GB/s, 400 Gb/s or 5e10")
    if "tokens_per_s" in given:
        kwargs["tokens_per_s"] = _rate("tokens_per_s", given["tokens_per_s"], _TOKEN_RATE_UNITS,
                                       "tokens/s like 3000, 3k or 1.2M tokens/s")
    if "train_tokens" in given:
        kwargs["train_tokens"] = _tokens("train_tokens", given["train_tokens"])
    for key in ("critic_model", "reward_model"):
        if key in given:
            try:
                kwargs[key] = _model(given[key])
            except SetupError as exc:
                raise SetupError(key, exc.message) from None
    if "dtype" in given:
        kwargs["dtype"] = _choice("dtype", given["dtype"], KERNEL_DTYPES)
    if "kernel" in given:
        kwargs["kernel"] = _kernel(given, kernel_head_dim, str(kwargs.get("dtype", "bf16")))
    else:
        for key in KERNEL_KEYS:
            if key in given:
                raise SetupError(key, "a kernel input; expected kernel: gemm | elementwise | attention with it")
    try:
        return Setup(**kwargs)  # type: ignore[arg-type]
    except SetupError as exc:
        if exc.field == "weights" and weights_key == "weights_dtype":
            raise SetupError("weights_dtype", exc.message.replace("expected bf16", "expected 16-bit")) from None
        raise


def _int_list(field: str, value: object) -> list[int]:
    """[4096, 4096, 4096] from a YAML list or "4096,4096,4096" / "4096x4096x4096" / "[4096, 4096, 4096]"."""
    if isinstance(value, (list, tuple)):
        items: list[object] = list(value)
    else:
        text = unicodedata.normalize("NFKC", str(value)).strip().strip("[]()")
        items = [t for t in re.split(r"\s*[,x×*]\s*|\s+", text) if t]
    return [_int(field, item) for item in items]


def _chain(value: object) -> tuple[tuple[int, int], ...]:
    """[[1, 1], [2, 1]] from YAML, or "1:1,2:1" on the command line: (inputs, outputs) per op."""
    expected = "expected one [inputs, outputs] pair per op, e.g. [[1, 1], [2, 1]] or 1:1,2:1"
    if isinstance(value, (list, tuple)):
        pairs = [p if isinstance(p, (list, tuple)) else [p] for p in value]
    else:
        text = unicodedata.normalize("NFKC", str(value)).strip()
        if text.startswith("["):
            pairs = [re.split(r"\s*,\s*", inner.strip()) for inner in re.findall(r"\[([^\[\]]*)\]", text)]
        else:
            pairs = [re.split(r"\s*:\s*", item) for item in re.split(r"\s*,\s*", text) if item]
    if not pairs or any(len(p) != 2 for p in pairs):
        raise SetupError("chain", f"{expected}, got {value!r}")
    try:
        return tuple((_int("chain", i), _int("chain", o)) for i, o in pairs)
    except SetupError:
        raise SetupError("chain", f"{expected} (positive integers), got {value!r}") from None


def _kernel(given: Mapping[str, object], head_dim: object, dtype: str) -> Kernel:
    """The Kernel of the kernel keys (section 17); each missing or bad key is a one-line error."""
    kind = _choice("kernel", given["kernel"], KERNEL_KINDS)
    args: dict[str, object] = {"kind": kind, "dtype": dtype}
    needs = {"gemm": ("shape",), "elementwise": ("elements", "chain"), "attention": ("seq", "head_dim")}[kind]
    for key in needs:
        if (head_dim if key == "head_dim" else given.get(key)) is None:
            raise SetupError(key, f"missing; kernel {kind} needs {', '.join(needs)}")
    allowed = {"gemm": ("shape",), "elementwise": ("elements", "chain", "chain_inputs", "chain_outputs", "fused"),
               "attention": ("flash", "block_rows")}[kind]
    for key in KERNEL_KEYS[1:]:
        if key in given and key not in allowed:
            raise SetupError(key, f"not an input of kernel {kind}; expected {', '.join(allowed) or 'none'}")
    if kind == "gemm":
        shape = _int_list("shape", given["shape"])
        if len(shape) != 3:
            raise SetupError("shape", f"expected [m, n, k] ((m x k) @ (k x n)), got {given['shape']!r}")
        args["shape"] = tuple(shape)
    elif kind == "elementwise":
        args["elements"] = _int("elements", given["elements"])
        args["chain"] = _chain(given["chain"])
        for key in ("chain_inputs", "chain_outputs"):
            if key in given:
                args[key] = _int(key, given[key])
        if "fused" in given:
            args["fused"] = _bool("fused", given["fused"])
    else:
        args["seq"] = _int("seq", given["seq"], k_suffix=True)
        args["head_dim"] = _int("head_dim", head_dim)
        if "flash" in given:
            args["flash"] = _bool("flash", given["flash"])
        if "block_rows" in given:
            if not args.get("flash"):
                raise SetupError("block_rows", "FlashAttention's query-block rows; expected flash: true with it")
            args["block_rows"] = _int("block_rows", given["block_rows"])
    try:
        return Kernel(**args)  # type: ignore[arg-type]
    except KernelError as exc:
        raise SetupError(exc.field, exc.message) from None


_BANDWIDTH_UNITS = {"": 1, "b/s": 1, "bytes/s": 1, "kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9, "tb/s": 1e12,
                    "kib/s": 2**10, "mib/s": 2**20, "gib/s": 2**30, "tib/s": 2**40,
                    # bits per second (network links): Gb/s, Gbps, Gbit/s
                    "gbps": 1e9 / 8, "gbit/s": 1e9 / 8, "tbps": 1e12 / 8, "tbit/s": 1e12 / 8, "mbps": 1e6 / 8}
_TOKEN_RATE_UNITS = {"": 1, "k": 1e3, "m": 1e6, "tokens/s": 1, "tok/s": 1, "k-tokens/s": 1e3, "ktok/s": 1e3,
                     "k-tok/s": 1e3, "m-tokens/s": 1e6, "m-tok/s": 1e6, "mtok/s": 1e6}


def _rate(field: str, value: object, units: Mapping[str, float], example: str) -> float:
    """A positive finite rate with an optional unit; `Gb/s` (bits) is told apart from `GB/s` (bytes)."""
    if isinstance(value, bool):
        raise SetupError(field, f"expected {example}, got {value!r}")
    text = unicodedata.normalize("NFKC", str(value)).strip().replace(",", "")
    match = re.fullmatch(r"([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*(.*)", text)
    unit = match.group(2).strip() if match else ""
    if match and field == "link_bandwidth" and re.fullmatch(r"[KMGT]b/s", unit):  # Gb/s: a lower-case b = bits
        scale: float | None = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[unit[0]] / 8
    else:
        scale = units.get(re.sub(r"\s+", "-", unit.lower())) if match else None
    if not match or scale is None:
        raise SetupError(field, f"expected {example}, got {value!r}")
    number = float(match.group(1)) * scale
    if not (0 < number < math.inf):
        raise SetupError(field, f"expected a positive finite rate ({example}), got {value!r}")
    return number


def _tokens(field: str, value: object) -> int:
    """A token count: 2T, 1.4e12, 15万亿 (the parameter-count grammar, 'tokens' allowed after it)."""
    text = value
    if isinstance(value, str):
        text = re.sub(r"\s*(tokens?|tok)\s*$", "", value.strip(), flags=re.IGNORECASE)
    try:
        return parse_count(text)  # type: ignore[arg-type]
    except ValueError:
        raise SetupError(field, f"expected a token count like 2T, 1.4e12 or 15万亿, got {value!r}") from None
