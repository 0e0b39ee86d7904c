"""`quizapp calc`: the memory calculator on the command line (breakdown, fit, inverse solves, JSON).

Flags are parsed as plain strings and handed to quizapp.memory.setup_from_options, the one parser of
calculator inputs, so the CLI and YAML drills accept exactly the same values. Imports quizapp.memory
only inside run(), so building the `quizapp` parser stays cheap.
"""

from __future__ import annotations

import argparse
import json
import textwrap

HELP = "GPU memory calculator: breakdown, fit check and largest batch/sequence/model"

# argparse dest names are the setup keys of quizapp.memory.setup_from_options.
_FLAGS: tuple[tuple[str, str, str], ...] = (
    ("--model", "NAME|COUNT", "preset (see --list) or a parameter count: 7B, 7e9, 6.7 billion, 70亿"),
    ("--layers", "L", "custom shape: number of blocks"),
    ("--hidden", "H", "custom shape: hidden size"),
    ("--heads", "A", "custom shape: attention heads (must divide hidden)"),
    ("--kv-heads", "A_KV", "custom shape: KV heads (GQA; default = heads)"),
    ("--ffn", "F", "custom shape: MLP width (default: llama 2/3·4h rounded to 256, gpt 4h)"),
    ("--vocab", "V", "custom shape: vocabulary (default: llama 32000, gpt 50257)"),
    ("--style", "llama|gpt", "llama: RMSNorm, SwiGLU, RoPE, no dropout; gpt: LayerNorm, GELU, learned positions, dropout"),
    ("--positions", "P", "learned position rows (0 for RoPE; gpt default 1024)"),
    ("--bias", "none|qkv|all", "linear biases"),
    ("--method", "full|lora|qlora|inference", "what runs (default full)"),
    ("--precision", "fp32|bf16-mixed|fp16-mixed|bf16", "training precision (default bf16-mixed)"),
    ("--grads", "16|32", "gradient bits under mixed precision (default 16)"),
    ("--optimizer", "NAME", "adamw | adam | adamw-8bit | sgd | sgd-momentum | lion | adafactor (default adamw)"),
    ("--batch", "B", "micro-batch (inference: concurrent sequences), default 1"),
    ("--seq", "S", "sequence length (inference: context length), default 2048; 4k = 4096"),
    ("--recompute", "none|selective|full", "activation recomputation (default none)"),
    ("--attention", "flash|eager", "attention kernel (default flash)"),
    ("--loss", "standard|chunked", "chunked drops the fp32 4·T·V log-softmax (default standard)"),
    ("--impl", "ideal|hf", "implementation profile for activations (default ideal)"),
    ("--zero", "0|1|2|3", "ZeRO / FSDP stage (default 0)"),
    ("--gpus", "N", "data-parallel GPUs ZeRO partitions across (default 1)"),
    ("--offload", "none|optimizer|optimizer+params", "ZeRO-Offload (optimizer+params needs --zero 3)"),
    ("--lora-rank", "R", "LoRA rank (default 8)"),
    ("--lora-targets", "qv|all-linear", "LoRA target matrices (default qv)"),
    ("--weights-dtype", "16-bit|int8|int4|nf4", "inference weight dtype (default 16-bit)"),
    ("--kv-dtype", "16-bit|fp8|int8|int4", "inference KV-cache dtype (default 16-bit)"),
    ("--gpu", "NAME", "GPU preset for the fit check, step time and --max (see --list)"),
    ("--mfu", "FRACTION", "model FLOPs utilisation for the step time (default 0.4; 40%% works)"),
    ("--reserve", "BYTES", "fit-check reserve for CUDA context and slack (default 1 GiB)"),
    ("--overhead", "BYTES", "an explicit overhead term in the breakdown (default 0)"),
)
_MAX_KEYS = {"batch": "batch", "seq": "seq", "model": "params"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for flag, metavar, text in _FLAGS:
        parser.add_argument(flag, metavar=metavar, help=text)
    parser.add_argument("--tied", action=argparse.BooleanOptionalAction, default=None,
                        help="custom shape: tie input and output embeddings")
    parser.add_argument("--double-quant", action=argparse.BooleanOptionalAction, default=None,
                        help="QLoRA/4-bit double quantization of the constants (default on)")
    parser.add_argument("--max", choices=tuple(_MAX_KEYS), dest="max_what",
                        help="solve for the largest batch, sequence or model that fits --gpu")
    parser.add_argument("--list", action="store_true", dest="list_presets", help="list model and GPU presets")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON object")


def _options(args: argparse.Namespace) -> dict[str, object]:
    from quizapp.memory import OPTION_KEYS

    return {key: getattr(args, key) for key in OPTION_KEYS if getattr(args, key, None) is not None}


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp import memory as M

    if args.list_presets:
        print(_listing(M, args.as_json))
        return 0
    try:
        opts = _options(args)
        if "model" not in opts and not any(k in opts for k in ("layers", "hidden", "heads")):
            raise M.SetupError("model", "missing; expected a preset (see --list) or a parameter count like 7B")
        setup = M.setup_from_options(opts)
        if args.max_what and setup.gpu is None:
            raise CliError(f"--max {args.max_what}: needs --gpu NAME (see --list)")
        b = M.breakdown(setup)
        fit = M.fit(b, setup.gpu, setup.reserve) if setup.gpu else None
        solved = None
        if args.max_what == "batch":
            solved = M.max_batch(setup, setup.gpu, setup.reserve)
        elif args.max_what == "seq":
            solved = M.max_seq(setup, setup.gpu, setup.reserve)
        elif args.max_what == "model":
            solved = M.max_model(setup, setup.gpu, setup.reserve)
        flops = M.flops_per_token(setup)
        step = M.step_time(setup, setup.gpu) if setup.gpu and setup.training else None
    except M.SetupError as exc:
        raise CliError(f"{_flag(exc.field)}: {exc.message}") from None
    if args.as_json:
        print(json.dumps(_as_json(b, fit, args.max_what, solved, flops, step, setup), ensure_ascii=False))
    else:
        print(_as_text(b, fit, args.max_what, solved, flops, step, setup))
    return 0


def _gb(x: float) -> str:
    return f"{x / 1e9:,.2f}"


def _gib(x: float) -> str:
    return f"{x / 2**30:,.2f}"


def _as_json(b, fit, max_what, solved, flops, step, setup) -> dict:
    out: dict[str, object] = {
        "params": b.params,
        "terms": {t.name: t.bytes for t in b.terms},
        "total": b.total,
        "cpu": b.cpu,
    }
    if fit is not None:
        out["gpu"] = {"name": fit.gpu.name, "capacity": fit.capacity, "usable": fit.usable, "fits": fit.fits,
                      "headroom": fit.headroom}
    if max_what:
        value = solved.params if max_what == "model" and solved is not None else (solved or 0)
        out["max"] = {_MAX_KEYS[max_what]: value}
    out["flops_per_token"] = flops
    if fit is not None:
        out["step_time_s"] = step
    return out


def _title(setup) -> str:
    m = setup.model
    bits = [m.name, setup.method]
    if setup.training:
        bits += [setup.precision, setup.optimizer, f"b={setup.batch} s={setup.seq}", f"recompute {setup.recompute}",
                 setup.attention, f"impl {setup.impl}"]
        if setup.zero:
            bits.append(f"ZeRO-{setup.zero} N={setup.gpus}")
        if setup.offload != "none":
            bits.append(f"offload {setup.offload}")
        if setup.method != "full":
            bits.append(f"LoRA r={setup.lora_rank} {setup.lora_targets}")
    else:
        bits += [f"weights {setup.weights_dtype}", f"KV {setup.kv_dtype}", f"{setup.batch} seq x {setup.seq} tokens"]
    return " · ".join(bits)


def _as_text(b, fit, max_what, solved, flops, step, setup) -> str:
    width = 62
    lines = [_title(setup), f"parameters: {b.params:,}" + (f" (trainable {b.trainable_params:,})" if setup.method in ("lora", "qlora") else ""), ""]
    lines.append(f"{'term':<18}{'formula (with numbers)':<{width}}{'GB':>10}{'GiB':>10}")
    lines.append("-" * (18 + width + 20))

    def row(name: str, formula: str, value: float) -> None:
        chunks = textwrap.wrap(formula, width - 2, break_on_hyphens=False) or [""]
        lines.append(f"{name:<18}{chunks[0]:<{width}}{_gb(value):>10}{_gib(value):>10}")
        lines.extend(f"{'':<18}{c}" for c in chunks[1:])

    for t in b.terms:
        row(t.name, t.formula if t.formula == t.substituted else f"{t.formula} = {t.substituted}", t.bytes)
    lines.append("-" * (18 + width + 20))
    row("total", "sum of the terms", b.total)
    if b.cpu:
        row("cpu (host)", " + ".join(t.name for t in b.cpu_terms), b.cpu)
    lines.append("")
    lines += [f"· {t.name}: {t.note}" for t in b.terms]
    lines += [f"· {n}" for n in b.notes]
    lines.append(f"· FLOPs per token: {flops:.4g}")
    if fit is not None:
        verdict = "fits" if fit.fits else "does NOT fit"
        lines.append("")
        lines.append(
            f"{fit.gpu.name}: capacity {_gb(fit.capacity)} GB ({_gib(fit.capacity)} GiB), usable {_gb(fit.usable)} GB "
            f"({_gib(fit.usable)} GiB) after a {_gib(fit.reserve)} GiB reserve for CUDA context and slack"
        )
        lines.append(
            f"verdict: {verdict}; headroom {_gb(fit.headroom)} GB ({_gib(fit.headroom)} GiB)"
        )
        if step is not None:
            lines.append(f"step time: {step:.4g} s per micro-batch at MFU {setup.mfu:g} ({fit.gpu.bf16_tflops:g} TFLOP/s peak)")
    if max_what == "model":
        if solved is None:
            lines.append("largest model that fits: none")
        else:
            lines.append(f"largest model that fits: {solved.params:,} parameters ({solved.params / 1e9:.3g}B)")
            if solved.has_shape:
                lines.append(f"  shape: {solved.describe()} (scaled within {setup.model.name}'s family)")
            else:
                lines.append("  architecture-free terms only (no activations)")
    elif max_what:
        noun = {"batch": "micro-batch" if setup.training else "batch (concurrent sequences)",
                "seq": "sequence length" if setup.training else "context length"}[max_what]
        lines.append(f"largest {noun} that fits: {solved} ({solved + 1} does not)")
    return "\n".join(lines)


def _listing(M, as_json: bool) -> str:
    if as_json:
        return json.dumps({
            "models": {n: {"params": m.params, "layers": m.layers, "hidden": m.hidden, "heads": m.heads,
                           "kv_heads": m.kv_heads, "ffn": m.ffn, "vocab": m.vocab, "style": m.style,
                           "tied": m.tied, "positions": m.positions, "bias": m.bias} for n, m in M.PRESETS.items()},
            "gpus": {n: {"capacity": g.capacity, "bf16_tflops": g.bf16_tflops, "mem_bandwidth": g.mem_bandwidth,
                         "host_link": g.host_link} for n, g in M.GPUS.items()},
        })
    lines = ["models:"]
    for name, m in M.PRESETS.items():
        lines.append(f"  {name:<16}{m.params:>18,}  {m.describe().split(': ', 1)[1]}")
    lines.append("gpus:")
    for name, g in M.GPUS.items():
        lines.append(f"  {name:<16}{_gb(g.capacity):>8} GB {_gib(g.capacity):>8} GiB  {g.bf16_tflops:g} TFLOP/s  {g.note}")
    return "\n".join(lines)
