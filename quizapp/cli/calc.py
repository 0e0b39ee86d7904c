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
    ("--weights", "FORMAT", "weight format: bf16 fp16 fp8 int8 gptq-int4 awq-int4 nf4 gguf-q8_0 gguf-q6_k gguf-q4_0 mxfp4 nvfp4"),
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
    # attention variants (spec section 18)
    ("--window", "W", "sliding-window attention: local layers cache and attend to at most W tokens"),
    ("--global-every", "G", "with --window: every G-th layer is global (Gemma 2: 2, Gemma 3: 6)"),
    ("--local-layers", "N", "with --window: how many layers are local (default: from --global-every, else all)"),
    ("--attention-flops", "full|causal|none", "attention FLOPs: PaLM's full count, halved (causal), or none (6N)"),
    # kernel arithmetic (spec section 17): --kernel prints that kernel's roofline only
    ("--kernel", "gemm|elementwise|attention", "one kernel's FLOPs, bytes, intensity, ridge point and time"),
    ("--shape", "M,N,K", "gemm: (M x K) @ (K x N); a decode GEMV is M = tokens in the batch"),
    ("--dtype", "bf16|fp16|fp8|fp32", "kernel element type and the peak it runs at (default bf16)"),
    ("--elements", "E", "elementwise: elements of the tensor"),
    ("--chain", "I:O,I:O,...", "elementwise: inputs:outputs of each op (a norm = 1:1), e.g. 1:1,2:1"),
    ("--chain-inputs", "N", "elementwise: distinct tensors the fused kernel reads (default 1)"),
    ("--chain-outputs", "N", "elementwise: final tensors the fused kernel writes (default 1)"),
    ("--block-rows", "B_R", "attention with --flash: FlashAttention-2 query-block rows (default 128)"),
)
_SWITCHES = (
    ("--tied", "custom shape: tie input and output embeddings"),
    ("--double-quant", "QLoRA/4-bit double quantization of the constants (default on)"),
    ("--qk-norm", "RMSNorm on queries and keys per head (Qwen3)"),
    ("--router-bias", "MoE: a score-correction bias per expert (DeepSeek-V3)"),
    ("--sp", "sequence parallelism with --tp"),
    ("--flash", "attention kernel: FlashAttention-2 (default: standard attention)"),
    ("--fused", "elementwise kernel: its bytes fused (default) or unfused (--no-fused)"),
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
    _add_extra_arguments(parser)
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

    lang = getattr(options, "lang", "en")
    if args.list_presets:
        print(_listing(M, args.as_json, lang))
        return 0
    if getattr(args, "kernel", None) is not None:
        return _run_kernel(M, args, lang)
    if getattr(args, "extra_ask", None) is not None:
        return _run_extra(M, args, lang)
    try:
        opts = _options(args)
        if "model" not in opts and not any(k in opts for k in ("layers", "hidden", "heads")):
            raise CliError(_say("calc.cli.no_model", lang))
        setup = M.setup_from_options(opts)
        if args.max_what and setup.gpu is None:
            raise CliError(_say("calc.cli.max_needs_gpu", lang, what=args.max_what))
        if args.max_what in ("concurrency", "context", "tp") and setup.training:
            raise CliError(_say("calc.cli.max_serving_only", lang, what=args.max_what))
        if args.max_what == "gpus" and not setup.training:
            raise CliError(_say("calc.cli.max_training_only", lang))
        report = Report(M, setup, args.max_what)
    except M.SetupError as exc:
        raise CliError(f"{_flag(exc.field)}: {exc.message}") from None
    if args.as_json:
        print(json.dumps(_as_json(report), ensure_ascii=False))
    else:
        width = max(60, min(shutil.get_terminal_size((80, 24)).columns, 120))
        print(_as_text(report, opts, width, lang))
    return 0


# --- --kernel (spec section 17) ----------------------------------------------------------------------
_KERNEL_FLAGS = ("kernel", "shape", "dtype", "elements", "chain", "chain_inputs", "chain_outputs", "fused", "flash",
                 "block_rows", "seq", "head_dim", "gpu", "bandwidth_efficiency", "attention_flops")


def _add_extra_arguments(parser: argparse.ArgumentParser) -> None:
    """--ask NAME and the inputs of the extra asks (quizapp.memory.extras), one flag per setup key."""
    from quizapp.memory.extra_asks import EXTRA_ASKS
    from quizapp.memory.extras import EXTRA_KEYS

    parser.add_argument("--ask", dest="extra_ask", metavar="NAME", choices=tuple(EXTRA_ASKS),
                        help="an extra ask with its derivation: " + " | ".join(EXTRA_ASKS))
    for key, text in EXTRA_KEYS.items():
        parser.add_argument(_flag(key), dest=key, metavar=key.upper(), help=f"--ask input: {text}")


def _run_extra(M, args: argparse.Namespace, lang: str) -> int:
    """`quizapp calc --ask NAME ...`: one extra ask's value and its derivation (text or --json)."""
    from quizapp.cli import CliError
    from quizapp.memory.asks import derive
    from quizapp.memory.extra_asks import DISPLAY_UNITS, EXTRA_ASKS
    from quizapp.memory.quantities import sensible_unit

    ask = args.extra_ask
    try:
        setup = M.setup_from_options(_options(args))
        derivation = derive(setup, ask)
    except M.SetupError as exc:
        raise CliError(f"{_flag(exc.field)}: {exc.message}") from None
    if args.as_json:
        steps = [{"name": s.name, "value": s.value, "kind": s.kind, "formula": s.formula, "substituted": s.substituted}
                 for s in derivation.steps]
        print(json.dumps({"ask": ask, "value": derivation.value, "kind": EXTRA_ASKS[ask], "steps": steps},
                         ensure_ascii=False))
        return 0
    from quizapp.content.solution import derived_solution
    from quizapp.words import say
    from quizapp.words.calc import render

    def row_label(name: str, lang: str) -> str:  # as quizapp drill labels a row (cli.drill imports this module)
        word = say(f"solution.row.{name}", lang)
        return name.replace("_", " ") if word == f"solution.row.{name}" else word

    solution = derived_solution(derivation, ask, DISPLAY_UNITS.get(ask) or sensible_unit(derivation.value, EXTRA_ASKS[ask]))
    out = _Text(80)
    for row in solution.rows:
        out.row(("▶ " if row.asked else "  ") + row_label(row.name, lang), "", (row.shown,), name_width=30, col=14)
        if row.formula:
            out.wrap(row.formula, indent="        ", first="      ")
        if row.substituted and row.substituted != row.formula:
            out.wrap(f"= {row.substituted}", indent="        ", first="      ")
        if row.note and render(row.note, lang):
            out.wrap(render(row.note, lang), indent="        ", first="      ")
    for code in solution.notes:
        out.wrap(render(code, lang), indent="    ", first="  ")
    print("\n".join(out.lines))
    return 0


def _run_kernel(M, args: argparse.Namespace, lang: str) -> int:
    from quizapp.cli import CliError
    from quizapp.memory.kernels import KernelError, setup_kernel_figures

    opts = {key: getattr(args, key) for key in _KERNEL_FLAGS if getattr(args, key, None) is not None}
    others = [k for k in _options(args) if k not in _KERNEL_FLAGS]
    if others:
        raise CliError(f"{_flag(others[0])}: not a kernel input; --kernel takes "
                       + ", ".join(_flag(k) for k in _KERNEL_FLAGS[1:]))
    try:
        setup = M.setup_from_options(opts)
        figures = setup_kernel_figures(setup)
    except M.SetupError as exc:
        raise CliError(f"{_flag(exc.field)}: {exc.message}") from None
    except KernelError as exc:
        raise CliError(f"{_flag(exc.field)}: {exc.message}") from None
    if args.as_json:
        out = {"kernel": figures.as_dict()}
        out["kernel"].update({"kind": setup.kernel.kind, "dtype": setup.kernel.dtype,
                              "gpu": setup.gpu.name if setup.gpu else None})
        if figures.unfused_bytes is not None:
            out["kernel"].update({"unfused_bytes": _number(float(figures.unfused_bytes)),
                                  "fused_bytes": _number(float(figures.fused_bytes)),
                                  "fusion_saving": figures.fusion_saving})
        print(json.dumps(out, ensure_ascii=False))
    else:
        print("\n".join(kernel_lines(setup, figures, 80, lang)))
    return 0


def kernel_lines(setup, figures, width: int = 80, lang: str = "en") -> list[str]:
    """The kernel's figures within `width` columns: one line per figure (label, value), its formula and
    its numbers indented below, wrapped; then the bound."""
    from quizapp.memory.quantities import format_quantity, sensible_unit
    from quizapp.words import say
    from quizapp.words.calc import render

    k = setup.kernel
    gpu = say("kernel.cli.on", lang, gpu=setup.gpu.name) if setup.gpu else ""
    lines = [_say("kernel.cli.title", lang, kind=k.kind, dtype=k.dtype, gpu=gpu)]
    if k.kind == "attention":
        lines.append(_say("kernel.cli.per_head", lang))

    def shown(step) -> str:
        v = step.value
        if step.kind == "flops":
            return f"{_number(float(v)):,} ({format_quantity(v, sensible_unit(v, 'flops'))})"
        if step.kind == "bytes":
            return f"{_number(float(v)):,} B ({format_quantity(v, sensible_unit(v, 'bytes'))})"
        if step.kind == "seconds":
            return format_quantity(v, sensible_unit(v, "seconds"))
        if step.name == "fusion_saving":
            return f"{v:.2f}x"
        return f"{v:,.1f} FLOP/B"

    labels = [say(f"solution.row.{s.name}", lang) for s in figures.steps]
    label_w = max(_cells(x) for x in labels)
    detail = {"width": width, "initial_indent": " " * 6, "subsequent_indent": " " * 8, "break_on_hyphens": False}
    for label, step in zip(labels, figures.steps):
        lines.append(f"  {_ljust(label, label_w)}  {shown(step)}")
        lines += textwrap.wrap(f"{step.formula} = {step.substituted}", **detail)
        words = render(step.note, lang)
        lines += _wrap(words, width, " " * 6, " " * 8) if _wide(words) else textwrap.wrap(words, **detail)
    if figures.bound:
        lines.append(f"  {_ljust(say('kernel.cli.bound', lang), label_w)}  {say(f'kernel.note.bound_{figures.bound}', lang)}")
    else:
        lines.append("  " + say("kernel.cli.no_gpu", lang))
    return lines


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
                "fits": s.max_concurrency > 0,  # False: the speeds are of a deployment that cannot start
                "shortfall_bytes": _number(max(-s.budget, 0.0)) if s.max_concurrency == 0 else 0,
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


def _title(setup, lang: str = "en") -> str:
    m = setup.model
    bits = [m.name, setup.method]
    if setup.training:
        bits += [setup.precision, setup.optimizer, f"b={setup.batch} s={setup.seq}",
                 _say("calc.cli.title.recompute", lang, mode=setup.recompute), setup.attention,
                 _say("calc.cli.title.impl", lang, impl=setup.impl)]
        if setup.zero:
            bits.append(f"ZeRO-{setup.zero} N={setup.gpus}")
        elif setup.gpus > 1:
            bits.append(f"DP N={setup.gpus}")
        if setup.offload != "none":
            bits.append(_say("calc.cli.title.offload", lang, mode=setup.offload))
        if setup.method in ("lora", "qlora"):
            bits.append(f"LoRA r={setup.lora_rank} {setup.lora_targets}")
        if setup.pp > 1:
            bits.append(f"PP {setup.pp} m={setup.microbatches}" + (f" v={setup.interleave}" if setup.interleave > 1 else ""))
    else:
        bits += [_say("calc.cli.title.weights", lang, weights=setup.weights), f"KV {setup.kv_dtype}",
                 _say("calc.cli.title.sequences", lang, batch=setup.batch, seq=setup.seq)]
    if setup.tp > 1:
        bits.append(f"TP {setup.tp}" + (" + SP" if setup.sp else ""))
    if setup.ep > 1:
        bits.append(f"EP {setup.ep}")
    return " · ".join(bits)


def _cells(text: str) -> int:
    """Terminal columns of `text`: CJK (wide) characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _wide(text: str) -> bool:
    """Whether `text` holds a wide (CJK) character; text without one is laid out as it always was."""
    return not text.isascii() and _cells(text) != len(text)


def _ljust(text: str, width: int) -> str:
    """`text` padded with spaces to `width` terminal columns."""
    return text + " " * max(width - _cells(text), 0)


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
        if _wide(middle):  # Chinese: broken by terminal columns, between characters
            chunks = _wrap(middle, room - 1)
        else:
            chunks = textwrap.wrap(middle, room - 1, break_on_hyphens=False) or [""]
        tail = "".join(f"{n:>{col}}" for n in numbers)
        name = _ljust(name, name_width) if _cells(name) < name_width else name + " "  # never run into the middle
        self.lines.append(f"{name}{_ljust(chunks[0], room)}{tail}".rstrip())
        self.lines += [f"{'':<{name_width}}{c}" for c in chunks[1:]]

    def pair(self, name: str, value: str, name_width: int = 30) -> None:
        self.row(name, value, name_width=name_width)


def _time(seconds: float, lang: str = "en") -> str:
    from quizapp.memory.quantities import format_quantity, sensible_unit

    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return _say("calc.cli.na", lang)
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
    out.wrap(_title(setup, lang))
    params = _say("calc.cli.params", lang, n=f"{b.params:,}")
    if setup.method in ("lora", "qlora"):
        params += _say("calc.cli.params_trainable", lang, n=f"{b.trainable_params:,}")
    if setup.model.has_shape and setup.model.is_moe:
        params += _say("calc.cli.params_moe", lang, active=f"{setup.model.active_params:,}")
    out.wrap(params)
    solved = _solved_lines(r, lang)
    if solved:
        out.add()
        for line in solved:
            out.wrap(line, indent="  ")
    for section in _order(r, opts):
        {"memory": _memory, "serving": _serving, "communication": _communication, "time": _times}[section](r, out, lang)
    out.heading(_say("calc.cli.notes", lang))
    for t in b.terms:
        out.wrap(_say("calc.cli.term_note", lang, name=_term(t.name, lang), note=_note(t, lang)), indent="  ", first="· ")
    from quizapp.words.calc import render

    for code in b.codes:
        out.wrap(render(code, lang), indent="  ", first="· ")
    if r.serving is not None and r.serving.decode is not None:
        for key in ("calc.serving.note_budget", "calc.serving.note_roofline", "calc.serving.note_prefill"):
            out.wrap(_say(key, lang), indent="  ", first="· ")
    if r.comm is not None:
        out.wrap(_say("calc.comm.note_overlap", lang), indent="  ", first="· ")
    return "\n".join(out.lines)


def _term(name: str, lang: str) -> str:
    """A term's name in the report: in English the code itself (the --json key, as the report always
    showed it); in Chinese its label from the TUI's table (term.<name>)."""
    if lang != "zh":
        return name
    label = _say(f"term.{name}", lang)
    return name if label == f"term.{name}" else label


def _note(term, lang: str) -> str:
    """A term's note in `lang`: memory gives a code, quizapp.words renders it."""
    from quizapp.words.calc import render

    return render(term.code, lang)


def _solved_lines(r: Report, lang: str = "en") -> list[str]:
    setup, solved, what = r.setup, r.solved, r.max_what
    if what is None:
        return []
    if what == "model":
        if solved is None:
            return [_say("calc.cli.max_model_none", lang)]
        lines = [_say("calc.cli.max_model", lang, params=f"{solved.params:,}", billions=f"{solved.params / 1e9:.3g}")]
        lines.append(_say("calc.cli.max_model_shape", lang, shape=solved.describe(), family=setup.model.name)
                     if solved.has_shape else _say("calc.cli.max_model_bare", lang))
        return lines
    if what == "concurrency":
        return [_say("calc.cli.max_concurrency", lang, seq=f"{setup.seq:,}", n=f"{solved:,}", more=f"{solved + 1:,}")]
    if what == "context":
        return [_say("calc.cli.max_context", lang, batch=f"{setup.batch:,}", n=f"{solved:,}",
                     more=f"{solved + setup.kv_block:,}")]
    if what == "tp":
        if not solved:
            return [_say("calc.cli.max_tp_none", lang, heads=setup.model.heads, batch=f"{setup.batch:,}",
                         seq=f"{setup.seq:,}")]
        return [_say("calc.cli.max_tp", lang, batch=f"{setup.batch:,}", seq=f"{setup.seq:,}", tp=solved)]
    if what == "gpus":
        if solved is None:
            return [_say("calc.cli.max_gpus_none", lang)]
        how = (_say("calc.cli.max_gpus_zero3", lang, dp=solved.dp) if solved.strategy == "zero-3"
               else _say("calc.hint.plan.tp x pp", lang, tp=solved.tp, pp=solved.pp))
        return [_say("calc.cli.max_gpus", lang, n=solved.gpus, how=how)]
    noun = {"batch": "microbatch" if setup.training else "batch",
            "seq": "seq" if setup.training else "context"}[what]
    return [_say(f"calc.cli.max_fits.{noun}", lang, n=solved, more=solved + 1)]


def _memory(r: Report, out: _Text, lang: str) -> None:
    b, fit, setup = r.breakdown, r.fit, r.setup
    per_gpu = setup.world_size > 1 or setup.tp > 1
    out.heading(_say("calc.cli.memory_per_gpu" if per_gpu else "calc.cli.memory", lang))
    out.row(_say("calc.cli.col.term", lang), _say("calc.cli.col.formula", lang), ("GB", "GiB"))
    out.add("-" * out.width)
    for t in b.terms:
        out.row(_term(t.name, lang), t.formula if t.formula == t.substituted else f"{t.formula} = {t.substituted}",
                (_gb(t.bytes), _gib(t.bytes)))
    out.add("-" * out.width)
    out.row(_say("calc.cli.total", lang), _say("calc.cli.sum_of_terms", lang), (_gb(b.total), _gib(b.total)))
    if b.cpu:
        out.row(_say("calc.cli.cpu_host", lang), " + ".join(_term(t.name, lang) for t in b.cpu_terms),
                (_gb(b.cpu), _gib(b.cpu)))
    if fit is not None:
        verdict = _say("calc.cli.fits" if fit.fits else "calc.cli.no_fit", lang)
        out.add()
        out.wrap(_say("calc.cli.fit_capacity", lang, gpu=fit.gpu.name, capacity_gb=_gb(fit.capacity),
                      capacity_gib=_gib(fit.capacity), usable_gb=_gb(fit.usable), usable_gib=_gib(fit.usable),
                      reserve_gib=_gib(fit.reserve)))
        out.wrap(_say("calc.cli.verdict", lang, verdict=verdict, gb=_gb(fit.headroom), gib=_gib(fit.headroom)))


def _serving(r: Report, out: _Text, lang: str) -> None:
    s, setup = r.serving, r.setup
    out.heading(_say("calc.cli.serving", lang))
    split = ""
    if setup.tp > 1 and not setup.model.is_mla:
        split = _say("calc.cli.kv_split", lang, n=min(setup.tp, setup.model.kv_heads))
    if setup.model.has_shape and setup.model.windowed:  # no single per-token figure: the average at seq
        split += _say("kernel.cli.kv_average", lang, s=f"{setup.seq:,}")
    out.pair(_say("calc.cli.kv_per_token", lang), _say("calc.cli.bytes", lang, n=f"{s.kv_bytes_per_token:,.0f}") + split)
    out.pair(_say("calc.cli.weights_per_gpu", lang), f"{_gb(s.weight_bytes_per_gpu)} GB")
    if s.decode is None:
        out.wrap(_say("calc.serving.no_gpu", lang))
        return
    d, p = s.decode, s.prefill
    fits = s.max_concurrency > 0
    if not fits:  # said first: the speeds below are of a deployment that cannot start
        need = _min_tp(setup)
        out.wrap(_say("calc.cli.serving_no_fit", lang, weights=_gb(s.weight_bytes_per_gpu),
                      usable=_gb(setup.gpu_util * setup.gpu.capacity - setup.reserve - setup.overhead),
                      short=_gb(max(-s.budget, 0.0)), seq=f"{setup.seq:,}")
                 + (("" if lang == "zh" else " ") + _say("calc.cli.serving_no_fit_tp", lang, tp=need) if need else ""))
    out.pair(_say("calc.cli.kv_budget", lang), f"{_gb(s.budget)} GB = {setup.gpu_util:g} x {_gb(setup.gpu.capacity)} − "
             f"{_gb(s.weight_bytes_per_gpu)} − {_gib(setup.reserve + setup.overhead)} GiB")
    out.pair(_say("calc.cli.kv_size", lang),
             _say("calc.cli.kv_size_value", lang, tokens=f"{s.kv_tokens:,}", block=setup.kv_block))
    out.pair(_say("calc.cli.max_concurrency_at", lang, seq=f"{setup.seq:,}"),
             _say("calc.cli.sequences", lang, n=f"{s.max_concurrency:,}"))
    if_fitted = "" if fits else " " + _say("calc.cli.if_fitted", lang)
    out.pair(_say("calc.cli.decode_step", lang, batch=f"{setup.batch:,}"),
             _say("calc.cli.decode_value", lang, time=_time(d.step_s, lang), bound=_say(f"calc.bound.{d.bound}", lang),
                  memory=_time(d.memory_s, lang), compute=_time(d.compute_s, lang)))
    out.pair(_say("calc.cli.decode_bytes", lang), f"{_gb(d.bytes)} GB, {_flops(d.flops)}")
    out.pair(_say("calc.cli.decode_rate", lang), _say("calc.cli.decode_rate_value", lang,
                                                      aggregate=f"{d.tokens_per_s:,.1f}",
                                                      per_seq=f"{d.per_seq_tokens_per_s:,.1f}") + if_fitted)
    out.pair(_say("calc.cli.prefill", lang, n=f"{setup.prompt_tokens:,}"),
             _say("calc.cli.prefill_value", lang, time=_time(p.step_s, lang), bound=_say(f"calc.bound.{p.bound}", lang),
                  flops=_flops(p.flops), mfu=f"{setup.mfu:g}"))
    out.pair(_say("calc.cli.critical_batch", lang), _say("calc.cli.critical_batch_value", lang, n=f"{s.critical_batch:,}"))


def _min_tp(setup) -> int | None:
    """The smallest tensor-parallel degree at which the serving setup fits (None if none does)."""
    from quizapp.memory import SetupError, solve

    try:
        return int(solve.min_tp(setup)) or None
    except (SetupError, ValueError):
        return None


def _bubble_formula(setup) -> str:
    return "(pp−1)/(v·m)" if setup.interleave > 1 else "(pp−1)/m"


def _communication(r: Report, out: _Text, lang: str) -> None:
    c, setup = r.comm, r.setup
    out.heading(_say("calc.cli.communication", lang))
    if c.link_bandwidth:
        out.wrap(_say("calc.cli.comm_intro", lang, link=f"{c.link_bandwidth / 1e9:,.0f} GB/s"))
    else:
        out.wrap(_say("calc.cli.comm_intro_no_link", lang))
    for t in c.kinds:
        if not t.bytes and t.kind != "dp":
            continue
        out.row(t.kind, f"{t.formula}; {t.substituted}", (_gb(t.bytes) + " GB", _time(t.seconds, lang)), name_width=6,
                col=13)
    out.row(_say("calc.cli.total", lang), "",
            (_gb(c.total_bytes) + " GB", _time(c.total_s, lang) if c.link_bandwidth else _say("calc.cli.na", lang)),
            name_width=6, col=13)
    if setup.pp > 1:
        v = _say("calc.cli.bubble_v", lang, v=setup.interleave) if setup.interleave > 1 else ""
        out.pair(_say("calc.cli.bubble", lang), _say("calc.cli.bubble_value", lang, share=f"{c.bubble:.1%}",
                                                     formula=_bubble_formula(setup), pp=setup.pp,
                                                     m=setup.microbatches, v=v))


def _times(r: Report, out: _Text, lang: str) -> None:
    setup = r.setup
    out.heading(_say("calc.cli.time", lang))
    out.pair(_say("calc.cli.flops_per_token", lang), f"{r.flops:.4g}")
    if r.step is not None:
        from quizapp.memory.serving import peak_flops

        from quizapp.memory.compute import step_time_parts

        parts = step_time_parts(setup)
        out.pair(_say("calc.cli.step_time", lang), _say("calc.cli.step_time_value", lang, time=f"{r.step:.4g}",
                                                        n=setup.microbatches, tokens=f"{setup.tokens:,}",
                                                        mfu=f"{setup.mfu:g}", peak=f"{peak_flops(setup) / 1e12:g}",
                                                        compute=setup.compute))
        split = setup.tp * setup.pp
        compute = (_say("calc.cli.compute_split", lang, time=f"{parts.compute:.4g}", n=split) if split > 1
                   else _say("calc.cli.compute_one", lang, time=f"{parts.compute:.4g}"))
        out.pair(_say("calc.cli.compute", lang), compute)
        if setup.pp > 1:
            out.pair(_say("calc.cli.step_bubble", lang), _say("calc.cli.step_bubble_value", lang,
                                                              time=f"{parts.bubble:.4g}", formula=_bubble_formula(setup)))
        if parts.offload:
            out.pair(_say("calc.cli.offload_transfer", lang),
                     _say("calc.cli.offload_transfer_value", lang, time=f"{parts.offload:.4g}"))
        out.pair(_say("calc.cli.step_comm", lang), _say("calc.cli.step_comm_value", lang))
    if r.mfu is not None:
        source = (_say("calc.cli.mfu_measured", lang, n=f"{setup.tokens_per_s:,.0f}") if setup.tokens_per_s
                  else _say("calc.cli.mfu_setting", lang, mfu=f"{setup.mfu:g}"))
        out.pair(_say("calc.mfu", lang), _say("calc.cli.mfu_value", lang, mfu=f"{r.mfu:.1%}", hfu=f"{r.hfu:.1%}",
                                              source=source))
        bubble = _say("calc.cli.with_bubble", lang) if setup.pp > 1 else ""
        out.pair(_say("calc.cli.tokens_per_s_on", lang, gpus=_gpus(setup.world_size, lang)),
                 _say("calc.cli.tokens_per_s_value", lang, n=f"{r.tokens_per_s:,.0f}", mfu=f"{setup.mfu:g}",
                      bubble=bubble))
    if r.budget is not None:
        out.pair(_say("calc.cli.budget", lang), _say("calc.cli.budget_value", lang, flops=f"{r.budget:.3g}",
                                                     tokens=f"{setup.train_tokens:.3g}"))
    if r.chinchilla is not None:
        out.pair(_say("calc.cli.chinchilla", lang), f"{r.chinchilla:.3g}")
    if r.days is not None:
        out.pair(_say("calc.cli.train_time", lang), _say("calc.cli.train_time_value", lang, days=f"{r.days:,.1f}",
                                                         gpus=_gpus(setup.world_size, lang)))


def _listing(M, as_json: bool, lang: str = "en") -> str:
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
    lines = [_say("calc.cli.list_models", lang)]
    for name, m in M.PRESETS.items():
        active = _say("calc.cli.list_active", lang, n=f"{m.active_params:,}") if m.has_shape and m.is_moe else ""
        lines.append(f"  {name:<16}{m.params:>18,}{active}")
        lines += _wrap(m.describe().split(": ", 1)[1], width, " " * 6, " " * 6)
    lines.append(_say("calc.cli.list_gpus", lang))
    for name, g in M.GPUS.items():
        lines.append(f"  {name:<16}{_gb(g.capacity):>8} GB {_gib(g.capacity):>8} GiB  {g.bf16_tflops:g} TFLOP/s")
        lines += _wrap(g.note, width, " " * 6, " " * 6)
    return "\n".join(lines)


def _gpus(n: int, lang: str = "en") -> str:
    """"1 GPU", "8 GPUs": a real plural, not "GPU(s)"."""
    return _say("calc.cli.gpus", lang, n=n)
