"""Fixtures for the TUI tests, reusable by every screen's tests.

- `tiny_bank_dir`: a temporary content folder (tests/tui/bank_files.py) with three valid questions.
- `broken_bank_dir`: the same plus one file that fails validation (for the problems banner).
- `bank`: the loaded tiny bank; `clock`: a FakeClock; `scheduler_config`: fixed fuzz, UTC days.
- `store`: a Store on a file in tmp_path, synced with `bank`.
- `query_db(sql, *params)`: rows from the database file.
- `app_factory(**overrides)`: builds the app with `make_app` (AppSettings overrides as keywords;
  `bank=` and `store=` to swap those). Drill variants use a fixed seed so snapshots are stable.
"""

from __future__ import annotations

import sqlite3
from datetime import timezone
from pathlib import Path

import pytest

# The tiny bank: a Chinese question with a follow-up, a drill on a named GPU, a common mistake, an
# erratum and reading; an English question whose text is full of brackets that Textual markup would
# eat ("list[int]", "[/]", "[b]"); and a drill-only question in a second topic.

SINGLE_GPU = """\
id: single-gpu
title: 想要训练1个LLM，如果只想用1张显卡 [b]A100[/b]，那么对显卡的要求是什么
topic: llm-training
points: [llm-training, memory-optimization]
tags: [zero, gradient-checkpointing]
difficulty: 3
lang: zh
intent: |
  考察你是否理解显存构成。
answer: |
  7B 混合精度 AdamW 的模型状态为 {{adamw-7b}}，单卡 80GB 放不下。
template: |
  先拆显存：参数、梯度、优化器状态、激活值；再说优化手段。
followups:
  - id: rtx4090
    q: 如果我用 RTX 4090（24GB），能训多大的模型？
    a: |
      全量 AdamW 大约 1B 左右；LoRA/QLoRA 可以到 7B。
mistakes:
  - id: zero3-single
    wrong: 单卡上 ZeRO-3 能省显存
    right: 单卡上任何 ZeRO stage 都不省显存
    why: ZeRO 在 N 张卡之间切分；N = 1 时无可切分
reading:
  - "《ZeRO: Memory Optimizations Toward Training Trillion Parameter Models》"
errata:
  - claim: ZeRO-1 在单卡上把优化器状态从 84GB 降到 28GB
    correct: 单卡 ZeRO-1 不省任何显存：{{adamw-7b.optimizer_states}} 仍然全部在卡上
    why: 只有一张卡时没有可以切分的对象
drills:
  - id: adamw-7b
    prompt: "{model} 用 bf16 混合精度 + AdamW 全量训练，模型状态（参数+梯度+主权重+优化器状态）共多少 GB？"
    setup: {model: llama-2-7b, method: full, precision: bf16-mixed, optimizer: adamw, gpu: a100-80g}
    ask: model_states
    unit: GB
    tolerance: 10%
    extra_mistakes:
      - label: "counted only Adam's [m, v, master] states"
        value: 84 GB
"""

BRACKETS = """\
id: brackets
title: "What does list[int] mean, and why is [/] not a closing tag?"
topic: inference
tags: ["[b]", "list[int]"]
difficulty: 2
lang: en
answer: |
  `list[int]` is a generic alias; [/] and [b]bold[/b] are plain text here.
template: |
  Say: list[int] -> a list of ints; [red]no colour[/red].
"""

KV_DRILL = """\
id: kv-drill
title: How large are the weights of Llama-2-13B in bf16?
topic: inference
lang: en
answer: |
  Weights are {{weights-13b}}.
drills:
  - id: weights-13b
    prompt: "{model} weights in bf16 for inference: how many GB?"
    setup: {model: llama-2-13b, method: inference, precision: bf16}
    ask: weights
    unit: GB
"""

BROKEN = """\
id: broken
title: this file is missing its answer
topic: inference
unknown_key: 1
"""

FILES = {
    "llm-training/single-gpu.yaml": SINGLE_GPU,
    "inference/brackets.yaml": BRACKETS,
    "inference/kv-drill.yaml": KV_DRILL,
}


def write_bank(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def tiny_bank_dir(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", FILES)


@pytest.fixture
def broken_bank_dir(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "broken-bank", {**FILES, "inference/broken.yaml": BROKEN})


@pytest.fixture
def bank(tiny_bank_dir: Path):
    from quizapp.content import load_bank

    loaded = load_bank([tiny_bank_dir])
    assert not loaded.problems, [str(p) for p in loaded.problems]
    return loaded


@pytest.fixture
def clock():
    from quizapp.clock import FakeClock

    return FakeClock()


@pytest.fixture
def scheduler_config():
    from quizapp.store import SchedulerConfig

    return SchedulerConfig(fuzz_seed=0, tz=timezone.utc)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "review.sqlite3"


@pytest.fixture
def store(db_path: Path, clock, bank, scheduler_config):
    from quizapp.store import Store

    opened = Store.open(db_path, clock, scheduler_config)
    opened.sync(bank.cards())
    yield opened
    opened.close()


@pytest.fixture
def app_factory(store, bank, clock, tiny_bank_dir: Path, db_path: Path):
    from quizapp.tui.app import AppSettings, make_app

    def build(*, bank=bank, store=store, **overrides):
        settings = AppSettings(
            **{
                "lang": "en",
                "content_dirs": (tiny_bank_dir,),
                "db_path": db_path,
                "editor": None,
                "seed": 7,
                **overrides,
            }
        )
        return make_app(settings, store, bank, clock)

    return build


@pytest.fixture
def query_db(db_path: Path):
    """query_db(sql, *params) -> rows, read with a second plain sqlite3 connection (what is on disk)."""

    def query(sql: str, *params) -> list[tuple]:
        conn = sqlite3.connect(db_path)
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    return query
