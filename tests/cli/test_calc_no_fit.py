"""A serving setup whose weights exceed the budget says so first (issue 22): the shortfall, the tp it
needs, and its speeds marked as those of a deployment that cannot start."""

from __future__ import annotations

import json

from quizapp.cli import main

# llama-3-70b in bf16 on one H100 80GB: weights 2 x 70,553,706,496 = 141.11 GB; vLLM may use
# 0.9 x 85,520,809,984 (81,559 MiB reported) - 1 GiB = 75.89 GB, so the budget is 75.89 - 141.11 = -65.21 GB.
ARGS = ["calc", "--model", "llama-3-70b", "--method", "inference", "--gpu", "h100-80g"]


def test_the_text_says_does_not_fit_before_any_speed(capsys):
    assert main(["--lang", "en", *ARGS]) == 0
    out = capsys.readouterr().out
    serving = out[out.index("SERVING"):]
    verdict = serving.index("does NOT fit")
    assert verdict < serving.index("decode step") and verdict < serving.index("tokens/s")
    assert "short by 65.21 GB" in " ".join(serving.split()) and "It fits from tp 2." in " ".join(serving.split())
    rate = next(line for line in serving.splitlines() if line.strip().startswith("tokens/s"))
    assert rate.endswith("(if it fitted)")


def test_the_json_says_it_does_not_fit(capsys):
    assert main([*ARGS, "--json"]) == 0
    serving = json.loads(capsys.readouterr().out)["serving"]
    assert serving["fits"] is False and serving["max_concurrency"] == 0
    assert round(serving["shortfall_bytes"] / 1e9, 2) == 65.21


def test_a_setup_that_fits_is_not_marked(capsys):
    assert main([*ARGS[:2], "llama-3-8b", *ARGS[3:], "--json"]) == 0
    serving = json.loads(capsys.readouterr().out)["serving"]
    assert serving["fits"] is True and serving["shortfall_bytes"] == 0
