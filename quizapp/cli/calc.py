"""`quizapp calc`: the calculator on the command line (memory, serving, communication, time; JSON).

Flags are parsed as plain strings and handed to quizapp.memory.setup_from_options, the one parser of
calculator inputs, so the CLI and YAML drills accept exactly the same values. Imports quizapp.memory
only inside run(), so building the `quizapp` parser stays cheap. The text report is laid out for the
terminal's width (80 columns read well) in sections per concern, the one the flags ask about first.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import textwrap
import unicodedata

HELP = "LLM systems calculator: memory, fit, serving, communication, time and inverse solves"

# argparse dest names are the setup keys of quizapp.memory.setup_from_options.
_FLAGS: tuple[tuple[str, str, str], ...] = (
    ("--model", "NAME|COUNT", "preset (see --list) or a parameter count: 7B, 7e9, 6.7 billion, 70亿"),
    ("--layers", "L", "custom shape: number of blocks"),
    ("--hidden", "H", "custom shape: hidden size"),
    ("--heads", "A", "custom shape: attention heads"),
    ("--kv-heads", "A_KV", "custom shape: KV heads (GQA; default = heads)"),
    ("--head-dim", "D", "custom shape: head size when it is not hidden/heads (Qwen3, Gemma)"),
    ("--ffn", "F", "custom shape: MLP width (default: llama 2/3·4h rounded to 256, gpt 4h)"),
    ("--vocab", "V", "custom shape: vocabulary (default: llama 32000, gpt 50257)"),
    ("--style", "llama|gpt", "llama: RMSNorm, SwiGLU, RoPE, no dropout; gpt: LayerNorm, GELU, learned positions, dropout"),
    ("--positions", "P", "learned position rows (0 for RoPE; gpt default 1024)"),
    ("--bias", "none|qkv|all", "linear biases"),
    ("--experts", "E", "MoE: routed experts per MoE block (0 = dense)"),
    ("--top-k", "K", "MoE: experts per token"),
    ("--expert-ffn", "F_E", "MoE: width of one expert's gated MLP"),
    ("--shared-experts", "S", "MoE: shared experts per MoE block"),
    ("--shared-ffn", "F_S", "MoE: width of a shared expert (default expert-ffn)"),
    ("--dense-layers", "D", "MoE: leading blocks that keep a dense MLP"),
    ("--q-lora-rank", "R_Q", "MLA: query compression rank (0 = none)"),
    ("--kv-lora-rank", "R_KV", "MLA: the compressed KV latent's width (> 0 makes MLA)"),
    ("--qk-nope-dim", "D_N", "MLA: query/key width without RoPE, per head"),
    ("--qk-rope-dim", "D_R", "MLA: the shared RoPE key's width"),
    ("--v-head-dim", "D_V", "MLA: value width per head"),
    ("--method", "NAME", "full | lora | qlora | inference | ppo | dpo | grpo (default full)"),
    ("--precision", "fp32|bf16-mixed|fp16-mixed|bf16", "training precision (default bf16-mixed)"),
    ("--grads", "16|32", "gradient bits under mixed precision (default 16)"),
    ("--optimizer", "NAME", "adamw | adam | adamw-8bit | sgd | sgd-momentum | lion | adafactor (default adamw)"),
    ("--batch", "B", "micro-batch (inference: concurrent sequences), default 1"),
    ("--seq", "S", "sequence length (inference: context per sequence), default 2048; 4k = 4096"),
    ("--recompute", "none|selective|full", "activation recomputation (default none)"),
    ("--attention", "flash|eager", "attention kernel (default flash)"),
    ("--loss", "standard|chunked", "chunked drops the fp32 4·T·V log-softmax (default standard)"),
    ("--impl", "ideal|hf", "implementation profile for activations (default ideal)"),
    ("--zero", "0|1|2|3", "ZeRO / FSDP stage (default 0)"),
    ("--gpus", "N", "data-parallel GPUs (ZeRO divides by N; GPUs in all = N·tp·pp), default 1"),
    ("--offload", "none|optimizer|optimizer+params", "ZeRO-Offload (optimizer+params needs --zero 3)"),
    ("--lora-rank", "R", "LoRA rank (default 8)"),
    ("--lora-targets", "qv|all-linear", "LoRA target matrices (default qv)"),
    ("--weights", "FORMAT", "weight format: bf16 fp16 fp8 int8 gptq-int4 awq-int4 nf4 gguf-q8_0 gguf-q6_k gguf-q4_0"),
    ("--weights-dtype", "16-bit|int8|int4|nf4", "the old name of --weights (still accepted)"),
    ("--group-size", "G", "GPTQ/AWQ group size (default 128)"),
    ("--kv-dtype", "bf16|fp16|fp8|int8|int4", "KV-cache element type (default bf16)"),
    ("--tp", "T", "tensor-parallel degree (divides the heads), default 1"),
    ("--pp", "P", "pipeline stages (training), default 1"),
    ("--ep", "E", "expert-parallel degree (divides experts and --gpus), default 1"),
    ("--microbatches", "M", "micro-batches per step (pipeline schedule), default 1"),
    ("--interleave", "V", "model chunks per GPU (interleaved 1F1B), default 1"),
    ("--link-bandwidth", "BYTES_PER_S", "per-GPU link, one direction: 50 GB/s, 400 Gb/s (default the GPU's NVLink)"),
    ("--kv-block", "B", "paged-KV block in tokens (vLLM block_size), default 16"),
    ("--gpu-util", "U", "vLLM gpu_memory_utilization, default 0.9"),
    ("--bandwidth-efficiency", "X", "share of the memory bandwidth decode reaches, default 1"),
    ("--prompt", "S", "prefill length (default: the whole --seq)"),
    ("--group", "G", "GRPO: responses per prompt (default 8)"),
    ("--critic-model", "M", "PPO: the critic's model (default the actor's shape with a value head)"),
    ("--reward-model", "M", "PPO: the reward model (default the critic's shape)"),
    ("--rollout-batch", "B", "PPO/GRPO: sequences generated at once (adds the rollout KV cache)"),
    ("--tokens-per-s", "X", "measured training throughput on all GPUs (for MFU): 3000, 3k, 1.2M"),
    ("--train-tokens", "D", "training tokens for the compute budget and days: 2T, 1.4e12, 15万亿"),
    ("--compute", "bf16|fp8", "peak FLOP/s used for time: the bf16 or the fp8 tensor peak (default bf16)"),
    ("--gpu", "NAME", "GPU preset for the fit check, serving, times and --max (see --list)"),
    ("--mfu", "FRACTION", "utilisation of the peak (strictly the HFU), default 0.4; 40%% works"),
    ("--reserve", "BYTES", "fit-check reserve for CUDA context and slack (default 1 GiB)"),
    ("--overhead", "BYTES", "an explicit overhead term in the breakdown (default 0)"),
)
_SWITCHES = (
    ("--tied", "custom shape: tie input and output embeddings"),
    ("--double-quant", "QLoRA/4-bit double quantization of the constants (default on)"),
    ("--qk-norm", "RMSNorm on queries and keys per head (Qwen3)"),
    ("--router-bias", "MoE: a score-correction bias per expert (DeepSeek-V3)"),
    ("--sp", "sequence parallelism with --tp"),
)
# --max X: the key of "max" in --json, and what it solves
_MAX_KEYS = {"batch": "batch", "seq": "seq", "model": "params", "concurrency": "concurrency",
             "context": "context", "tp": "tp", "gpus": "gpus"}
_SERVING_FLAGS = ("kv_block", "gpu_util", "bandwidth_efficiency", "prompt")
_COMM_FLAGS = ("tp", "pp", "ep", "sp", "microbatches", "interleave", "link_bandwidth")
_TIME_FLAGS = ("tokens_per_s", "train_tokens", "compute", "mfu")
SECTIONS = ("memory", "serving", "communication", "time")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for flag, metavar, text in _FLAGS:
        parser.add_argument(flag, metavar=metavar, help=text)
    for flag, text in _SWITCHES:
        parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=text)
    parser.add_argument("--max", choices=tuple(_MAX_KEYS), dest="max_what",
                        help="solve: the largest batch, seq, model, concurrency (at --seq) or context (at --batch) "
                             "that fits --gpu; the smallest tp (serving) or gpus (training) that fits")
    parser.add_argument("--list", action="store_true", dest="list_presets", help="list model and GPU presets")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON object")


def _options(args: argparse.Namespace) -> dict[str, object]:
    from quizapp.memory import OPTION_KEYS

    return {key: getattr(args, key) for key in OPTION_KEYS if getattr(args, key, None) is not None}


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


class Report:
    """Everything one `quizapp calc` run computed; a figure that does not apply is None."""

    def __init__(self, M, setup, max_what: str | None) -> None:
        from quizapp.memory import comm, serving, solve, throughput

        self.setup = setup
        self.max_what = max_what
        self.breakdown = M.breakdown(setup)
        self.fit = M.fit(self.breakdown, setup.gpu, setup.reserve) if setup.gpu else None
        self.flops = M.flops_per_token(setup)
        self.step = M.step_time(setup, setup.gpu) if setup.gpu and setup.training else None
        m = setup.model
        self.serving = serving.serving_figures(setup) if not setup.training and m.has_shape else None
        self.comm = None
        if setup.training and (setup.world_size > 1 or setup.ep > 1):
            self.comm = comm.communication(setup)
        self.mfu = self.hfu = self.tokens_per_s = None
        if setup.training and setup.gpu is not None:
            self.mfu, self.hfu = throughput.utilisation(setup)
            self.tokens_per_s = throughput.training_tokens_per_s(setup)
        self.budget = throughput.setup_compute_budget(setup) if setup.training and setup.train_tokens else None
        self.chinchilla = None
        if setup.training and not (m.has_shape and m.is_moe):
            self.chinchilla = throughput.setup_chinchilla_tokens(setup)
        self.days = None
        if setup.training and setup.train_tokens and setup.gpu is not None:
            self.days = throughput.setup_train_days(setup)
        self.solved: object = None
        if max_what == "batch":
            self.solved = M.max_batch(setup, setup.gpu, setup.reserve)
        elif max_what == "seq":
            self.solved = M.max_seq(setup, setup.gpu, setup.reserve)
        elif max_what == "model":
            self.solved = M.max_model(setup, setup.gpu, setup.reserve)
        elif max_what == "concurrency":
            self.solved = solve.max_concurrency_at_context(setup)
        elif max_what == "context":
            self.solved = solve.max_context_at_concurrency(setup)
        elif max_what == "tp":
            self.solved = solve.min_tp(setup)
        elif max_what == "gpus":
            self.solved = solve.min_gpus(setup)


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp import memory as M

    if args.list_presets:
        print(_listing(M, args.as_json))
        return 0
    lang = getattr(options, "lang", "en")
    try:
        opts = _options(args)
        if "model" not in opts and not any(k in opts for k in ("layers", "hidden", "heads")):
            raise M.SetupError("model", "missing; expected a preset (see --list) or a parameter count like 7B")
        setup = M.setup_from_options(opts)
        if args.max_what and setup.gpu is None:
            raise CliError(f"--max {args.max_what}: needs --gpu NAME (see --list)")
        if args.max_what in ("concurrency", "context", "tp") and setup.training:
            raise CliError(f"--max {args.max_what}: a serving solve; expected --method inference")
        if args.max_what == "gpus" and not setup.training:
            raise CliError("--max gpus: a training solve; for serving use --max tp")
        report = Report(M, setup, args.max_what)
    except M.SetupError as exc:
        raise CliError(f"{_flag(exc.field)}: {exc.message}") from None
    if args.as_json:
        print(json.dumps(_as_json(report), ensure_ascii=False))
    else:
        width = max(60, min(shutil.get_terminal_size((80, 24)).columns, 120))
        print(_as_text(report, opts, width, lang))
    return 0


# --- JSON --------------------------------------------------------------------------------------------
def _number(x):
    """Bytes and counts as plain numbers: whole floats become ints; nan (no link) becomes null."""
    if x is None:
        return None
    if isinstance(x, float):
        if math.isnan(x):
            return None
        if x.is_integer() and abs(x) < 2**63:
            return int(x)
    return x


def _as_json(r: Report) -> dict:
    b, fit, setup = r.breakdown, r.fit, r.setup
    out: dict[str, object] = {
        "params": b.params,
        "terms": {t.name: t.bytes for t in b.terms},
        "total": b.total,
        "cpu": b.cpu,
    }
    if fit is not None:
        out["gpu"] = {"name": fit.gpu.name, "capacity": fit.capacity, "usable": fit.usable, "fits": fit.fits,
                      "headroom": fit.headroom}
    if r.max_what:
        solved = r.solved
        if r.max_what == "model":
            value = solved.params if solved is not None else 0
        elif r.max_what == "gpus":
            value = solved.gpus if solved is not None else 0
        else:
            value = solved or 0
        out["max"] = {_MAX_KEYS[r.max_what]: value}
    out["flops_per_token"] = r.flops
    if fit is not None:
        out["step_time_s"] = r.step
    out["active_params"] = setup.model.active_params
    s = r.serving
    if s is not None:
        serving: dict[str, object] = {"kv_bytes_per_token": _number(s.kv_bytes_per_token)}
        if s.decode is not None:
            d, p = s.decode, s.prefill
            serving.update({
                "kv_budget": _number(s.budget), "kv_tokens": s.kv_tokens, "max_concurrency": s.max_concurrency,
                "decode": {"bytes": _number(d.bytes), "flops": _number(d.flops), "step_s": d.step_s,
                           "tokens_per_s": d.tokens_per_s, "per_seq_tokens_per_s": d.per_seq_tokens_per_s,
                           "bound": d.bound},
                "prefill": {"flops": _number(p.flops), "ttft_s": p.step_s, "bound": p.bound},
                "critical_batch": s.critical_batch,
            })
        out["serving"] = serving
    if r.comm is not None:
        c = r.comm
        kinds = {t.kind: {"bytes": _number(t.bytes), "s": _number(t.seconds)} for t in c.kinds}
        kinds["total"] = {"bytes": _number(c.total_bytes), "s": _number(c.total_s) if c.link_bandwidth else None}
        out["comm"] = kinds
        if setup.pp > 1:
            out["bubble"] = c.bubble
    if r.mfu is not None:
        out["mfu"], out["hfu"] = r.mfu, r.hfu
    if r.budget is not None:
        out["compute_budget_flops"] = _number(r.budget)
    if r.chinchilla is not None:
        out["chinchilla_tokens"] = r.chinchilla
    if r.days is not None:
        out["train_days"] = r.days  # days, as the key says
    return out


# --- text --------------------------------------------------------------------------------------------
def _gb(x: float) -> str:
    return f"{x / 1e9:,.2f}"


def _gib(x: float) -> str:
    return f"{x / 2**30:,.2f}"


def _say(key: str, lang: str, **args) -> str:
    from quizapp.words import say

    return say(key, lang, **args)


def _title(setup) -> str:
    m = setup.model
    bits = [m.name, setup.method]
    if setup.training:
        bits += [setup.precision, setup.optimizer, f"b={setup.batch} s={setup.seq}", f"recompute {setup.recompute}",
                 setup.attention, f"impl {setup.impl}"]
        if setup.zero:
            bits.append(f"ZeRO-{setup.zero} N={setup.gpus}")
        elif setup.gpus > 1:
            bits.append(f"DP N={setup.gpus}")
        if setup.offload != "none":
            bits.append(f"offload {setup.offload}")
        if setup.method in ("lora", "qlora"):
            bits.append(f"LoRA r={setup.lora_rank} {setup.lora_targets}")
        if setup.pp > 1:
            bits.append(f"PP {setup.pp} m={setup.microbatches}" + (f" v={setup.interleave}" if setup.interleave > 1 else ""))
    else:
        bits += [f"weights {setup.weights}", f"KV {setup.kv_dtype}", f"{setup.batch} seq x {setup.seq} tokens"]
    if setup.tp > 1:
        bits.append(f"TP {setup.tp}" + (" + SP" if setup.sp else ""))
    if setup.ep > 1:
        bits.append(f"EP {setup.ep}")
    return " · ".join(bits)


def _cells(text: str) -> int:
    """Terminal columns of `text`: CJK (wide) characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _wrap(text: str, width: int, first: str = "", indent: str = "") -> list[str]:
    """textwrap.wrap by terminal columns: breaks at spaces, and between wide (CJK) characters, which
    have no spaces to break at; a line never starts with a CJK punctuation mark (it takes the
    character before it along)."""
    if text.isascii():
        return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=indent,
                             break_on_hyphens=False) or [first]
    units = re.findall(r" +|[!-~]+|.", text)  # spaces, runs of ASCII, single wide characters
    lines: list[list[str]] = [[first]]
    room = width - _cells(first)
    for unit in units:
        size = _cells(unit)
        if size > room and "".join(lines[-1]).strip():
            carry: list[str] = []
            if unicodedata.category(unit[0]).startswith("P") and not unit.isascii() and len(lines[-1]) > 1:
                carry = [lines[-1].pop()]
            lines.append([indent, *carry])
            room = width - _cells("".join(lines[-1]))
            if unit.isspace():
                continue
        lines[-1].append(unit)
        room -= size
    return ["".join(line).rstrip() for line in lines if "".join(line).strip()] or [first]


class _Text:
    """Lines laid out for `width` columns: a name column, a wrapped middle and right-aligned numbers."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.lines: list[str] = []

    def add(self, line: str = "") -> None:
        self.lines.append(line)

    def wrap(self, text: str, indent: str = "", first: str = "") -> None:
        self.lines += _wrap(text, self.width, first or indent, indent)

    def heading(self, text: str) -> None:
        if self.lines and self.lines[-1]:
            self.lines.append("")
        self.lines.append(text.upper() if text.isascii() else text)

    def row(self, name: str, middle: str, numbers: tuple[str, ...] = (), name_width: int = 18, col: int = 10) -> None:
        room = max(16, self.width - name_width - col * len(numbers))
        chunks = textwrap.wrap(middle, room - 1, break_on_hyphens=False) or [""]
        tail = "".join(f"{n:>{col}}" for n in numbers)
        self.lines.append(f"{name:<{name_width}}{chunks[0]:<{room}}{tail}".rstrip())
        self.lines += [f"{'':<{name_width}}{c}" for c in chunks[1:]]

    def pair(self, name: str, value: str, name_width: int = 30) -> None:
        self.row(name, value, name_width=name_width)


def _time(seconds: float) -> str:
    from quizapp.memory.quantities import format_quantity, sensible_unit

    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "n/a"
    return format_quantity(seconds, sensible_unit(seconds, "seconds"), 3)


def _flops(x: float) -> str:
    from quizapp.memory.quantities import format_quantity, sensible_unit

    return format_quantity(x, sensible_unit(x, "flops"))


def _order(r: Report, opts: dict) -> list[str]:
    """The sections that apply, the one the flags ask about first."""
    applies = {"memory": True, "serving": r.serving is not None, "communication": r.comm is not None,
               "time": r.setup.training}
    first = "memory"
    if r.max_what in ("concurrency", "context", "tp") or any(k in opts for k in _SERVING_FLAGS):
        first = "serving"
    elif r.setup.training and any(k in opts for k in _COMM_FLAGS) and r.comm is not None:
        first = "communication"
    elif r.setup.training and any(k in opts for k in _TIME_FLAGS):
        first = "time"
    order = [first] + [s for s in SECTIONS if s != first]
    return [s for s in order if applies[s]]


def _as_text(r: Report, opts: dict, width: int, lang: str = "en") -> str:
    out = _Text(width)
    setup, b = r.setup, r.breakdown
    out.wrap(_title(setup))
    params = f"parameters: {b.params:,}"
    if setup.method in ("lora", "qlora"):
        params += f" (trainable {b.trainable_params:,})"
    if setup.model.has_shape and setup.model.is_moe:
        params += f" total · {setup.model.active_params:,} active per token"
    out.wrap(params)
    solved = _solved_lines(r)
    if solved:
        out.add()
        for line in solved:
            out.wrap(line, indent="  ")
    for section in _order(r, opts):
        {"memory": _memory, "serving": _serving, "communication": _communication, "time": _times}[section](r, out, lang)
    out.heading(_say("calc.cli.notes", lang))
    for t in b.terms:
        out.wrap(f"{t.name}: {_note(t, lang)}", indent="  ", first="· ")
    from quizapp.words.calc import render

    for code in b.codes:
        out.wrap(render(code, lang), indent="  ", first="· ")
    if r.serving is not None and r.serving.decode is not None:
        for key in ("calc.serving.note_budget", "calc.serving.note_roofline", "calc.serving.note_prefill"):
            out.wrap(_say(key, lang), indent="  ", first="· ")
    if r.comm is not None:
        out.wrap(_say("calc.comm.note_overlap", lang), indent="  ", first="· ")
    return "\n".join(out.lines)


def _note(term, lang: str) -> str:
    """A term's note in `lang`: memory gives a code, quizapp.words renders it."""
    from quizapp.words.calc import render

    return render(term.code, lang)


def _solved_lines(r: Report) -> list[str]:
    setup, solved, what = r.setup, r.solved, r.max_what
    if what is None:
        return []
    if what == "model":
        if solved is None:
            return ["largest model that fits: none"]
        lines = [f"largest model that fits: {solved.params:,} parameters ({solved.params / 1e9:.3g}B)"]
        lines.append(f"shape: {solved.describe()} (scaled within {setup.model.name}'s family)" if solved.has_shape
                     else "architecture-free terms only (no activations)")
        return lines
    if what == "concurrency":
        return [f"largest concurrency at a context of {setup.seq:,} tokens: {solved:,} sequences "
                f"({solved + 1:,} do not fit the KV budget)"]
    if what == "context":
        return [f"longest context for {setup.batch:,} concurrent sequences: {solved:,} tokens "
                f"({solved + setup.kv_block:,}, one more block each, do not fit)"]
    if what == "tp":
        if not solved:
            return [f"no tensor-parallel degree (a divisor of {setup.model.heads} heads) fits {setup.batch:,} "
                    f"sequences of {setup.seq:,} tokens"]
        return [f"smallest tensor-parallel degree that fits {setup.batch:,} sequences of {setup.seq:,} tokens: "
                f"tp = {solved}"]
    if what == "gpus":
        if solved is None:
            return ["no number of GPUs fits: the memory that does not shard exceeds one GPU"]
        how = (f"ZeRO-3 over {solved.dp} data-parallel GPUs" if solved.strategy == "zero-3"
               else f"tp {solved.tp} x pp {solved.pp}")
        return [f"fewest GPUs that fit: {solved.gpus} ({how})"]
    noun = {"batch": "micro-batch" if setup.training else "batch (concurrent sequences)",
            "seq": "sequence length" if setup.training else "context length"}[what]
    return [f"largest {noun} that fits: {solved} ({solved + 1} does not)"]


def _memory(r: Report, out: _Text, lang: str) -> None:
    b, fit, setup = r.breakdown, r.fit, r.setup
    per_gpu = setup.world_size > 1 or setup.tp > 1
    out.heading(_say("calc.cli.memory_per_gpu" if per_gpu else "calc.cli.memory", lang))
    out.row("term", "formula (with numbers)", ("GB", "GiB"))
    out.add("-" * out.width)
    for t in b.terms:
        out.row(t.name, t.formula if t.formula == t.substituted else f"{t.formula} = {t.substituted}",
                (_gb(t.bytes), _gib(t.bytes)))
    out.add("-" * out.width)
    out.row("total", "sum of the terms", (_gb(b.total), _gib(b.total)))
    if b.cpu:
        out.row("cpu (host)", " + ".join(t.name for t in b.cpu_terms), (_gb(b.cpu), _gib(b.cpu)))
    if fit is not None:
        verdict = "fits" if fit.fits else "does NOT fit"
        out.add()
        out.wrap(f"{fit.gpu.name}: capacity {_gb(fit.capacity)} GB ({_gib(fit.capacity)} GiB), usable "
                 f"{_gb(fit.usable)} GB ({_gib(fit.usable)} GiB) after a {_gib(fit.reserve)} GiB reserve for CUDA "
                 f"context and slack")
        out.wrap(f"verdict: {verdict}; headroom {_gb(fit.headroom)} GB ({_gib(fit.headroom)} GiB)")


def _serving(r: Report, out: _Text, lang: str) -> None:
    s, setup = r.serving, r.setup
    out.heading(_say("calc.cli.serving", lang))
    out.pair("KV per token per GPU", f"{s.kv_bytes_per_token:,.0f} bytes"
             + (f" (KV split {min(setup.tp, setup.model.kv_heads)} ways)" if setup.tp > 1 and not setup.model.is_mla else ""))
    out.pair("weights per GPU (W/t)", f"{_gb(s.weight_bytes_per_gpu)} GB")
    if s.decode is None:
        out.wrap(_say("calc.serving.no_gpu", lang))
        return
    d, p = s.decode, s.prefill
    out.pair("KV budget per GPU", f"{_gb(s.budget)} GB = {setup.gpu_util:g} x {_gb(setup.gpu.capacity)} − "
             f"{_gb(s.weight_bytes_per_gpu)} − {_gib(setup.reserve + setup.overhead)} GiB")
    out.pair("KV cache size", f"{s.kv_tokens:,} tokens (blocks of {setup.kv_block})")
    out.pair(f"max concurrency at {setup.seq:,}", f"{s.max_concurrency:,} sequences")
    out.pair(f"decode step, batch {setup.batch:,}", f"{_time(d.step_s)} ({d.bound}-bound: memory {_time(d.memory_s)}, "
             f"compute {_time(d.compute_s)})")
    out.pair("  bytes, FLOPs per GPU", f"{_gb(d.bytes)} GB, {_flops(d.flops)}")
    out.pair("  tokens/s", f"{d.tokens_per_s:,.1f} aggregate, {d.per_seq_tokens_per_s:,.1f} per sequence")
    out.pair(f"prefill of {setup.prompt_tokens:,} tokens", f"TTFT {_time(p.step_s)} ({p.bound}-bound), "
             f"{_flops(p.flops)} per GPU at MFU {setup.mfu:g}")
    out.pair("critical batch", f"{s.critical_batch:,} (decode turns compute-bound, KV cache aside)")


def _communication(r: Report, out: _Text, lang: str) -> None:
    c, setup = r.comm, r.setup
    out.heading(_say("calc.cli.communication", lang))
    link = f"{c.link_bandwidth / 1e9:,.0f} GB/s" if c.link_bandwidth else "no link bandwidth (give --gpu or --link-bandwidth)"
    out.wrap(f"bytes one GPU sends per step; time at {link}, no overlap")
    for t in c.kinds:
        if not t.bytes and t.kind != "dp":
            continue
        out.row(t.kind, f"{t.formula}; {t.substituted}", (_gb(t.bytes) + " GB", _time(t.seconds)), name_width=6,
                col=13)
    out.row("total", "", (_gb(c.total_bytes) + " GB", _time(c.total_s) if c.link_bandwidth else "n/a"),
            name_width=6, col=13)
    if setup.pp > 1:
        formula = "(pp−1)/(v·m)" if setup.interleave > 1 else "(pp−1)/m"
        out.pair("pipeline bubble", f"{c.bubble:.1%} of the ideal time = {formula} with pp {setup.pp}, "
                 f"m {setup.microbatches}" + (f", v {setup.interleave}" if setup.interleave > 1 else ""))


def _times(r: Report, out: _Text, lang: str) -> None:
    setup = r.setup
    out.heading(_say("calc.cli.time", lang))
    out.pair("FLOPs per token", f"{r.flops:.4g}")
    if r.step is not None:
        from quizapp.memory.serving import peak_flops

        from quizapp.memory.compute import step_time_parts

        parts = step_time_parts(setup)
        out.pair("step time", f"{r.step:.4g} s per step ({setup.microbatches} "
                 f"micro-batch{'' if setup.microbatches == 1 else 'es'} of "
                 f"{setup.tokens:,} tokens per replica) at {setup.mfu:g} of "
                 f"{peak_flops(setup) / 1e12:g} TFLOP/s ({setup.compute})")
        split = f"/(t·pp) = /{setup.tp * setup.pp}" if setup.tp * setup.pp > 1 else "on one GPU"
        out.pair("  compute", f"{parts.compute:.4g} s: executed FLOPs per GPU {split}")
        if setup.pp > 1:
            formula = "(pp−1)/(v·m)" if setup.interleave > 1 else "(pp−1)/m"
            out.pair("  pipeline bubble", f"{parts.bubble:.4g} s = {formula} of the compute time")
        if parts.offload:
            out.pair("  offload transfer", f"{parts.offload:.4g} s over the host link")
        out.pair("  communication", "not included (see the communication section; no overlap assumed)")
    if r.mfu is not None:
        source = f"measured {setup.tokens_per_s:,.0f} tokens/s" if setup.tokens_per_s else f"the {setup.mfu:g} setting"
        out.pair("MFU / HFU", f"{r.mfu:.1%} / {r.hfu:.1%} (from {source})")
        bubble = ", pipeline bubble included" if setup.pp > 1 else ""
        out.pair(f"tokens/s on {_gpus(setup.world_size)}", f"{r.tokens_per_s:,.0f} at HFU {setup.mfu:g}{bubble}")
    if r.budget is not None:
        out.pair("compute budget", f"{r.budget:.3g} FLOPs for {setup.train_tokens:.3g} tokens (6·N·D + attention)")
    if r.chinchilla is not None:
        out.pair("Chinchilla tokens (20·N)", f"{r.chinchilla:.3g}")
    if r.days is not None:
        out.pair("training time", f"{r.days:,.1f} days on {_gpus(setup.world_size)}")


def _listing(M, as_json: bool) -> str:
    if as_json:
        return json.dumps({
            "models": {n: {"params": m.params, "active_params": m.active_params, "layers": m.layers,
                           "hidden": m.hidden, "heads": m.heads, "kv_heads": m.kv_heads, "ffn": m.ffn,
                           "vocab": m.vocab, "style": m.style, "tied": m.tied, "positions": m.positions,
                           "bias": m.bias} for n, m in M.PRESETS.items()},
            "gpus": {n: {"capacity": g.capacity, "bf16_tflops": g.bf16_tflops, "mem_bandwidth": g.mem_bandwidth,
                         "host_link": g.host_link, "nvlink": getattr(g, "nvlink", None),
                         "fp8_tflops": getattr(g, "fp8_tflops", None)} for n, g in M.GPUS.items()},
        })
    width = max(60, min(shutil.get_terminal_size((80, 24)).columns, 120))
    lines = ["models:"]
    for name, m in M.PRESETS.items():
        active = f" ({m.active_params:,} active)" if m.has_shape and m.is_moe else ""
        lines.append(f"  {name:<16}{m.params:>18,}{active}")
        lines += _wrap(m.describe().split(": ", 1)[1], width, " " * 6, " " * 6)
    lines.append("gpus:")
    for name, g in M.GPUS.items():
        lines.append(f"  {name:<16}{_gb(g.capacity):>8} GB {_gib(g.capacity):>8} GiB  {g.bf16_tflops:g} TFLOP/s")
        lines += _wrap(g.note, width, " " * 6, " " * 6)
    return "\n".join(lines)


def _gpus(n: int) -> str:
    """"1 GPU", "8 GPUs": a real plural, not "GPU(s)"."""
    return f"{n:,} GPU" if n == 1 else f"{n:,} GPUs"
