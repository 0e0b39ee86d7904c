"""Speculative decoding (Leviathan, Kalman and Matias 2023, "Fast Inference from Transformers via
Speculative Decoding", ICML; arXiv:2211.17192).

A draft model proposes γ tokens; the target model checks them in one forward pass and keeps the
longest accepted prefix plus one token of its own. With each drafted token accepted independently
with probability α (the paper's assumption), the tokens produced per round are

    E[tokens] = (1 − α^(γ+1)) / (1 − α)        (γ + 1 when α = 1)

and, with c = the time of one draft step over one target step, the expected walltime improvement is

    speedup = (1 − α^(γ+1)) / ((1 − α)(γ·c + 1))  (the expected improvement factor in walltime)

since one round costs γ draft steps and one target step: γ·c + 1 target-step times.
"""

from __future__ import annotations

from quizapp.memory.derivation import Derivation, Step, num
from quizapp.memory.notes import note

SOURCE = "Leviathan et al. 2023"


def tokens_per_round(acceptance: float, draft_len: int) -> float:
    """(1 − α^(γ+1)) / (1 − α): the expected tokens one verification round yields (γ + 1 at α = 1)."""
    if acceptance == 1:
        return float(draft_len + 1)
    return (1 - acceptance ** (draft_len + 1)) / (1 - acceptance)


def speedup(acceptance: float, draft_len: int, draft_cost: float) -> float:
    """tokens_per_round / (γ·c + 1): the expected walltime improvement over plain decoding."""
    return tokens_per_round(acceptance, draft_len) / (draft_len * draft_cost + 1)


def _tokens_step(alpha: float, gamma: int) -> Step:
    value = tokens_per_round(alpha, gamma)
    if alpha == 1:
        return Step("spec_tokens_per_round", value, "count", "γ + 1 (α = 1: every drafted token accepted)",
                    f"{gamma} + 1", note("calc.extra.spec_tokens", source=SOURCE), "tokens")
    return Step("spec_tokens_per_round", value, "count", "(1 − α^(γ+1)) / (1 − α)",
                f"(1 − {num(alpha)}^{gamma + 1}) / (1 − {num(alpha)})", note("calc.extra.spec_tokens", source=SOURCE),
                "tokens")


def derive_tokens(setup) -> Derivation:
    e = setup.extras
    alpha, gamma = e.need("acceptance", "spec_tokens_per_round"), e.need("draft_len", "spec_tokens_per_round")
    return Derivation("spec_tokens_per_round", (_tokens_step(alpha, gamma),),
                      (note("calc.extra.spec_assumption"),))


def derive_speedup(setup) -> Derivation:
    e = setup.extras
    alpha, gamma = e.need("acceptance", "spec_speedup"), e.need("draft_len", "spec_speedup")
    c = e.need("draft_cost", "spec_speedup")
    tokens = _tokens_step(alpha, gamma)
    cost = Step("spec_round_cost", gamma * c + 1, "number", "γ·c + 1", f"{gamma} × {num(c)} + 1",
                note("calc.extra.spec_cost"))
    result = Step("spec_speedup", speedup(alpha, gamma, c), "number", "E[tokens] / (γ·c + 1)",
                  f"{num(tokens.value)} / {num(cost.value)}", note("calc.extra.spec_speedup", source=SOURCE))
    return Derivation("spec_speedup", (tokens, cost, result), (note("calc.extra.spec_assumption"),))
