"""Measured GPU peak against the calculator: torch.cuda.max_memory_allocated() for a dozen small setups.

Each setup is built from plain torch modules with the spec's shapes (a LLaMA-style block: RMSNorm,
q/k/v/o without biases, SwiGLU MLP, SDPA attention; a Mixtral-style MoE block with dropless top-k
routing; an untied LM head), runs one warm-up step (so the optimizer's states exist), then one
measured step from a reset peak, and prints the measured peak beside the calculator's total for the
same setup (quizapp.memory, through setup_from_options) and their ratio. The calculator's figure is
the standard estimate "sum of the terms" of the `ideal` profile, so a ratio near 1 (a few per cent
either way: activations freed while gradients appear, eager-PyTorch extras, optimizer temporaries)
is the expected outcome; the column "why" names the known differences.

Needs torch with CUDA (bitsandbytes for 8-bit Adam, peft for library LoRA: each optional). Without
torch or without a GPU it prints one line and exits 0. Never imported by the tests or CI.
Run: python benchmarks/gpu_peak.py [--only NAME ...]
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repo's quizapp, installed or not

# The shapes: small, so a dozen runs take seconds, but wide enough that the big terms dominate.
SHAPE = dict(layers=4, hidden=1024, heads=16, kv_heads=16, ffn=2816, vocab=32000)
GQA = dict(SHAPE, kv_heads=4)
MOE = dict(SHAPE, experts=8, top_k=2, expert_ffn=1408)
BATCH, SEQ = 2, 1024


@dataclass
class Case:
    name: str
    options: dict  # quizapp.memory setup_from_options keys (the shape is added)
    shape: dict = field(default_factory=lambda: dict(SHAPE))
    why: str = ""
    needs: str = ""  # an optional module this case needs


CASES = (
    Case("full fp32 adamw", dict(precision="fp32", optimizer="adamw"),
         why="4+4+8 B/param; activations in fp32"),
    Case("full bf16 adamw", dict(precision="bf16", optimizer="adamw"),
         why="pure bf16: 2+2+4 B/param"),
    Case("full bf16 sgd-momentum", dict(precision="bf16", optimizer="sgd-momentum"), why="one bf16 buffer"),
    Case("full bf16 recompute", dict(precision="bf16", optimizer="adamw", recompute="full"),
         why="torch.utils.checkpoint per block"),
    Case("full bf16 eager attn", dict(precision="bf16", optimizer="adamw", attention="eager"),
         why="softmax output kept (s^2 term)"),
    Case("full fp32 adamw-8bit", dict(precision="fp32", optimizer="adamw-8bit"), needs="bitsandbytes",
         why="bitsandbytes AdamW8bit, block 256"),
    Case("lora qv bf16", dict(method="lora", precision="bf16", lora_targets="qv", lora_rank=16),
         why="frozen base; adapters on q, v"),
    Case("lora all-linear bf16", dict(method="lora", precision="bf16", lora_targets="all-linear", lora_rank=16),
         why="adapters on every block linear"),
    Case("moe bf16 adamw", dict(precision="bf16", optimizer="adamw"), shape=dict(MOE),
         why="8 experts, top-2, per-expert loop"),
    Case("gqa full bf16 adamw", dict(precision="bf16", optimizer="adamw"), shape=dict(GQA), why="a_kv = 4 of 16"),
    Case("decode bf16 kv cache", dict(method="inference", batch=8, seq=2048), why="prefill 1024, decode to 2048"),
    Case("decode gqa bf16 kv cache", dict(method="inference", batch=8, seq=2048), shape=dict(GQA),
         why="GQA cache: a_kv/a of MHA's"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="run only the cases whose name contains one of these words")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("gpu_peak: torch is not installed; nothing to measure (this is not a failure)")
        return 0
    if not torch.cuda.is_available():
        print("gpu_peak: no CUDA GPU visible to torch; nothing to measure (this is not a failure)")
        return 0
    from quizapp.memory import breakdown, setup_from_options

    print(f"gpu_peak: {torch.cuda.get_device_name(0)}, torch {torch.__version__}; shape {SHAPE}, b {BATCH}, s {SEQ}")
    print(f"{'setup':<26}{'measured':>14}{'calculator':>14}{'ratio':>8}  why")
    for case in CASES:
        if args.only and not any(w in case.name for w in args.only):
            continue
        if case.needs:
            try:
                __import__(case.needs)
            except ImportError:
                print(f"{case.name:<26}{'skipped':>14}{'':>14}{'':>8}  {case.needs} is not importable")
                continue
        options = {"batch": BATCH, "seq": SEQ, **case.shape, **case.options}
        setup = setup_from_options(options)
        expected = breakdown(setup).total
        try:
            measured = _measure(torch, case, setup)
        except torch.cuda.OutOfMemoryError:
            print(f"{case.name:<26}{'OOM':>14}{expected / 2**20:>11,.1f} MiB")
            continue
        except Exception as exc:  # one broken case (a library's API moved) must not hide the others
            print(f"{case.name:<26}{'error':>14}{expected / 2**20:>10,.1f} MiB  {type(exc).__name__}: {exc}")
            continue
        finally:
            gc.collect()
            torch.cuda.empty_cache()
        print(f"{case.name:<26}{measured / 2**20:>10,.1f} MiB{expected / 2**20:>10,.1f} MiB"
              f"{measured / expected:>8.3f}  {case.why}")
    return 0


# --- the model, in plain torch ---------------------------------------------------------------------
def _modules(torch):
    nn, F = torch.nn, torch.nn.functional

    class LoRALinear(nn.Module):
        """A frozen linear plus B·A (hand-written LoRA: used when peft is not importable)."""

        def __init__(self, base: nn.Linear, rank: int) -> None:
            super().__init__()
            self.base = base
            base.weight.requires_grad_(False)
            self.a = nn.Parameter(torch.randn(rank, base.in_features, device=base.weight.device,
                                              dtype=base.weight.dtype) / rank)
            self.b = nn.Parameter(torch.zeros(base.out_features, rank, device=base.weight.device,
                                              dtype=base.weight.dtype))

        def forward(self, x):
            return self.base(x) + F.linear(F.linear(x, self.a), self.b)

    class Expert(nn.Module):
        def __init__(self, h: int, f: int) -> None:
            super().__init__()
            self.gate = nn.Linear(h, f, bias=False)
            self.up = nn.Linear(h, f, bias=False)
            self.down = nn.Linear(f, h, bias=False)

        def forward(self, x):
            return self.down(F.silu(self.gate(x)) * self.up(x))

    class MoE(nn.Module):
        """Dropless top-k routing with a loop over experts (what Mixtral's reference code does)."""

        def __init__(self, h: int, f: int, experts: int, top_k: int) -> None:
            super().__init__()
            self.router = nn.Linear(h, experts, bias=False)
            self.experts = nn.ModuleList(Expert(h, f) for _ in range(experts))
            self.top_k = top_k

        def forward(self, x):
            shape = x.shape
            x = x.reshape(-1, shape[-1])
            probs = F.softmax(self.router(x), dim=-1, dtype=torch.float32)
            weights, chosen = torch.topk(probs, self.top_k, dim=-1)
            weights = (weights / weights.sum(-1, keepdim=True)).to(x.dtype)
            out = torch.zeros_like(x)
            for e, expert in enumerate(self.experts):
                rows, slot = torch.where(chosen == e)
                if rows.numel():
                    out = out.index_add(0, rows, expert(x[rows]) * weights[rows, slot, None])
            return out.reshape(shape)

    class Block(nn.Module):
        def __init__(self, s: dict, eager: bool) -> None:
            super().__init__()
            h, a, akv = s["hidden"], s["heads"], s["kv_heads"]
            d = h // a
            self.a, self.akv, self.d, self.eager = a, akv, d, eager
            self.norm1 = nn.RMSNorm(h, eps=1e-5)
            self.norm2 = nn.RMSNorm(h, eps=1e-5)
            self.q = nn.Linear(h, a * d, bias=False)
            self.k = nn.Linear(h, akv * d, bias=False)
            self.v = nn.Linear(h, akv * d, bias=False)
            self.o = nn.Linear(a * d, h, bias=False)
            if s.get("experts"):
                self.mlp = MoE(h, s["expert_ffn"], s["experts"], s["top_k"])
            else:
                self.mlp = Expert(h, s["ffn"])

        def attend(self, x, cache=None, pos: int = 0):
            b, t, _ = x.shape
            q = self.q(x).view(b, t, self.a, self.d).transpose(1, 2)
            k = self.k(x).view(b, t, self.akv, self.d).transpose(1, 2)
            v = self.v(x).view(b, t, self.akv, self.d).transpose(1, 2)
            if cache is not None:  # (2, b, a_kv, s_max, d), written in place
                cache[0, :, :, pos:pos + t] = k
                cache[1, :, :, pos:pos + t] = v
                k, v = cache[0, :, :, :pos + t], cache[1, :, :, :pos + t]
            causal = t > 1  # training, or a prefill from position 0; one decoded token sees the whole cache
            if self.eager:
                rep = self.a // self.akv
                k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
                scores = (q @ k.transpose(-1, -2)) / math.sqrt(self.d)
                if causal:
                    total = k.shape[2]
                    keys = torch.arange(total, device=x.device)
                    mask = keys[None, :] <= torch.arange(t, device=x.device)[:, None] + (total - t)
                    scores = scores.masked_fill(~mask, float("-inf"))
                y = F.softmax(scores, dim=-1) @ v
            else:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=self.akv != self.a)
            return self.o(y.transpose(1, 2).reshape(b, t, self.a * self.d))

        def forward(self, x, cache=None, pos: int = 0):
            x = x + self.attend(self.norm1(x), cache, pos)
            return x + self.mlp(self.norm2(x))

    class Model(nn.Module):
        def __init__(self, s: dict, eager: bool = False, recompute: bool = False) -> None:
            super().__init__()
            self.embed = nn.Embedding(s["vocab"], s["hidden"])
            self.blocks = nn.ModuleList(Block(s, eager) for _ in range(s["layers"]))
            self.norm = nn.RMSNorm(s["hidden"], eps=1e-5)
            self.head = nn.Linear(s["hidden"], s["vocab"], bias=False)
            self.recompute = recompute

        def forward(self, ids, caches=None, pos: int = 0, last_only: bool = False):
            from torch.utils.checkpoint import checkpoint

            x = self.embed(ids)
            for i, block in enumerate(self.blocks):
                if self.recompute and self.training:
                    x = checkpoint(block, x, use_reentrant=False)
                else:
                    x = block(x, None if caches is None else caches[i], pos)
            x = self.norm(x)
            return self.head(x[:, -1:] if last_only else x)

    return Model, LoRALinear


def _lora(torch, model, LoRALinear, targets: str, rank: int) -> None:
    names = ("q", "v") if targets == "qv" else ("q", "k", "v", "o", "gate", "up", "down")
    for p in model.parameters():
        p.requires_grad_(False)
    try:
        from peft import LoraConfig, inject_adapter_in_model
    except ImportError:
        for module in list(model.modules()):
            for name in names:
                child = getattr(module, name, None)
                if isinstance(child, torch.nn.Linear):
                    setattr(module, name, LoRALinear(child, rank))
        return
    inject_adapter_in_model(LoraConfig(r=rank, lora_alpha=rank, lora_dropout=0.0, target_modules=list(names)), model)


def _measure(torch, case: Case, setup) -> int:
    F = torch.nn.functional
    Model, LoRALinear = _modules(torch)
    dev = torch.device("cuda")
    torch.cuda.synchronize()
    gc.collect()
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    dtype = torch.float32 if setup.precision == "fp32" and setup.training else torch.bfloat16
    shape = case.shape
    model = Model(shape, eager=setup.attention == "eager", recompute=setup.recompute == "full")
    model = model.to(device=dev, dtype=dtype)
    if not setup.training:
        return _decode(torch, model, setup, base)
    if setup.method == "lora":
        _lora(torch, model, LoRALinear, setup.lora_targets, setup.lora_rank)
    params = [p for p in model.parameters() if p.requires_grad]
    if setup.optimizer == "adamw-8bit":
        import bitsandbytes as bnb

        opt = bnb.optim.AdamW8bit(params, lr=1e-4)
    elif setup.optimizer == "sgd-momentum":
        opt = torch.optim.SGD(params, lr=1e-4, momentum=0.9)
    else:
        opt = torch.optim.AdamW(params, lr=1e-4, foreach=False)  # foreach keeps a copy of every state
    ids = torch.randint(0, shape["vocab"], (setup.batch, setup.seq + 1), device=dev)

    def step() -> None:
        logits = model(ids[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1).float(), ids[:, 1:].flatten())
        del logits
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    model.train()
    step()  # the optimizer's states are created in the first step
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    step()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    del opt, model, params, ids
    return peak


def _decode(torch, model, setup, base: int) -> int:
    """Prefill half the context, then decode one token at a time to `seq` with a preallocated cache."""
    m = setup.model
    dev = torch.device("cuda")
    b, s_max = setup.batch, setup.seq
    prompt = s_max // 2
    caches = [torch.zeros(2, b, m.kv_heads, s_max, m.head_dim, device=dev, dtype=torch.bfloat16)
              for _ in range(m.layers)]
    model.eval()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    with torch.no_grad():
        ids = torch.randint(0, m.vocab, (b, prompt), device=dev)
        nxt = model(ids, caches, 0, last_only=True).argmax(-1)
        for pos in range(prompt, s_max):
            nxt = model(nxt, caches, pos, last_only=True).argmax(-1)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    del caches, model
    return peak


if __name__ == "__main__":
    raise SystemExit(main())
