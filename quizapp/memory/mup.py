"""μP learning-rate transfer (Yang et al. 2022, "Tensor Programs V: Tuning Large Neural Networks via
Zero-Shot Hyperparameter Transfer", arXiv:2203.03466, Table 3 and section 4).

Under μP with Adam, the learning rate of the hidden (matrix-like) weights scales as 1/fan_in, so a
rate tuned on a proxy of width base_width transfers to width `width` as

    lr = base_lr × base_width / width

(the embedding and output layers keep other rules; the ask is the hidden layers' rate).
"""

from __future__ import annotations

from quizapp.memory.derivation import Derivation, Step, num
from quizapp.memory.notes import note


def mup_lr(base_lr: float, base_width: int, width: int) -> float:
    return base_lr * base_width / width


def derive(setup) -> Derivation:
    ask = "mup_lr"
    e = setup.extras
    lr, base, width = e.need("base_lr", ask), e.need("base_width", ask), e.need("width", ask)
    ratio = Step("mup_width_ratio", width / base, "number", "width / base_width", f"{num(width)} / {num(base)}",
                 note("calc.extra.mup_ratio"))
    last = Step(ask, mup_lr(lr, base, width), "number", "base_lr × base_width / width",
                f"{num(lr)} × {num(base)} / {num(width)}", note("calc.extra.mup"))
    return Derivation(ask, (ratio, last), (note("calc.extra.mup_source"),))
