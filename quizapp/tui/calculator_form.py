"""The what-if calculator's form as data, and everything it shows computed without Textual.

The screen only renders: which fields exist and when they apply, the options dict they make, the
figures from `quizapp.memory` (through `setup_from_options`, the one parser of calculator inputs),
and the "copy as drill" YAML snippet all live here, with plain unit tests.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path

CUSTOM = "custom"  # model choice: a shape typed into the shape fields
COUNT = "count"  # model choice: a bare parameter count (7B, 70亿)
DEFAULT_MODEL = "llama-2-7b"
DEFAULT_GPU = "a100-80g"
NO_GPU = "none"


def _always(values: Mapping[str, object]) -> bool:
    return True


def _training(values: Mapping[str, object]) -> bool:
    return values.get("method") != "inference"


def _inference(values: Mapping[str, object]) -> bool:
    return values.get("method") == "inference"


def _lora(values: Mapping[str, object]) -> bool:
    return values.get("method") in ("lora", "qlora")


def _quantized(values: Mapping[str, object]) -> bool:
    return values.get("method") == "qlora" or (
        _inference(values) and values.get("weights_dtype") in ("int4", "nf4"))


def _custom(values: Mapping[str, object]) -> bool:
    return values.get("model") == CUSTOM


def _count(values: Mapping[str, object]) -> bool:
    return values.get("model") == COUNT


def _sharded(values: Mapping[str, object]) -> bool:
    return _training(values) and str(values.get("zero", "0")) != "0"


def _with_gpu(values: Mapping[str, object]) -> bool:
    return values.get("gpu") not in (None, "", NO_GPU)


@dataclass(frozen=True)
class FormField:
    """One input of the form. kind: "choice" (a Select), "number"/"text" (an Input), "switch".

    `key` is the setup key of quizapp.memory.setup_from_options, except `params` (the count typed
    when the model choice is "count", sent as `model`). `applies` says when the field is shown and
    sent: a hidden field never reaches the calculator, so it can never make the setup invalid.
    """

    key: str
    kind: str
    default: object
    choices: tuple[str, ...] = ()
    applies: Callable[[Mapping[str, object]], bool] = _always
    section: str = "model"


def _setup_default(name: str) -> object:
    from quizapp.memory import Setup

    for item in fields(Setup):
        if item.name == name:
            return item.default
    raise KeyError(name)


def form_fields() -> tuple[FormField, ...]:
    """Every calculator setting, choices and defaults taken from quizapp.memory (never repeated here)."""
    from quizapp.memory import GPUS, PRESETS
    from quizapp.memory import setup as S

    shape = PRESETS[DEFAULT_MODEL]

    def choice(key: str, choices, section: str, applies=_always) -> FormField:
        return FormField(key, "choice", str(_setup_default(key)), tuple(str(c) for c in choices), applies, section)

    def number(key: str, section: str, applies=_always, default=None) -> FormField:
        value = _setup_default(key) if default is None else default
        return FormField(key, "number", str(value), (), applies, section)

    return (
        FormField("model", "choice", DEFAULT_MODEL, (*PRESETS, COUNT, CUSTOM), _always, "model"),
        FormField("params", "text", "7B", (), _count, "model"),
        FormField("layers", "number", str(shape.layers), (), _custom, "model"),
        FormField("hidden", "number", str(shape.hidden), (), _custom, "model"),
        FormField("heads", "number", str(shape.heads), (), _custom, "model"),
        FormField("kv_heads", "number", str(shape.kv_heads), (), _custom, "model"),
        FormField("ffn", "number", str(shape.ffn), (), _custom, "model"),
        FormField("vocab", "number", str(shape.vocab), (), _custom, "model"),
        FormField("style", "choice", shape.style, tuple(S.STYLES), _custom, "model"),
        FormField("tied", "switch", shape.tied, (), _custom, "model"),
        FormField("positions", "number", str(shape.positions), (), _custom, "model"),
        FormField("bias", "choice", shape.bias, tuple(S.BIASES), _custom, "model"),
        choice("method", S.METHODS, "run"),
        choice("precision", S.PRECISIONS, "run", _training),
        FormField("grads", "choice", str(_setup_default("grads")), ("16", "32"), _training, "run"),
        choice("optimizer", S.OPTIMIZERS, "run", _training),
        number("batch", "run"),
        number("seq", "run"),
        choice("recompute", S.RECOMPUTES, "run", _training),
        choice("attention", S.ATTENTIONS, "run", _training),
        choice("loss", S.LOSSES, "run", _training),
        choice("impl", S.IMPLS, "run", _training),
        FormField("zero", "choice", "0", ("0", "1", "2", "3"), _training, "parallel"),
        number("gpus", "parallel", _sharded),
        choice("offload", S.OFFLOADS, "parallel", _training),
        number("lora_rank", "lora", _lora),
        choice("lora_targets", S.LORA_TARGETS, "lora", _lora),
        choice("weights_dtype", S.WEIGHT_DTYPES, "inference", _inference),
        choice("kv_dtype", S.KV_DTYPES, "inference", _inference),
        FormField("double_quant", "switch", _setup_default("double_quant"), (), _quantized, "lora"),
        FormField("gpu", "choice", DEFAULT_GPU, (*GPUS, NO_GPU), _always, "hardware"),
        FormField("mfu", "text", str(_setup_default("mfu")), (), lambda v: _training(v) and _with_gpu(v), "hardware"),
    )


def default_values() -> dict[str, object]:
    return {f.key: f.default for f in form_fields()}


def visible_keys(values: Mapping[str, object]) -> list[str]:
    return [f.key for f in form_fields() if f.applies(values)]


def options_from_values(values: Mapping[str, object]) -> dict[str, object]:
    """The options dict for setup_from_options from the form's values (only the fields that apply).

    Blank inputs are left out (the calculator's default applies); the model choice becomes `model`
    (a preset name, the typed count, or nothing for a custom shape, whose shape keys say it all).
    """
    options: dict[str, object] = {}
    for item in form_fields():
        if not item.applies(values):
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
        else:
            options[item.key] = value
    return options


@dataclass(frozen=True)
class Solved:
    """A derived figure: its value, or why it cannot be computed for this setup."""

    value: float | None
    reason: str | None = None


@dataclass(frozen=True)
class Figures:
    """Everything the calculator screen shows for one set of form values."""

    options: dict[str, object]
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

    @property
    def ok(self) -> bool:
        return self.breakdown is not None


def _first_rejection(values: Mapping[str, object]) -> tuple[str, str] | None:
    """(field, reason) of the first thing setup_from_options (or the breakdown) rejects, or None."""
    from quizapp import memory as M

    options = options_from_values(values)
    if values.get("model") == COUNT and not options.get("model"):
        return "params", "expected a parameter count like 7B or 70亿"
    try:
        M.breakdown(M.setup_from_options(options))
    except M.SetupError as exc:
        field = exc.field
        if field == "model" and values.get("model") == COUNT:
            field = "params"
        return field, exc.message
    return None


def rejected_fields(values: Mapping[str, object]) -> dict[str, str]:
    """Every field the calculator rejects, not only the first: after each rejection that field is put
    back to its default and the rest is checked again, until the setup is accepted."""
    defaults = default_values()
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
        return Solved(float(function(*args)))
    except SetupError as exc:
        return Solved(None, exc.message)


def compute(values: Mapping[str, object], solve: bool = True) -> Figures:
    """Parse the form through setup_from_options and compute the breakdown and derived figures.

    A bad value or an invalid combination is returned as (error_field, error), never raised.
    """
    from quizapp import memory as M

    options = options_from_values(values)
    errors = rejected_fields(values)
    if errors:
        field, message = next(iter(errors.items()))
        return Figures(options, error_field=field, error=message, errors=errors)
    setup = M.setup_from_options(options)
    b = M.breakdown(setup)
    fit = M.fit(b, setup.gpu, setup.reserve) if setup.gpu is not None else None
    figures = dict(options=options, setup=setup, breakdown=b, fit=fit,
                   flops_per_token=_solve(M.flops_per_token, setup))
    if setup.gpu is None:
        missing = Solved(None, "needs a GPU")
        figures.update(max_batch=missing, max_seq=missing, max_params=missing, step_time=missing)
    elif solve:
        figures.update(
            max_batch=_solve(M.max_batch, setup, setup.gpu, setup.reserve),
            max_seq=_solve(M.max_seq, setup, setup.gpu, setup.reserve),
            max_params=_solve(M.max_params, setup, setup.gpu, setup.reserve),
            step_time=_solve(M.step_time, setup, setup.gpu) if setup.training else Solved(None, "training only"),
        )
    return Figures(**figures)


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
}
_UNIT_WORDS = {"B": "in billions", "s": "in seconds", "GB": "in GB"}
_ASK_NAMES = {
    "total": "the total GPU memory", "model_states": "the model states (weights, gradients, master weights, "
    "optimizer states)", "weights": "the weights", "gradients": "the gradients",
    "master_weights": "the fp32 master weights", "optimizer_states": "the optimizer states",
    "activations": "the activations", "kv_cache": "the KV cache", "cpu": "the memory offloaded to the CPU",
    "params": "the parameter count", "trainable_params": "the trainable parameters",
    "max_params": "the largest model that fits", "step_time": "the time of one training step",
}
# How each setting reads in a prompt; `{key}` is filled from the drill's setup (so `vary:` works too).
_PHRASES = (
    ("precision", "{precision}"), ("grads", "{grads}-bit gradients"), ("optimizer", "{optimizer}"),
    ("batch", "micro-batch {batch}"), ("seq", "sequence {seq}"), ("recompute", "recompute {recompute}"),
    ("attention", "{attention} attention"), ("loss", "{loss} loss"), ("impl", "{impl} implementation"),
    ("zero", "ZeRO-{zero}"), ("gpus", "over {gpus} GPUs"), ("offload", "offload {offload}"),
    ("lora_rank", "rank {lora_rank}"), ("lora_targets", "targets {lora_targets}"),
    ("weights_dtype", "{weights_dtype} weights"), ("kv_dtype", "{kv_dtype} KV cache"),
    ("double_quant", "double quantization {double_quant}"), ("gpu", "on {gpu}"), ("mfu", "MFU {mfu}"),
)
_SHAPE = (("layers", "{layers} layers"), ("hidden", "hidden {hidden}"), ("heads", "{heads} heads"),
          ("kv_heads", "{kv_heads} KV heads"), ("ffn", "FFN {ffn}"), ("vocab", "vocabulary {vocab}"),
          ("style", "{style} style"), ("tied", "tied embeddings {tied}"), ("positions", "{positions} positions"),
          ("bias", "biases {bias}"))
_ALWAYS = {"precision", "optimizer", "lora_rank", "lora_targets"}  # what every answer of this method depends on
_SIZE_ASKS = {"total", "activations", "kv_cache", "cpu", "step_time"}  # depend on batch and sequence
_GPU_ASKS = {"max_params", "step_time"}


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
        if key == "mfu" and ask == "step_time":
            return True
        if key == "gpus":
            return "zero" in options and str(options["zero"]) != "0"
        return str(options[key]).strip() != defaults.get(key)

    subject = "{model}" if "model" in options else "A model with " + ", ".join(
        phrase for key, phrase in _SHAPE if key in options)
    parts = [f"{subject}, {{method}}" if "method" in options else subject]
    parts += [phrase for key, phrase in _PHRASES if wanted(key)]
    return f"{', '.join(parts)}: {_ASK_NAMES[ask]}, {_UNIT_WORDS[SNIPPET_ASKS[ask]]}?"


def snippet_asks(setup) -> list[str]:
    """The asks a drill of this setup can be graded on (the calculator can evaluate them)."""
    from quizapp.memory import SetupError, evaluate

    usable = []
    for ask in SNIPPET_ASKS:
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
