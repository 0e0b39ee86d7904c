"""`quizapp calc` for issue 11: the new flags, --max solves, the JSON keys, 80-column text, errors."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from quizapp.cli import main
from quizapp.memory import PRESETS


def _run(capsys, *argv):
    code = main(["calc", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, *argv):
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_serving_json_keys_and_types(capsys):
    data = _json(capsys, "--model", "llama-2-7b", "--method", "inference", "--gpu", "a100-80g", "--batch", "8",
                 "--seq", "4096")
    assert {"params", "terms", "total", "cpu", "gpu", "flops_per_token", "step_time_s"} <= set(data)
    assert data["active_params"] == data["params"] == PRESETS["llama-2-7b"].params
    s = data["serving"]
    assert set(s) == {"kv_bytes_per_token", "kv_budget", "kv_tokens", "max_concurrency", "decode", "prefill",
                      "critical_batch", "fits", "shortfall_bytes"}
    assert set(s["decode"]) == {"bytes", "flops", "step_s", "tokens_per_s", "per_seq_tokens_per_s", "bound"}
    assert set(s["prefill"]) == {"flops", "ttft_s", "bound"}
    assert s["kv_bytes_per_token"] == 524_288 and isinstance(s["kv_tokens"], int)
    assert s["critical_batch"] == 154 and s["decode"]["bound"] == "memory"
    assert s["decode"]["bytes"] == 2 * PRESETS["llama-2-7b"].params + 8 * 4096 * 524_288
    assert s["decode"]["tokens_per_s"] == pytest.approx(8 / s["decode"]["step_s"])
    assert "comm" not in data and "mfu" not in data


def test_serving_without_gpu_has_only_the_kv_per_token(capsys):
    data = _json(capsys, "--model", "deepseek-v3", "--method", "inference")
    assert data["serving"] == {"kv_bytes_per_token": 70_272}


def test_comm_json_keys(capsys):
    data = _json(capsys, "--model", "llama-2-7b", "--gpus", "8", "--gpu", "h100-80g", "--pp", "4",
                 "--microbatches", "8", "--train-tokens", "2T")
    assert set(data["comm"]) == {"dp", "tp", "pp", "ep", "total"}
    assert all(set(v) == {"bytes", "s"} for v in data["comm"].values())
    assert data["bubble"] == 3 / 8
    assert data["comm"]["total"]["bytes"] == sum(data["comm"][k]["bytes"] for k in ("dp", "tp", "pp", "ep"))
    assert {"mfu", "hfu", "compute_budget_flops", "chinchilla_tokens", "train_days"} <= set(data)


def test_ddp_reference_volume_in_json(capsys):
    data = _json(capsys, "--model", "llama-2-7b", "--gpus", "8")
    assert data["comm"]["dp"] == {"bytes": 23_584_454_656, "s": None}  # no GPU, no link: no time


@pytest.mark.parametrize(
    ("argv", "key"),
    [
        (["--model", "llama-2-7b", "--method", "inference", "--gpu", "a100-80g", "--seq", "4096", "--max",
          "concurrency"], "concurrency"),
        (["--model", "llama-2-7b", "--method", "inference", "--gpu", "a100-80g", "--batch", "16", "--max",
          "context"], "context"),
        (["--model", "llama-2-70b", "--method", "inference", "--gpu", "a100-80g", "--max", "tp"], "tp"),
        (["--model", "llama-2-70b", "--gpu", "a100-80g", "--recompute", "full", "--max", "gpus"], "gpus"),
    ],
)
def test_new_max_solves(capsys, argv, key):
    data = _json(capsys, *argv)
    assert data["max"][key] >= 1
    code, out, _ = _run(capsys, *argv)
    assert code == 0
    head = out.splitlines()[:5]
    assert any(w in line for line in head for w in ("largest", "longest", "smallest", "fewest"))  # asked first


def test_concurrency_solve_matches_the_serving_figure(capsys):
    argv = ["--model", "llama-3-8b", "--method", "inference", "--gpu", "h100-80g", "--seq", "8k"]
    data = _json(capsys, *argv, "--max", "concurrency")
    assert data["max"]["concurrency"] == data["serving"]["max_concurrency"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--model", "llama-2-7b", "--gpus", "8", "--tp", "2", "--pp", "4", "--microbatches", "8", "--gpu", "h100-80g",
         "--train-tokens", "2T"],
        ["--model", "mixtral-8x7b", "--method", "inference", "--gpu", "h100-80g", "--tp", "4", "--batch", "64"],
        ["--model", "qwen3-30b-a3b", "--gpus", "8", "--ep", "8", "--gpu", "h100-80g", "--zero", "3",
         "--recompute", "full"],
    ],
)
def test_text_fits_80_columns(capsys, monkeypatch, argv):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = _run(capsys, *argv)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 80


def test_sections_come_in_order_of_what_was_asked(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    _, out, _ = _run(capsys, "--model", "llama-2-7b", "--gpus", "8", "--tp", "2", "--gpu", "h100-80g")
    assert out.index("COMMUNICATION") < out.index("MEMORY") < out.index("TIME")
    _, out, _ = _run(capsys, "--model", "llama-2-7b", "--gpu", "h100-80g")
    assert out.index("MEMORY") < out.index("TIME") and "COMMUNICATION" not in out


def test_notes_in_chinese_fit_80_columns(capsys, monkeypatch):
    import unicodedata

    monkeypatch.setenv("COLUMNS", "80")
    code = main(["--lang", "zh", "calc", "--model", "deepseek-v3", "--method", "inference", "--gpu", "h200",
                 "--tp", "8", "--weights", "fp8"])
    out = capsys.readouterr().out
    assert code == 0 and "说明" in out and "KV 预算" in out
    cells = [sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line) for line in out.splitlines()]
    assert max(cells) <= 80  # a wide character takes two columns
    assert not any(line.lstrip().startswith(("、", "，", "；", "。")) for line in out.splitlines())


@pytest.mark.parametrize(
    ("argv", "flag", "fragment"),
    [
        (["--model", "llama-2-7b", "--tp", "3"], "--tp", "divisor"),
        (["--model", "llama-2-7b", "--kv-block", "0"], "--kv-block", "integer"),
        (["--model", "llama-2-7b", "--weights", "gguf-q5"], "--weights", "gguf-q4_0"),
        (["--model", "llama-2-7b", "--gpu", "a100-80g", "--max", "concurrency"], "--max concurrency", "inference"),
        (["--model", "llama-2-7b", "--method", "inference", "--gpu", "a100-80g", "--max", "gpus"], "--max gpus",
         "training"),
        (["--model", "llama-2-7b", "--method", "inference", "--max", "tp"], "--max tp", "--gpu"),
        (["--model", "llama-2-7b", "--gpu", "a100-80g", "--compute", "fp8"], "--compute", "fp8"),
        (["--model", "llama-2-7b", "--link-bandwidth", "fast"], "--link-bandwidth", "expected"),
        (["--model", "llama-2-7b", "--pp", "2", "--interleave", "0"], "--interleave", "integer"),
    ],
)
def test_bad_new_flags_exit_2_with_one_line(capsys, argv, flag, fragment):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "", out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"quizapp: {flag}") and fragment in lines[0], lines


_FUZZ_FLAGS = {
    "--method": ["full", "lora", "inference", "ppo", "grpo"], "--tp": ["1", "2", "3", "8"], "--pp": ["1", "2"],
    "--ep": ["1", "2", "8"], "--gpus": ["1", "8"], "--zero": ["0", "3"], "--gpu": ["a100-80g", "t4", "mi300x"],
    "--weights": ["bf16", "gptq-int4", "gguf-q4_0"], "--max": ["batch", "concurrency", "context", "tp", "gpus"],
    "--train-tokens": ["1T"], "--compute": ["bf16", "fp8"], "--seq": ["4096", "128k"], "--batch": ["1", "64"],
}


@settings(max_examples=40, deadline=None)
@given(model=st.sampled_from(["llama-2-7b", "mixtral-8x7b", "deepseek-v3", "7B", "qwen3-8b"]),
       chosen=st.dictionaries(st.sampled_from(sorted(_FUZZ_FLAGS)), st.integers(0, 4), max_size=5),
       as_json=st.booleans())
def test_any_flag_combination_exits_0_or_2_with_one_line(model, chosen, as_json):
    import contextlib
    import io

    argv = ["calc", "--model", model]
    for flag, pick in chosen.items():
        argv += [flag, _FUZZ_FLAGS[flag][pick % len(_FUZZ_FLAGS[flag])]]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv + (["--json"] if as_json else []))
    assert code in (0, 2), (argv, err.getvalue())
    if code == 2:
        assert len(err.getvalue().strip().splitlines()) == 1 and out.getvalue() == "", argv
    elif as_json:
        json.loads(out.getvalue())
