"""Disaggregated serving: the KV cache a prefill worker hands to a decode worker (DistServe, Zhong et
al. 2024; Splitwise, Patel et al. 2024; vLLM's and SGLang's prefill/decode disaggregation).

After prefilling a prompt of s tokens the prefill GPU(s) hold s × kv bytes per token of KV cache
(all layers, the whole model: section 6, MLA per section 11, in kv_dtype); the decode side needs all
of it before its first step, so the hand-off takes that many bytes over the link between them:
time = bytes / link bandwidth (a lower bound: no overlap with the prefill, no protocol overhead).
"""

from __future__ import annotations

from quizapp.memory.derivation import Derivation, Step, num
from quizapp.memory.notes import note


def kv_transfer_bytes(prompt: int, kv_bytes_per_token: float) -> float:
    return prompt * kv_bytes_per_token


def _check(setup, ask: str) -> None:
    from quizapp.memory.setup import SetupError

    if not setup.model.has_shape:
        raise SetupError("model", f"{ask} needs a shape (a preset or layers/hidden/heads) for its KV cache, "
                                  "not a bare count")


def _steps(setup, ask: str) -> tuple[Step, Step]:
    from quizapp.memory import formats

    _check(setup, ask)
    m = setup.model
    per_token = formats.kv_bytes_per_token(m, setup.kv_dtype)
    if m.is_mla:
        formula = "L·(r_kv + d_r)·p_kv"
        sub = f"{m.layers}·({m.kv_lora_rank} + {m.qk_rope_dim})·{num(formats.KV_BYTES[setup.kv_dtype])}"
    else:
        formula = "2·L·a_kv·d·p_kv"
        sub = f"2·{m.layers}·{m.kv_heads}·{m.head_dim}·{num(formats.KV_BYTES[setup.kv_dtype])}"
    kv = Step("kv_bytes_per_token", float(per_token), "bytes", formula, sub,
              note("calc.extra.kv_per_token", dtype=setup.kv_dtype))
    s = setup.prompt_tokens
    total = Step("kv_transfer_bytes", kv_transfer_bytes(s, per_token), "bytes", "s_prompt × kv_bytes_per_token",
                 f"{num(s)} × {num(per_token)}", note("calc.extra.kv_transfer"))
    return kv, total


def derive_bytes(setup) -> Derivation:
    return Derivation("kv_transfer_bytes", _steps(setup, "kv_transfer_bytes"))


def derive_seconds(setup) -> Derivation:
    from quizapp.memory.hardware import link_rate

    kv, total = _steps(setup, "kv_transfer_s")
    link = link_rate(setup, "kv_transfer_s")
    last = Step("kv_transfer_s", total.value / link.value, "seconds", "kv_transfer_bytes / link_bandwidth",
                f"{num(total.value)} / {num(link.value)}", note("calc.extra.transfer"))
    return Derivation("kv_transfer_s", (kv, total, link, last), (note("calc.extra.kv_transfer_bound"),))
