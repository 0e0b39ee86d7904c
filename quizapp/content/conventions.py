"""How a drill's prompt states a grading convention (spec section 19): marker words in both languages.

The validator reads a drill whose value moves beyond its tolerance under a convention as
*open* unless the drill accepts that convention or its prompt names it with one of these words
(searched case-insensitively in each language's prompt). The values come from the calculator
(quizapp.memory.conventions); these are only the words that show a prompt chose a side.
"""

from __future__ import annotations

MARKERS: dict[str, dict[str, tuple[str, ...]]] = {
    "causal": {"en": ("causal", "mask", "halv", "full attention", "full (non", "non-causal", "palm"),
               "zh": ("因果", "掩码", "减半", "完整注意力", "全注意力", "palm")},
    "6n": {"en": ("6n", "6·n", "attention term", "attention flops", "12·l", "12l", "without attention"),
           "zh": ("6n", "6·n", "注意力项", "注意力 flops", "注意力的 flops", "12·l", "12l", "不计注意力")},
    "fp32-grads": {"en": ("fp32 grad", "bf16 grad", "16-bit grad", "fp16 grad", "32-bit grad", "16 bytes", "18 bytes",
                          "bytes/param", "bytes per param", "gradients in", "gradients are"),
                   "zh": ("fp32 梯度", "bf16 梯度", "16-bit 梯度", "fp16 梯度", "梯度为", "梯度用", "梯度是", "梯度按",
                          "16 字节", "18 字节", "字节/参数", "梯度 bf16", "梯度 fp32")},
    "no-embeddings": {"en": ("embedding", "kaplan", "lm head", "lm-head"),
                      "zh": ("嵌入", "embedding", "kaplan", "lm head", "词表矩阵")},
    "line-rate": {"en": ("achieved", "effective", "line rate", "line-rate", "datasheet", "measured", "busbw", "bus bandwidth"),
                  "zh": ("实测", "有效", "标称", "线速", "实际", "达到", "busbw", "总线带宽")},
}


def names_convention(prompt: str, convention: str) -> bool:
    """Whether `prompt` says which side of `convention` it takes."""
    text = " ".join(prompt.casefold().split())
    return any(word in text for words in MARKERS[convention].values() for word in words)
