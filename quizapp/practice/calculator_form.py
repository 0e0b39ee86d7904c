"""The what-if calculator's form as data: which fields apply in which mode, the options they make,
everything the screen shows computed without Textual, and the "copy as drill" YAML.

Three modes share one form: training (memory on one GPU, RLHF), serving (paged KV cache,
concurrency, the decode roofline) and cluster (parallelism, communication, MFU and training time).
Choices and defaults come from quizapp.memory (setup.py's tuples, Setup's defaults, the presets'
shapes), and every value goes through setup_from_options, the one parser of calculator inputs, so a
rule of the calculator is never restated here: an invalid value comes back from it, named by field.
What this module decides is only relevance: which fields change a figure in the current mode (the
GPU count without ZeRO on one training GPU does not; expert parallelism needs a model with experts,
read from the preset's shape), so the form stays short.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path

CUSTOM = "custom"  # model choice: a shape typed into the shape fields
COUNT = "count"  # model choice: a bare parameter count (7B, 70亿)
DEFAULT_MODEL = "llama-2-7b"
DEFAULT_GPU = "a100-80g"
NO_GPU = "none"
SAME = "same"  # PPO's critic / reward model choice: the calculator's default (the actor's shape)
MODES = ("training", "serving", "cluster")
DEFAULT_MODE = "training"
_ALL = MODES


def _mode(values: Mapping[str, object]) -> str:
    mode = values.get("mode", DEFAULT_MODE)
    return mode if mode in MODES else DEFAULT_MODE


def _always(values: Mapping[str, object]) -> bool:
    return True


def _method(values: Mapping[str, object]) -> str:
    if _mode(values) == "serving":
        return "inference"
    return str(values.get("method") or "full")


def _lora(values: Mapping[str, object]) -> bool:
    return _method(values) in ("lora", "qlora")


def _quantized(values: Mapping[str, object]) -> bool:
    if _method(values) == "qlora":
        return True
    return _mode(values) == "serving" and values.get("weights") == "nf4"


def _grouped(values: Mapping[str, object]) -> bool:
    return _mode(values) == "serving" and values.get("weights") in ("gptq-int4", "awq-int4")


def _custom(values: Mapping[str, object]) -> bool:
    return values.get("model") == CUSTOM


def _count(values: Mapping[str, object]) -> bool:
    return values.get("model") == COUNT


def _sharded(values: Mapping[str, object]) -> bool:
    """Training mode asks for the GPU count only where ZeRO divides by it; cluster mode always."""
    return _mode(values) == "cluster" or str(values.get("zero", "0")) != "0"


def _with_gpu(values: Mapping[str, object]) -> bool:
    return values.get("gpu") not in (None, "", NO_GPU)


def _is_moe(values: Mapping[str, object]) -> bool:
    """The chosen model routes to experts (a preset's shape, or custom experts > 0)."""
    from quizapp.memory import PRESETS

    model = values.get("model")
    if model == CUSTOM:
        return str(values.get("experts") or "0").strip() not in ("", "0")
    preset = PRESETS.get(str(model))
    return bool(preset is not None and preset.has_shape and preset.is_moe)


def _pipelined(values: Mapping[str, object]) -> bool:
    return str(values.get("pp") or "1").strip() not in ("", "1")


def _tensor_parallel(values: Mapping[str, object]) -> bool:
    return str(values.get("tp") or "1").strip() not in ("", "1")


def _grpo(values: Mapping[str, object]) -> bool:
    return _method(values) == "grpo"


def _rollouts(values: Mapping[str, object]) -> bool:
    return _method(values) in ("ppo", "grpo")


def _ppo(values: Mapping[str, object]) -> bool:
    return _method(values) == "ppo"


@dataclass(frozen=True)
class FormField:
    """One input of the form. kind: "choice" (a Select), "number"/"text" (an Input), "switch".

    `key` is the setup key of quizapp.memory.setup_from_options, except `params` (the count typed
    when the model choice is "count", sent as `model`). The field is shown and sent only in `modes`
    and where `applies` says so: a hidden field never reaches the calculator, so it can never make
    the setup invalid.
    """

    key: str
    kind: str
    default: object
    choices: tuple[str, ...] = ()
    applies: Callable[[Mapping[str, object]], bool] = _always
    section: str = "model"
    modes: tuple[str, ...] = _ALL

    def shown(self, values: Mapping[str, object]) -> bool:
        return _mode(values) in self.modes and self.applies(values)


def _setup_default(name: str) -> object:
    from quizapp.memory import Setup

    for item in fields(Setup):
        if item.name == name:
            return item.default
    raise KeyError(name)


@lru_cache(maxsize=1)  # a constant: the presets and Setup's defaults never change at run time
def form_fields() -> tuple[FormField, ...]:
    """Every calculator setting, choices and defaults taken from quizapp.memory (never repeated here)."""
    from quizapp.memory import GPUS, PRESETS
    from quizapp.memory import setup as S

    shape = PRESETS[DEFAULT_MODEL]
    training_methods = tuple(m for m in S.METHODS if m != "inference")
    train = ("training", "cluster")

    def choice(key: str, choices, section: str, applies=_always, modes=_ALL) -> FormField:
        return FormField(key, "choice", str(_setup_default(key)), tuple(str(c) for c in choices), applies, section,
                         modes)

    def number(key: str, section: str, applies=_always, default=None, modes=_ALL) -> FormField:
        value = _setup_default(key) if default is None else default
        return FormField(key, "number", "" if value is None else str(value), (), applies, section, modes)

    def shape_number(key: str, value: object, applies=_custom) -> FormField:
        """A custom-shape field; a blank one takes the calculator's derived value (head_dim = h/a, ...)."""
        return FormField(key, "number", str(value), (), applies, "model")

    return (
        FormField("model", "choice", DEFAULT_MODEL, (*PRESETS, COUNT, CUSTOM), _always, "model"),
        FormField("params", "text", "7B", (), _count, "model"),
        shape_number("layers", shape.layers),
        shape_number("hidden", shape.hidden),
        shape_number("heads", shape.heads),
        shape_number("kv_heads", shape.kv_heads),
        shape_number("head_dim", ""),
        shape_number("ffn", shape.ffn),
        shape_number("vocab", shape.vocab),
        FormField("style", "choice", shape.style, tuple(S.STYLES), _custom, "model"),
        FormField("tied", "switch", shape.tied, (), _custom, "model"),
        shape_number("positions", shape.positions),
        FormField("bias", "choice", shape.bias, tuple(S.BIASES), _custom, "model"),
        shape_number("experts", ""),
        shape_number("top_k", "", lambda v: _custom(v) and _is_moe(v)),
        shape_number("expert_ffn", "", lambda v: _custom(v) and _is_moe(v)),
        FormField("method", "choice", "full", training_methods, _always, "run", train),
        choice("precision", S.PRECISIONS, "run", modes=train),
        FormField("grads", "choice", str(_setup_default("grads")), ("16", "32"), _always, "run", train),
        choice("optimizer", S.OPTIMIZERS, "run", modes=train),
        number("batch", "run"),
        number("seq", "run"),
        number("prompt", "run", modes=("serving",)),
        choice("recompute", S.RECOMPUTES, "run", modes=train),
        choice("attention", S.ATTENTIONS, "run", modes=("training",)),
        choice("loss", S.LOSSES, "run", modes=("training",)),
        choice("impl", S.IMPLS, "run", modes=("training",)),
        number("group", "run", _grpo, modes=train),
        number("rollout_batch", "run", _rollouts, default="", modes=("training",)),
        FormField("critic_model", "choice", SAME, (SAME, *PRESETS), _ppo, "run", ("training",)),
        FormField("reward_model", "choice", SAME, (SAME, *PRESETS), _ppo, "run", ("training",)),
        FormField("zero", "choice", "0", ("0", "1", "2", "3"), _always, "parallel", train),
        number("gpus", "parallel", _sharded, modes=train),
        choice("offload", S.OFFLOADS, "parallel", modes=("training",)),
        number("tp", "parallel", modes=("serving", "cluster")),
        FormField("sp", "switch", _setup_default("sp"), (), _tensor_parallel, "parallel", ("cluster",)),
        number("pp", "parallel", modes=("cluster",)),
        number("microbatches", "parallel", modes=("cluster",)),  # m·b·s tokens a step: TP and EP volumes too
        number("interleave", "parallel", _pipelined, modes=("cluster",)),
        number("ep", "parallel", _is_moe, modes=("cluster",)),
        number("link_bandwidth", "parallel", default="", modes=("cluster",)),
        number("lora_rank", "lora", _lora, modes=train),
        choice("lora_targets", S.LORA_TARGETS, "lora", _lora, modes=train),
        choice("weights", S.WEIGHT_FORMATS, "inference", modes=("serving",)),
        number("group_size", "inference", _grouped, modes=("serving",)),
        choice("kv_dtype", S.KV_DTYPES, "inference", modes=("serving",)),
        FormField("double_quant", "switch", _setup_default("double_quant"), (), _quantized, "lora"),
        number("kv_block", "inference", modes=("serving",)),
        FormField("gpu_util", "text", str(_setup_default("gpu_util")), (), _always, "inference", ("serving",)),
        FormField("bandwidth_efficiency", "text", str(_setup_default("bandwidth_efficiency")), (), _always,
                  "inference", ("serving",)),
        FormField("gpu", "choice", DEFAULT_GPU, (*GPUS, NO_GPU), _always, "hardware"),
        FormField("mfu", "text", str(_setup_default("mfu")), (), _with_gpu, "hardware"),
        choice("compute", S.COMPUTES, "hardware", _with_gpu),
        FormField("tokens_per_s", "text", "", (), _with_gpu, "hardware", ("cluster",)),
        FormField("train_tokens", "text", "", (), _always, "hardware", ("cluster",)),
    )


def default_values(mode: str = DEFAULT_MODE) -> dict[str, object]:
    return {"mode": mode, **{f.key: f.default for f in form_fields()}}


def visible_keys(values: Mapping[str, object]) -> list[str]:
    return [f.key for f in form_fields() if f.shown(values)]


def options_from_values(values: Mapping[str, object]) -> dict[str, object]:
    """The options dict for setup_from_options from the form's values (only the fields that apply).

    Blank inputs are left out (the calculator's default applies); the model choice becomes `model`
    (a preset name, the typed count, or nothing for a custom shape, whose shape keys say it all);
    serving mode is method inference.
    """
    options: dict[str, object] = {}
    for item in form_fields():
        if not item.shown(values):
            continue
        value = values.get(item.key, item.default)
        if isinstance(value, str):
            value = value.strip()
            if value == "":
                continue
        if item.key == "model":
            if value not in (CUSTOM, COUNT):
                options["model"] = value
        elif item.key == "params":
            options["model"] = value
        elif item.key == "gpu":
            if value != NO_GPU:
                options["gpu"] = value
        elif item.key in ("critic_model", "reward_model"):
            if value != SAME:
                options[item.key] = value
        else:
            options[item.key] = value
    if _mode(values) == "serving":
        options["method"] = "inference"
    return options


@dataclass(frozen=True)
class Solved:
    """A derived figure: its value, or why it cannot be computed for this setup. `hint` is what does
    fit when the answer is 0 (a words key and its arguments)."""

    value: float | None
    reason: str | None = None
    hint: tuple[str, dict] | None = None


@dataclass(frozen=True)
class Figures:
    """Everything the calculator screen shows for one set of form values."""

    options: dict[str, object]
    mode: str = DEFAULT_MODE
    setup: object | None = None  # quizapp.memory.Setup
    breakdown: object | None = None  # quizapp.memory.Breakdown
    fit: object | None = None  # quizapp.memory.Fit
    error_field: str | None = None  # the first field the calculator rejects
    error: str | None = None
    errors: dict[str, str] | None = None  # every rejected field -> its reason (error_field first)
    max_batch: Solved = Solved(None)
    max_seq: Solved = Solved(None)
    max_params: Solved = Solved(None)
    flops_per_token: Solved = Solved(None)
    step_time: Solved = Solved(None)
    serving: object | None = None  # quizapp.memory.Serving (serving mode)
    max_concurrency: Solved = Solved(None)
    max_context: Solved = Solved(None)
    min_tp: Solved = Solved(None)
    communication: object | None = None  # quizapp.memory.Communication (cluster mode)
    mfu: Solved = Solved(None)
    hfu: Solved = Solved(None)
    tokens_per_s: Solved = Solved(None)
    compute_budget: Solved = Solved(None)
    chinchilla: Solved = Solved(None)
    train_days: Solved = Solved(None)
    min_gpus: Solved = Solved(None)

    @property
    def ok(self) -> bool:
        return self.breakdown is not None


def _figures_of(setup, mode: str):
    """The mode's own figures; a SetupError here names a field like any parse error."""
    from quizapp import memory as M

    if mode == "serving":
        return M.serving_figures(setup), None
    if mode == "cluster":
        return None, M.communication(setup)
    return None, None


def _first_rejection(values: Mapping[str, object]) -> tuple[str, str] | None:
    """(field, reason) of the first thing setup_from_options (or the breakdown) rejects, or None."""
    from quizapp import memory as M

    options = options_from_values(values)
    if values.get("model") == COUNT and not options.get("model"):
        return "params", "expected a parameter count like 7B or 70亿"
    try:
        setup = M.setup_from_options(options)
        M.breakdown(setup)
        _figures_of(setup, _mode(values))
    except M.SetupError as exc:
        field = exc.field
        if field == "model" and values.get("model") == COUNT:
            field = "params"
        return field, exc.message
    return None


def rejected_fields(values: Mapping[str, object]) -> dict[str, str]:
    """Every field the calculator rejects, not only the first: after each rejection that field is put
    back to its default and the rest is checked again, until the setup is accepted."""
    defaults = default_values(_mode(values))
    trial = dict(values)
    errors: dict[str, str] = {}
    for _ in range(len(defaults) + 1):
        rejected = _first_rejection(trial)
        if rejected is None:
            break
        field, message = rejected
        errors.setdefault(field, message)
        if field not in defaults or trial.get(field) == defaults[field]:
            break  # the default itself is refused here (a combination): nothing more to learn
        trial[field] = defaults[field]
    return errors


def gpu_label(gpu_id: str) -> str:
    """A GPU id as people write it: a100-80g -> A100 80GB, rtx-4090 -> RTX 4090, l40s -> L40S."""
    words = []
    for part in gpu_id.split("-"):
        if part[:-1].isdigit() and part.endswith("g"):
            words.append(f"{part[:-1]}GB")
        else:
            words.append(part.upper())
    return " ".join(words)


def _solve(function, *args) -> Solved:
    from quizapp.memory import SetupError

    try:
        value = function(*args)
    except SetupError as exc:
        return Solved(None, exc.message)
    return Solved(None if value is None else float(value))


def _max_batch(setup) -> Solved:
    """The largest micro-batch; at 0, what does fit instead: the longest sequence at batch 1, or
    the memory batch 1 needs beyond the usable memory."""
    from quizapp import memory as M

    solved = _solve(M.max_batch, setup, setup.gpu, setup.reserve)
    if solved.value != 0:
        return solved
    one = setup.with_(batch=1)
    longest = _solve(M.max_seq, one, setup.gpu, setup.reserve)
    if longest.value:
        return Solved(0.0, hint=("calc.hint.shorter", {"seq": f"{int(longest.value):,}"}))
    states = M.breakdown(one.with_(seq=1)).total
    usable = setup.gpu.capacity - setup.reserve
    return Solved(0.0, hint=("calc.hint.states", {"need": f"{states / 1e9:,.2f} GB",
                                                  "usable": f"{usable / 1e9:,.2f} GB"}))


def _min_gpus(setup) -> Solved:
    from quizapp import memory as M

    try:
        plan = M.min_gpus(setup)
    except M.SetupError as exc:
        return Solved(None, exc.message)
    if plan is None:
        return Solved(None, "no number of GPUs fits: what does not shard exceeds one GPU")
    return Solved(float(plan.gpus), hint=(f"calc.hint.plan.{plan.strategy}", {"dp": plan.dp, "tp": plan.tp,
                                                                              "pp": plan.pp}))


def compute(values: Mapping[str, object], solve: bool = True) -> Figures:
    """Parse the form through setup_from_options and compute the breakdown and the mode's figures.

    A bad value or an invalid combination is returned as (error_field, error), never raised.
    """
    from quizapp import memory as M
    from quizapp.memory import throughput as T

    mode = _mode(values)
    options = options_from_values(values)
    errors = rejected_fields(values)
    if errors:
        field, message = next(iter(errors.items()))
        return Figures(options, mode, error_field=field, error=message, errors=errors)
    setup = M.setup_from_options(options)
    b = M.breakdown(setup)
    fit = M.fit(b, setup.gpu, setup.reserve) if setup.gpu is not None else None
    serving, communication = _figures_of(setup, mode)
    figures: dict[str, object] = dict(options=options, mode=mode, setup=setup, breakdown=b, fit=fit,
                                      flops_per_token=_solve(M.flops_per_token, setup), serving=serving,
                                      communication=communication)
    if setup.training:
        figures["chinchilla"] = _solve(T.setup_chinchilla_tokens, setup)
        if setup.train_tokens is not None:
            figures["compute_budget"] = _solve(T.setup_compute_budget, setup)
    if setup.gpu is None:
        missing = Solved(None, "needs a GPU")
        figures.update(max_batch=missing, max_seq=missing, max_params=missing, step_time=missing,
                       max_concurrency=missing, max_context=missing, min_tp=missing, min_gpus=missing, mfu=missing, hfu=missing,
                       tokens_per_s=missing, train_days=missing)
        return Figures(**figures)  # type: ignore[arg-type]
    if setup.training:
        utilisation = _solve(lambda: T.utilisation(setup)[0])
        figures.update(mfu=utilisation, hfu=_solve(lambda: T.utilisation(setup)[1]),
                       tokens_per_s=_solve(T.training_tokens_per_s, setup))
        if setup.train_tokens is not None:
            figures["train_days"] = _solve(T.setup_train_days, setup)
    if not solve:
        return Figures(**figures)  # type: ignore[arg-type]
    if mode == "serving":
        figures.update(
            max_concurrency=_solve(M.max_concurrency_at_context, setup),
            max_context=_solve(M.max_context_at_concurrency, setup),
            min_tp=_solve(M.min_tp, setup),
        )
    elif mode == "cluster":
        figures.update(min_gpus=_min_gpus(setup),
                       step_time=_solve(M.step_time, setup, setup.gpu))
    else:
        figures.update(
            max_batch=_max_batch(setup),
            max_seq=_solve(M.max_seq, setup, setup.gpu, setup.reserve),
            max_params=_solve(M.max_params, setup, setup.gpu, setup.reserve),
            step_time=_solve(M.step_time, setup, setup.gpu),
        )
    return Figures(**figures)  # type: ignore[arg-type]


def shares(breakdown) -> list[tuple[str, float, float]]:
    """(term name, bytes, share of the total) for each non-zero term, in the breakdown's order."""
    total = float(breakdown.total) or 1.0
    return [(t.name, float(t.bytes), float(t.bytes) / total) for t in breakdown.terms if t.bytes]


def bar(fraction: float, width: int) -> str:
    """A bar of `width` cells filled to `fraction` (clamped to 0..1), with eighth-cell precision."""
    cells = max(0.0, min(fraction, 1.0)) * width
    full = int(cells)
    eighths = int(round((cells - full) * 8))
    if eighths == 8:
        full, eighths = full + 1, 0
    partial = " ▏▎▍▌▋▊▉"[eighths] if eighths and full < width else ""
    return ("█" * full + partial).ljust(width, "·")


# --- copy as drill -------------------------------------------------------------------------------

# The asks a drill can be copied with, and the unit its answer is given in.
SNIPPET_ASKS = {
    "total": "GB", "model_states": "GB", "weights": "GB", "gradients": "GB", "master_weights": "GB",
    "optimizer_states": "GB", "activations": "GB", "kv_cache": "GB", "cpu": "GB",
    "params": "B", "trainable_params": "B", "max_params": "B", "step_time": "s",
    "reference_weights": "GB", "reward_weights": "GB", "rollout_kv_cache": "GB",
    # serving
    "kv_bytes_per_token": "KB", "kv_budget": "GB", "kv_tokens": "tokens", "max_concurrency": "count",
    "max_context": "tokens", "min_tp": "GPUs", "decode_step_s": "ms", "decode_tokens_per_s": "tokens/s",
    "per_seq_tokens_per_s": "tokens/s", "ttft": "ms", "critical_batch": "count",
    # cluster
    "comm_dp_bytes": "GB", "comm_tp_bytes": "GB", "comm_pp_bytes": "GB", "comm_ep_bytes": "GB",
    "comm_total_bytes": "GB", "comm_total_s": "ms", "bubble": "%", "mfu": "%", "hfu": "%",
    "tokens_per_s": "tokens/s", "compute_budget_flops": "EFLOPs", "chinchilla_tokens": "B", "train_days": "d",
    "min_gpus": "GPUs",
}
# which asks each mode offers (a mode's drill is about what the mode shows)
MODE_ASKS = {
    "training": ("total", "model_states", "weights", "gradients", "master_weights", "optimizer_states",
                 "activations", "cpu", "params", "trainable_params", "max_params", "step_time", "mfu", "hfu",
                 "chinchilla_tokens", "reference_weights", "reward_weights", "rollout_kv_cache"),
    "serving": ("total", "weights", "kv_cache", "kv_bytes_per_token", "kv_budget", "kv_tokens", "max_concurrency",
                "max_context", "min_tp", "decode_step_s", "decode_tokens_per_s", "per_seq_tokens_per_s", "ttft",
                "critical_batch", "params"),
    "cluster": ("total", "comm_dp_bytes", "comm_tp_bytes", "comm_pp_bytes", "comm_ep_bytes", "comm_total_bytes",
                "comm_total_s", "bubble", "mfu", "hfu", "tokens_per_s", "compute_budget_flops", "train_days",
                "min_gpus", "model_states", "activations"),
}
_UNIT_WORDS = {"B": "in billions", "s": "in seconds", "GB": "in GB", "KB": "in KB", "ms": "in ms", "d": "in days",
               "%": "in %", "tokens": "in tokens", "count": "as a number", "GPUs": "in GPUs",
               "tokens/s": "in tokens/s", "EFLOPs": "in EFLOPs"}
_ASK_NAMES = {
    "total": "the total GPU memory", "model_states": "the model states (weights, gradients, master weights, "
    "optimizer states)", "weights": "the weights", "gradients": "the gradients",
    "master_weights": "the fp32 master weights", "optimizer_states": "the optimizer states",
    "activations": "the activations", "kv_cache": "the KV cache", "cpu": "the memory offloaded to the CPU",
    "params": "the parameter count", "trainable_params": "the trainable parameters",
    "max_params": "the largest model that fits", "step_time": "the time of one training step",
    "kv_bytes_per_token": "the KV-cache bytes per token per GPU", "kv_budget": "the KV-cache budget per GPU",
    "kv_tokens": "the tokens the paged KV cache holds", "max_concurrency": "the most concurrent sequences",
    "max_context": "the longest context each sequence can hold", "min_tp": "the smallest tensor-parallel degree",
    "decode_step_s": "the decode step time", "decode_tokens_per_s": "the aggregate decode tokens/s",
    "per_seq_tokens_per_s": "each sequence's decode tokens/s", "ttft": "the time to first token",
    "critical_batch": "the critical decode batch",
    "comm_dp_bytes": "the data-parallel bytes one GPU sends per step",
    "comm_tp_bytes": "the tensor-parallel bytes one GPU sends per step",
    "comm_pp_bytes": "the pipeline bytes one GPU sends per step",
    "comm_ep_bytes": "the expert-parallel bytes one GPU sends per step",
    "comm_total_bytes": "the bytes one GPU sends per step", "comm_total_s": "the communication time per step",
    "bubble": "the pipeline bubble (share of the ideal time)", "mfu": "the MFU", "hfu": "the HFU",
    "tokens_per_s": "the training tokens/s", "compute_budget_flops": "the compute budget",
    "chinchilla_tokens": "Chinchilla's compute-optimal tokens", "train_days": "the training time",
    "min_gpus": "the fewest GPUs that fit", "reference_weights": "the frozen reference model's weights",
    "reward_weights": "the frozen reward model's weights", "rollout_kv_cache": "the rollouts' KV cache",
}
# How each setting reads in a prompt; `{key}` is filled from the drill's setup (so `vary:` works too).
_PHRASES = (
    ("precision", "{precision}"), ("grads", "{grads}-bit gradients"), ("optimizer", "{optimizer}"),
    ("batch", "micro-batch {batch}"), ("seq", "sequence {seq}"), ("prompt", "prompt {prompt}"),
    ("recompute", "recompute {recompute}"), ("attention", "{attention} attention"), ("loss", "{loss} loss"),
    ("impl", "{impl} implementation"), ("group", "group {group}"), ("rollout_batch", "rollout batch {rollout_batch}"),
    ("critic_model", "critic {critic_model}"), ("reward_model", "reward model {reward_model}"),
    ("zero", "ZeRO-{zero}"), ("gpus", "over {gpus} GPUs"), ("offload", "offload {offload}"),
    ("tp", "TP {tp}"), ("sp", "sequence parallel {sp}"), ("pp", "PP {pp}"), ("microbatches", "{microbatches} micro-batches"),
    ("interleave", "{interleave} chunks per GPU"), ("ep", "EP {ep}"), ("link_bandwidth", "links of {link_bandwidth} B/s"),
    ("lora_rank", "rank {lora_rank}"), ("lora_targets", "targets {lora_targets}"),
    ("weights", "{weights} weights"), ("group_size", "group size {group_size}"), ("kv_dtype", "{kv_dtype} KV cache"),
    ("double_quant", "double quantization {double_quant}"), ("kv_block", "KV blocks of {kv_block}"),
    ("gpu_util", "gpu_memory_utilization {gpu_util}"), ("bandwidth_efficiency", "{bandwidth_efficiency} of the bandwidth"),
    ("gpu", "on {gpu}"), ("mfu", "MFU {mfu}"), ("compute", "{compute} compute"),
    ("tokens_per_s", "measured {tokens_per_s} tokens/s"), ("train_tokens", "{train_tokens} training tokens"),
)
_SHAPE = (("layers", "{layers} layers"), ("hidden", "hidden {hidden}"), ("heads", "{heads} heads"),
          ("kv_heads", "{kv_heads} KV heads"), ("head_dim", "head size {head_dim}"), ("ffn", "FFN {ffn}"),
          ("vocab", "vocabulary {vocab}"), ("style", "{style} style"), ("tied", "tied embeddings {tied}"),
          ("positions", "{positions} positions"), ("bias", "biases {bias}"), ("experts", "{experts} experts"),
          ("top_k", "top-{top_k}"), ("expert_ffn", "expert FFN {expert_ffn}"))
_ALWAYS = {"precision", "optimizer", "lora_rank", "lora_targets"}  # what every answer of this method depends on
_SIZE_ASKS = {"total", "activations", "kv_cache", "cpu", "step_time", "kv_budget", "max_concurrency", "decode_step_s",
              "decode_tokens_per_s", "per_seq_tokens_per_s", "ttft", "comm_tp_bytes", "comm_pp_bytes", "comm_ep_bytes",
              "comm_total_bytes", "comm_total_s", "max_context", "min_tp", "min_gpus"}
_GPU_ASKS = {"max_params", "step_time", "kv_budget", "kv_tokens", "max_concurrency", "max_context", "min_tp",
             "decode_step_s", "decode_tokens_per_s", "per_seq_tokens_per_s", "ttft", "critical_batch", "comm_total_s",
             "mfu", "hfu", "tokens_per_s", "train_days", "min_gpus"}


def snippet_prompt(options: Mapping[str, object], ask: str) -> str:
    """A prompt someone can answer: the model, the method, and every setting that differs from the
    calculator's default (plus the ones this ask depends on), as `{key}` placeholders."""
    defaults = {key: str(value).strip() for key, value in default_values().items()}
    training = options.get("method", "full") != "inference"

    def wanted(key: str) -> bool:
        if key not in options:
            return False
        if key in _ALWAYS and training:  # (LoRA's keys are only in the options for LoRA/QLoRA)
            return True
        if key in ("batch", "seq") and ask in _SIZE_ASKS:
            return True
        if key == "gpu" and ask in _GPU_ASKS:
            return True
        if key == "mfu" and ask in ("step_time", "tokens_per_s", "train_days", "ttft"):
            return True
        if key == "gpus":
            return ("zero" in options and str(options["zero"]) != "0") or str(options["gpus"]) != "1"
        return str(options[key]).strip() != defaults.get(key)

    subject = "{model}" if "model" in options else "A model with " + ", ".join(
        phrase for key, phrase in _SHAPE if key in options)
    serving = {"batch": "{batch} concurrent sequences", "seq": "context {seq}"}  # what b and s mean there
    parts = [f"{subject}, {{method}}" if "method" in options else subject]
    parts += [serving.get(key, phrase) if not training else phrase for key, phrase in _PHRASES if wanted(key)]
    return f"{', '.join(parts)}: {_ASK_NAMES[ask]}, {_UNIT_WORDS[SNIPPET_ASKS[ask]]}?"


def snippet_asks(setup, mode: str | None = None) -> list[str]:
    """The asks a drill of this setup can be graded on (the calculator can evaluate them): the mode's
    own, or with no mode every ask a drill can be copied with."""
    from quizapp.memory import SetupError, evaluate

    ordered = MODE_ASKS[mode] if mode in MODE_ASKS else tuple(SNIPPET_ASKS)
    usable = []
    for ask in ordered:
        try:
            evaluate(setup, ask)
        except (SetupError, ValueError, ZeroDivisionError):
            continue
        usable.append(ask)
    return usable


def drill_snippet(options: Mapping[str, object], ask: str = "total", drill_id: str | None = None) -> str:
    """The setup as a YAML drill (a one-item list to paste under a question's `drills:`).

    Its prompt names the model and every setting that matters through `{key}` placeholders
    (`snippet_prompt`), so it can be answered as it is and a `vary:` can be added later.
    """
    import yaml

    if ask not in SNIPPET_ASKS:
        raise ValueError(f"ask: expected one of {', '.join(SNIPPET_ASKS)}, got {ask!r}")
    setup = {key: _plain(value) for key, value in options.items()}
    model = str(setup.get("model", "custom"))
    slug = "-".join("".join(ch if ch.isalnum() else " " for ch in model.lower()).split()) or "custom"
    unit = SNIPPET_ASKS[ask]
    prompt = snippet_prompt(options, ask)
    drill = {"id": drill_id or f"what-if-{slug}-{ask.replace('_', '-')}", "prompt": prompt, "setup": setup,
             "ask": ask, "unit": unit, "tolerance": "10%"}
    return yaml.safe_dump([drill], allow_unicode=True, sort_keys=False, default_flow_style=False, width=100)


def _plain(value: object) -> object:
    """YAML scalars as the drill schema wants them: numbers stay numbers, the rest strings/bools."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
        try:
            return float(value)
        except ValueError:
            pass
    return value


def backup_path(path: Path) -> Path:
    """`<name>.bak`, or `<name>.bak2`, `.bak3`, ... if that exists: a backup never replaces a backup."""
    candidate = path.with_name(path.name + ".bak")
    n = 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.bak{n}")
    return candidate


def save_snippet(path: Path, text: str) -> Path | None:
    """Write the snippet to `path`; an existing file is first copied to a backup, whose path is returned.

    Raises OSError with the reason (the screen shows it as one line).
    """
    path = Path(path).expanduser()
    if path.is_dir():
        raise IsADirectoryError(f"{path}: is a folder; expected a file name")
    backup = None
    if path.exists():
        backup = backup_path(path)
        shutil.copy2(path, backup)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return backup
