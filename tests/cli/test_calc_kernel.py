"""`quizapp calc --kernel` (memory-model.md section 17): the JSON object, the 80-column text, bad flags.

Expected figures are the spec's formulas with the numbers written out."""

from __future__ import annotations

import json
import unicodedata

import pytest

from quizapp.cli import main


def _run(capsys, *argv):
    try:
        code = main(["calc", *argv])
    except SystemExit as exc:  # argparse / CliError exits
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, *argv):
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)["kernel"]


def _cells(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def test_gemm_json(capsys):
    k = _json(capsys, "--kernel", "gemm", "--shape", "4096,4096,4096", "--dtype", "bf16", "--gpu", "a100-80g")
    assert {"flops", "bytes", "intensity", "ridge", "time_s", "bound"} <= set(k)
    assert k["flops"] == 2 * 4096**3 and isinstance(k["flops"], int)  # 2·m·n·k
    assert k["bytes"] == 2 * 3 * 4096**2 and isinstance(k["bytes"], int)  # p·(m·k + k·n + m·n)
    assert k["intensity"] == pytest.approx(2 * 4096**3 / (2 * 3 * 4096**2))
    assert k["ridge"] == pytest.approx(312e12 / 2.039e12)  # 153.0
    assert k["time_s"] == pytest.approx(2 * 4096**3 / 312e12) and k["bound"] == "compute"


def test_attention_json_standard_and_flash(capsys):
    std = _json(capsys, "--kernel", "attention", "--seq", "4096", "--head-dim", "128", "--gpu", "h100")
    assert std["bytes"] == 2 * (4 * 4096 * 128 + 4 * 4096**2)  # p·(4·N·d + 4·N²), per head and sequence
    assert std["flops"] == 4 * 4096**2 * 128 and std["bound"] == "memory"
    flash = _json(capsys, "--kernel", "attention", "--seq", "4096", "--head-dim", "128", "--flash",
                  "--block-rows", "64", "--gpu", "h100")
    assert flash["bytes"] == 2 * (2 * 4096 * 128 + 2 * 64 * 4096 * 128) + 4 * 4096
    assert flash["ridge"] == pytest.approx(989.4e12 / 3.35e12)  # 295.3
    causal = _json(capsys, "--kernel", "attention", "--seq", "4096", "--head-dim", "128", "--attention-flops", "causal")
    assert causal["flops"] == 2 * 4096**2 * 128 and causal["ridge"] is None and causal["time_s"] is None


def test_elementwise_json(capsys):
    k = _json(capsys, "--kernel", "elementwise", "--elements", "1048576", "--chain", "2:1,1:1", "--chain-inputs", "2",
              "--gpu", "h100", "--dtype", "fp32")
    assert k["unfused_bytes"] == (3 + 2) * 1048576 * 4  # Σ (in + out)·E·p
    assert k["fused_bytes"] == k["bytes"] == (2 + 1) * 1048576 * 4
    assert k["fusion_saving"] == pytest.approx(5 / 3) and k["flops"] == 0 and k["bound"] == "memory"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("argv", [
    ("--kernel", "gemm", "--shape", "8192,8192,28672", "--gpu", "h100-80g", "--dtype", "fp8"),
    ("--kernel", "attention", "--seq", "131072", "--head-dim", "128", "--flash", "--gpu", "b200"),
    ("--kernel", "elementwise", "--elements", "134217728", "--chain", "1:1,2:1,1:1,1:1", "--gpu", "mi300x"),
])
def test_text_fits_80_columns(capsys, lang, argv):
    code = main(["--lang", lang, "calc", *argv])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert len(lines) > 8 and max(_cells(line) for line in lines) <= 80
    assert any("memory-bound" in line or "compute-bound" in line for line in lines)


@pytest.mark.parametrize(("argv", "flag"), [
    (("--kernel", "gemm", "--shape", "4096,4096"), "--shape"),
    (("--kernel", "gemm"), "--shape"),
    (("--kernel", "gemm", "--shape", "1,4096,4096", "--dtype", "fp8", "--gpu", "a100-80g"), "--dtype"),
    (("--kernel", "attention", "--seq", "4096"), "--head-dim"),
    (("--kernel", "attention", "--seq", "4096", "--head-dim", "128", "--block-rows", "64"), "--block-rows"),
    (("--kernel", "elementwise", "--elements", "10", "--chain", "x"), "--chain"),
    (("--kernel", "conv",), "--kernel"),
    (("--kernel", "gemm", "--shape", "1,1,1", "--model", "7B"), "--model"),
])
def test_bad_flags_are_one_line_naming_the_flag(capsys, argv, flag):
    code, out, err = _run(capsys, *argv)
    assert code != 0
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and flag in lines[0] and "Traceback" not in err


def test_window_flags_on_a_model(capsys):
    code, out, err = _run(capsys, "--model", "llama-3-8b", "--window", "4096", "--method", "inference", "--seq", "8192",
                          "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["terms"]["kv_cache"] == 2 * 32 * 8 * 128 * 4096 * 2  # 2·L·a_kv·d·min(s, W)·p
    code, out, err = _run(capsys, "--model", "gemma-2-9b", "--method", "inference", "--seq", "8192", "--json")
    assert json.loads(out)["terms"]["kv_cache"] == 2 * 8 * 256 * (21 * 4096 + 21 * 8192) * 2
    code, out, err = _run(capsys, "--model", "llama-3-8b", "--global-every", "2")
    assert code != 0 and err.count("\n") == 1 and "--window" in err
