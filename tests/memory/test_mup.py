"""μP learning-rate transfer (Yang et al. 2022): hidden-layer Adam LR scales as base_width / width."""

from __future__ import annotations

import pytest

from quizapp.memory import SetupError, evaluate, setup_from_options


def test_mup_lr_transfers_by_the_width_ratio():
    # tuned 1e-2 at width 256, target width 4096: 1e-2 x 256 / 4096 = 6.25e-4
    setup = setup_from_options({"base_lr": 0.01, "base_width": 256, "width": 4096})
    assert evaluate(setup, "mup_lr") == pytest.approx(0.01 * 256 / 4096)


def test_mup_needs_every_key():
    with pytest.raises(SetupError, match="width: missing; mup_lr needs width"):
        evaluate(setup_from_options({"base_lr": 0.01, "base_width": 256}), "mup_lr")
    with pytest.raises(SetupError, match="base_lr: expected a positive number"):
        setup_from_options({"base_lr": 0, "base_width": 256, "width": 512})
