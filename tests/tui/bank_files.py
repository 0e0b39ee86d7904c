"""The tiny bank's question files (text), shared by the TUI fixtures and tests.

A uniquely named module rather than `conftest`: `from conftest import` picks up whichever
conftest pytest imported first when several test folders run in one process.
"""

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
