"""A tiny question bank and a synced store for the mock-interview tests (tests/store, tests/tui, tests/smoke).

Imported as `mock_support` (tests/ is on sys.path through tests/conftest.py). Text is full of brackets
on purpose: it must never be taken as Textual markup.
"""

from __future__ import annotations

from pathlib import Path

QUESTIONS = {
    "t-one/alpha.yaml": """\
id: alpha
title: "Why does AdamW cost 16 bytes per parameter? [not list[int]]"
topic: t-one
lang: en
answer: |
  Weights 2, gradients 2, fp32 master 4, m and v 4 + 4. Model states: {{states-7b}}.
template: |
  Say the convention first [/], then the four terms.
followups:
  - id: why-master
    q: Why keep fp32 master weights?
    a: bf16 has 7 mantissa bits; small updates round away.
  - id: fp32-grads
    q: What if gradients are fp32?
    a: Two more bytes per parameter, 18 in all.
  - id: third
    q: A third follow-up that K=2 never asks.
    a: Unused.
drills:
  - id: states-7b
    prompt: "Model states of {model} with bf16 mixed precision and AdamW, in GB?"
    setup: {model: llama-2-7b, method: full, precision: bf16-mixed, optimizer: adamw}
    ask: model_states
    unit: GB
""",
    "t-two/beta.yaml": """\
id: beta
title: "What limits a single GPU for training? [bold]not bold[/bold]"
topic: t-two
lang: en
answer: Memory first, then time.
template: Memory, then time, then what you would cut.
followups:
  - id: rtx4090
    q: And with a 24 GB card?
    a: Far less than 7B full training.
  - id: offload
    q: What does offloading buy?
    a: CPU memory at the cost of PCIe time.
""",
    "t-two/gamma.yaml": """\
id: gamma
title: What is gradient checkpointing?
topic: t-two
lang: en
answer: Recompute activations in the backward pass instead of storing them.
followups:
  - id: cost
    q: What does it cost?
    a: About one extra forward pass.
  - id: selective
    q: What is selective recomputation?
    a: Recompute only the cheap, memory-heavy parts (attention).
""",
}


def write_bank(root: Path) -> Path:
    """Write the tiny bank under `root` and return the folder."""
    for name, text in QUESTIONS.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def load_tiny_bank(root: Path):
    from quizapp.content import load_bank

    bank = load_bank([write_bank(root)])
    assert not bank.problems, [str(p) for p in bank.problems]
    return bank


def open_synced_store(path: Path, clock, bank):
    from quizapp.store import SchedulerConfig, Store

    store = Store.open(path, clock, SchedulerConfig(fuzz_seed=1))
    store.sync(bank.cards())
    return store
