"""The commented starting point `quizapp new` writes: every section, one working drill, and it validates."""

from __future__ import annotations

import re

from quizapp.content.schema import SLUG

_TEMPLATE = """\
# A quizapp question. `quizapp validate` checks this file. For completion in editors:
#   quizapp schema > question.schema.json   and add the line
#   # yaml-language-server: $schema=question.schema.json
# The id is the file name and must never change: review history hangs on it.
id: {id}
title: 在这里写面试题（question title）
topic: {topic}
points: [{topic}]                 # 考点: what the question examines
tags: []
difficulty: 3                     # 1 (easy) .. 5 (hard)
lang: zh                          # zh or en

intent: |                         # 考察意图 (Markdown, optional)
  面试官想考察什么。

answer: |                         # 标准答 (Markdown, required)
  标准答案。计算器能算的数字不要手写，用 drill 引用：
  7B 模型 bf16 混合精度 + AdamW 的模型状态共 {{{{example-drill}}}}，
  其中优化器状态 {{{{example-drill.optimizer_states}}}}。

template: |                       # 答题模板: the 30-second version (optional)
  一句话结论 → 公式 → 数字 → 结论。

followups:                        # follow-up questions, each its own review card
  - id: first-followup
    q: 追问的问题？
    a: |
      追问的答案。

mistakes:                         # common mistakes: wrong belief, correction, why
  - id: first-mistake
    wrong: 常见的错误说法
    right: 正确的说法
    why: 为什么

# resume: |                       # 简历呼应 (optional)
#   如何把这道题和简历上的项目联系起来。
# reading:                        # further reading (optional)
#   - 《ZeRO: Memory Optimizations Toward Training Trillion Parameter Models》
# errata:                         # where a source's numbers disagree with the calculator (optional)
#   - claim: 原文的说法
#     correct: 正确值，例如 {{{{example-drill}}}}
#     why: 为什么

drills:                           # numeric questions graded by the calculator
  - id: example-drill
    prompt: "{{model}} 参数的模型用 bf16 混合精度 + AdamW 全量训练，模型状态共多少 GB？"
    setup: {{model: 7B, method: full, precision: bf16-mixed, optimizer: adamw}}   # `quizapp calc` inputs
    ask: model_states             # what is asked: a term, model_states, total, params, max_batch, ...
    unit: GB                      # answer unit: GB GiB MB TB bytes | params K M B 万 亿 | s min h d | % | x
    tolerance: 10%                # "10%" relative, "0.5 GB" absolute, or "x2" (order of magnitude)
    # vary: {{model: [7B, 13B]}}    # parametric: draw a fresh variant each time
    # extra_mistakes:             # wrong answers this drill should name
    #   - label: 只算了权重
    #     value: 14 GB
"""


def skeleton(question_id: str, topic: str) -> str:
    """The text of a new question file; ValueError if the id or topic is not a slug."""
    for name, value in (("id", question_id), ("topic", topic)):
        if not re.fullmatch(SLUG, value):
            raise ValueError(f"{name} {value!r}: expected a slug of lower-case letters, digits, - or _ (e.g. kv-cache-70b)")
    return _TEMPLATE.format(id=question_id, topic=topic)
