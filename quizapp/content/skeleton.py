"""The commented starting point `quizapp new` writes: every section, one working drill, and it validates."""

from __future__ import annotations

import re

from quizapp.content.schema import SLUG

_TEMPLATE = """\
# A quizapp question. `quizapp validate` checks this file. For completion in editors:
#   quizapp schema > question.schema.json   and add the line
#   # yaml-language-server: $schema=question.schema.json
# The id is the file name and must never change: review history hangs on it.
# Every text is written in English (en) and Chinese (zh) side by side; for your own questions one
# language is enough (the app shows it in the other language's UI too, marked). Drills' setups,
# units and tolerances are shared, so both languages ask and grade the same numbers.
id: {id}
title:
  en: Write the interview question here
  zh: 在这里写面试题
topic: {topic}
points: [{topic}]                 # what the question examines (slugs)
tags: []
difficulty: 3                     # 1 (easy) .. 5 (hard)

intent:                           # what the interviewer is after (Markdown, optional)
  en: |
    What the interviewer wants to hear.
  zh: |
    面试官想考察什么。

answer:                           # the standard answer (Markdown, required)
  en: |
    The standard answer. Never type a number the calculator can compute; reference a drill:
    a 7B model with bf16 mixed precision and AdamW holds {{{{example-drill}}}} of model states,
    of which {{{{example-drill.optimizer_states}}}} are optimizer states.
  zh: |
    标准答案。计算器能算的数字不要手写，用 drill 引用：
    7B 模型 bf16 混合精度 + AdamW 的模型状态共 {{{{example-drill}}}}，
    其中优化器状态 {{{{example-drill.optimizer_states}}}}。

template:                         # the 30-second version (optional)
  en: |
    Conclusion in one sentence, then the formula, the number, the takeaway.
  zh: |
    一句话结论 → 公式 → 数字 → 结论。

key_points:                       # what an interviewer listens for (3-7); review ticks the ones a typed answer covers
  - id: sixteen-bytes
    must: true                    # leaving it out fails the answer
    text:
      en: Mixed-precision AdamW holds 16 bytes per parameter of model states
      zh: 混合精度 AdamW 的模型状态是每参数 16 字节
    match:                        # regexes on the lower-cased, NFKC-normalised answer, either language
      en: ['16 ?bytes', 'sixteen bytes']
      zh: ['16 ?字节']
  - id: states-total
    text:
      en: The model states of a 7B model come to about 112 GB
      zh: 7B 模型的模型状态约 112 GB
    number: {{drill: example-drill}}   # a quantity within the drill's tolerance of its value
  - id: optimizer-share
    text:
      en: The optimizer states are the largest part (fp32 master weights and Adam's m and v)
      zh: 优化器状态占大头（fp32 主权重和 Adam 的 m、v）
    match:
      en: ['optimizer states?', 'master weights']
      zh: ['优化器状态', '主权重']

followups:                        # follow-up questions, each its own review card
  - id: first-followup
    q:
      en: The follow-up question?
      zh: 追问的问题？
    a:
      en: |
        Its answer.
      zh: |
        追问的答案。
    # key_points: [...]           # 2-4, covered by the answer above

mistakes:                         # common mistakes: wrong belief, correction, why
  - id: first-mistake
    wrong: {{en: A common wrong claim, zh: 常见的错误说法}}
    right: {{en: The correct claim, zh: 正确的说法}}
    why: {{en: Why, zh: 为什么}}

# resume:                         # tying it to your own projects (optional)
#   en: How to connect this question to a project on your CV.
#   zh: 如何把这道题和简历上的项目联系起来。
# reading:                        # further reading (optional)
#   - en: "Rajbhandari et al., 2020: ZeRO: Memory Optimizations Toward Training Trillion Parameter Models"
#     zh: 《ZeRO: Memory Optimizations Toward Training Trillion Parameter Models》
# errata:                         # where a source's numbers disagree with the calculator (optional)
#   - claim: {{en: What the source says, zh: 原文的说法}}
#     correct: {{en: "The right value: {{{{example-drill}}}}", zh: "正确值：{{{{example-drill}}}}"}}
#     why: {{en: Why, zh: 为什么}}

drills:                           # numeric questions graded by the calculator
  - id: example-drill
    prompt:
      en: "A {{model}} model is fully trained with bf16 mixed precision and AdamW. How many GB of model states?"
      zh: "{{model}} 参数的模型用 bf16 混合精度 + AdamW 全量训练，模型状态共多少 GB？"
    setup: {{model: 7B, method: full, precision: bf16-mixed, optimizer: adamw}}   # `quizapp calc` inputs
    ask: model_states             # what is asked: a term, model_states, total, params, max_batch, ...
    unit: GB                      # answer unit: GB GiB MB TB bytes | params K M B 万 亿 | s min h d | % | x
    tolerance: 10%                # "10%" relative, "0.5 GB" absolute, or "x2" (order of magnitude)
    # vary: {{model: [7B, 13B]}}    # parametric: draw a fresh variant each time
    # extra_mistakes:             # wrong answers this drill should name
    #   - label: {{en: Counted the weights only, zh: 只算了权重}}
    #     value: 14 GB
"""


def skeleton(question_id: str, topic: str) -> str:
    """The text of a new question file; ValueError if the id or topic is not a slug."""
    for name, value in (("id", question_id), ("topic", topic)):
        if not re.fullmatch(SLUG, value):
            raise ValueError(f"{name} {value!r}: expected a slug of lower-case letters, digits, - or _ (e.g. kv-cache-70b)")
    return _TEMPLATE.format(id=question_id, topic=topic)
