"""`quizapp calc`: table, JSON shape, --max, --list and one-line errors with exit status 2."""

from __future__ import annotations

import json

import pytest

from quizapp.cli import main
from quizapp.memory import PRESETS


def _run(capsys, *argv):
    code = main(["calc", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_table_has_terms_total_and_verdict(capsys):
    code, out, _ = _run(capsys, "--model", "llama-2-7b", "--gpu", "rtx-4090")
    assert code == 0
    assert "2·Ψ = 2 × 6,738,415,616" in out
    assert "13.48" in out and "12.55" in out  # weights: 2·6,738,415,616 bytes in GB and GiB
    assert "total" in out and "does NOT fit" in out
    assert "16 bytes/param: 2 weights + 2 grads + 4 master + 8 Adam" in out


def test_json_shape(capsys):
    code, out, _ = _run(capsys, "--model", "llama-2-7b", "--gpu", "a100-80g", "--recompute", "full", "--zero", "3",
                        "--gpus", "8", "--max", "batch", "--json")
    assert code == 0
    data = json.loads(out)
    today = {"params", "terms", "total", "cpu", "gpu", "max", "flops_per_token", "step_time_s"}
    # issue 11 adds, for a dense training setup with a GPU: active params, utilisation, Chinchilla
    # tokens; and with N = 8 GPUs the communication per step
    assert set(data) == today | {"active_params", "mfu", "hfu", "chinchilla_tokens", "comm"}
    assert data["params"] == PRESETS["llama-2-7b"].params
    assert data["total"] == sum(data["terms"].values())
    assert set(data["gpu"]) == {"name", "capacity", "usable", "fits", "headroom"}
    assert data["gpu"]["capacity"] == 80 * 2**30 and data["gpu"]["usable"] == 79 * 2**30
    assert isinstance(data["max"]["batch"], int) and data["max"]["batch"] >= 1
    assert data["terms"]["weights"] == 2 * PRESETS["llama-2-7b"].params // 8


def test_json_without_gpu_has_no_gpu_keys(capsys):
    data = json.loads(_run(capsys, "--model", "7B", "--json")[1])
    assert set(data) == {"params", "terms", "total", "cpu", "flops_per_token", "active_params", "chinchilla_tokens"}
    assert data["total"] == 112 * 10**9


@pytest.mark.parametrize("what, key", [("seq", "seq"), ("model", "params")])
def test_max_json(capsys, what, key):
    data = json.loads(_run(capsys, "--model", "llama-2-7b", "--method", "qlora", "--gpu", "rtx-4090", "--max", what, "--json")[1])
    assert data["max"][key] > 0


def test_max_text(capsys):
    code, out, _ = _run(capsys, "--model", "llama-2-7b", "--gpu", "rtx-4090", "--max", "model")
    assert code == 0 and "largest model that fits" in out and "llama-2-7b's family" in out


def test_list(capsys):
    code, out, _ = _run(capsys, "--list")
    assert code == 0 and "llama-3.1-405b" in out and "405,853,388,800" in out and "h200" in out


def test_custom_shape_flags(capsys):
    data = json.loads(_run(capsys, "--layers", "12", "--hidden", "768", "--heads", "12", "--style", "gpt", "--json")[1])
    assert data["params"] == PRESETS["gpt2"].params


@pytest.mark.parametrize(
    "argv, flag, fragment",
    [
        (["--model", "lama-2-7b"], "--model", "did you mean llama-2-7b?"),
        (["--model", "llama-2-7b", "--gpu", "rtx-4900"], "--gpu", "rtx-3090 | rtx-4090"),
        (["--model", "llama-2-7b", "--batch", "0"], "--batch", "integer >= 1"),
        (["--model", "llama-2-7b", "--offload", "optimizer+params"], "--offload", "ZeRO stage 3"),
        (["--layers", "4", "--hidden", "100", "--heads", "3"], "--heads", "divisor of hidden"),
        (["--model", "llama-2-7b", "--max", "batch"], "--max", "--gpu"),
        (["--model", "llama-2-7b", "--kv-heads", "5"], "--kv-heads", "divisor of heads"),
        ([], "--model", "missing"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, flag, fragment):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"quizapp: {flag}") and fragment in lines[0]
    assert "Traceback" not in err
