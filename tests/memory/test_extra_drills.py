"""The extra asks end to end: a YAML drill per ask validates, `quizapp drill` prints its derivation
(formula, numbers, value) in both languages and grades an answer, and a bad key is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizapp.cli import main
from quizapp.memory.extra_asks import EXTRA_ASKS

# ask -> (setup as YAML flow mapping, unit, an answer within tolerance, a substituted fragment the
# derivation must print). Expected values worked out by hand in the comments.
DRILLS = {
    "spec_tokens_per_round": ("{acceptance: 0.8, draft_len: 4}", "tokens", "3.36", "(1 − 0.8^5) / (1 − 0.8)"),  # 3.3616
    "spec_speedup": ("{acceptance: 0.8, draft_len: 4, draft_cost: 0.05}", "x", "2.8", "3.3616 / 1.2"),  # 2.8013
    "format_max": ("{format: fp8-e4m3}", "x", "448", "1.75 · 2^8"),
    "format_min_normal": ("{format: fp16}", "x", "6.1e-5", "2^-14"),
    "format_min_subnormal": ("{format: fp32}", "x", "1.4e-45", "2^-149"),
    "format_epsilon": ("{format: bf16}", "x", "0.0078", "2^−7"),
    "fp8_scale": ("{format: fp8-e4m3, amax: 3.5}", "x", "128", "448 / 3.5"),
    "sm_peak_flops": ("{sms: 132, clock_ghz: 1.83, flops_per_clock_per_sm: 4096}", "TFLOPs", "989 TFLOPS",
                      "132 × 1.83e9 × 4,096"),
    "hbm_bandwidth": ("{bus_bits: 1024, gbps_per_pin: 6.4}", "GB/s", "819.2 GB/s", "1,024 × 6.4e9 / 8"),
    "bytes_in_flight": ("{gpu: h100-80g, latency_ns: 600}", "MB", "2.01 MB", "× 600e-9"),  # 3.35e12 x 600e-9
    "transfer_s": ("{transfer_bytes: 10 GB, link: pcie4}", "s", "0.317 s", "16 × 16,000,000,000 × 128/130 / 8"),
    "kv_transfer_bytes": ("{model: llama-3.1-8b, prompt: 8192, seq: 8192}", "GB", "1.07 GB", "8,192 × 131,072"),
    "kv_transfer_s": ("{model: llama-3.1-8b, prompt: 8192, seq: 8192, link_bandwidth: 50 GB/s}", "ms", "21.5 ms",
                      "1,073,741,824 / 50,000,000,000"),
    "corpus_tokens": ("{corpus_bytes: 1 TB, bytes_per_token: 4}", "B", "250B", "1,000,000,000,000 / 4"),
    "lsh_match_probability": ("{similarity: 0.8, bands: 20, rows: 5}", "%", "99.96%", "1 − (1 − 0.32768)^20"),
    "padding_waste": ("{doc_lengths: [300, 1200, 4096], seq: 4096}", "%", "54.5%", "(3·4,096 − 5,596) / (3·4,096)"),
    "packed_sequences": ("{doc_lengths: [300, 1200, 4096], seq: 4096}", "count", "2", "⌈5,596 / 4,096⌉"),
    "mup_lr": ("{base_lr: 0.01, base_width: 256, width: 4096}", "x", "6.25e-4", "0.01 × 256 / 4,096"),
}


def test_every_extra_ask_has_a_drill_here():
    assert set(DRILLS) == set(EXTRA_ASKS)


def _file(tmp_path: Path, ask: str) -> Path:
    setup, unit, _, _ = DRILLS[ask]
    folder = tmp_path / "t"
    folder.mkdir(exist_ok=True)
    path = folder / "q.yaml"
    path.write_text(
        "id: q\ntitle: {en: t, zh: 题}\ntopic: t\nanswer: {en: a, zh: 答}\ndrills:\n"
        f"  - id: d\n    prompt: {{en: 'compute {ask}', zh: '计算 {ask}'}}\n    setup: {setup}\n"
        f"    ask: {ask}\n    unit: '{unit}'\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("ask", sorted(DRILLS))
def test_the_drill_validates_and_prints_its_derivation(ask, tmp_path, capsys):
    path = _file(tmp_path, ask)
    assert main(["validate", str(path)]) == 0
    capsys.readouterr()
    answer, fragment = DRILLS[ask][2], DRILLS[ask][3]
    assert main(["--content", str(path.parent), "drill", "q/d", "--answer", answer]) == 0
    out = capsys.readouterr().out
    assert fragment in out, out
    assert "-> correct" in out, out
    assert "weights" not in out and "total" not in out  # no memory table: the steps
    assert main(["--lang", "zh", "--content", str(path.parent), "drill", "q/d"]) == 0
    zh = capsys.readouterr().out
    assert fragment in zh and "▶" in zh


def test_a_missing_key_is_one_line_at_the_drill(tmp_path, capsys):
    path = tmp_path / "q.yaml"
    path.write_text("id: q\ntitle: t\ntopic: t\nanswer: a\ndrills:\n  - id: d\n    prompt: p\n"
                    "    setup: {acceptance: 0.8}\n    ask: spec_tokens_per_round\n    unit: tokens\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    problem = [line for line in out.splitlines() if "draft_len" in line]
    assert len(problem) == 1 and "draft_len: missing; spec_tokens_per_round needs draft_len" in problem[0]


def test_the_worked_solution_rows_are_the_steps():
    from quizapp.content.schema import Drill
    from quizapp.content.solution import base_solution
    from quizapp.memory import setup_from_options

    drill = Drill(id="d", prompt="p", setup={"acceptance": 0.8, "draft_len": 4, "draft_cost": 0.05},
                  ask="spec_speedup", unit="x")
    solution = base_solution(drill, setup_from_options(dict(drill.setup)))
    assert solution.derived and [r.name for r in solution.rows] == ["spec_tokens_per_round", "spec_round_cost",
                                                                     "spec_speedup"]
    assert solution.rows[-1].asked and solution.answer == "2.80"
    assert solution.rows[0].shown == "3.36 tokens"


def test_line_rate_is_the_only_convention_of_a_link_time():
    from quizapp.memory.conventions import convention_value, relevant

    options = {"transfer_bytes": "10 GB", "link": "pcie4", "link_bandwidth": "25 GB/s"}
    assert relevant("line-rate", "transfer_s") and not relevant("causal", "transfer_s")
    assert not relevant("line-rate", "spec_speedup")
    # the datasheet reading: PCIe 4.0 x16 at 16 GT/s x 16 x 128/130 / 8 = 31.5 GB/s instead of the achieved 25
    assert convention_value(options, "transfer_s", "line-rate") == pytest.approx(10e9 / (16 * 16e9 * 128 / 130 / 8))


def test_calc_ask_prints_the_derivation_and_json(capsys):
    import json

    assert main(["calc", "--ask", "spec_speedup", "--acceptance", "0.8", "--draft-len", "4", "--draft-cost", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "= (1 − 0.8^5) / (1 − 0.8)" in out and "2.80" in out
    assert all(len(line) <= 80 for line in out.splitlines())
    assert main(["calc", "--ask", "lsh_match_probability", "--similarity", "0.8", "--bands", "20", "--rows", "5",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == pytest.approx(1 - (1 - 0.8**5) ** 20) and data["steps"][-1]["formula"] == "1 − (1 − s^r)^b"


def test_calc_ask_bad_input_is_one_line_naming_the_flag(capsys):
    assert main(["calc", "--ask", "spec_speedup", "--acceptance", "0.8", "--draft-len", "4"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("quizapp: --draft-cost: missing") and "\n" not in err


def test_token_counts_say_tokens_and_exact_numbers_drop_the_decimals():
    # requests/data.md #1 and numerics.md #2: "2.50T tokens", not "2.50T params"; 448, not "448.00"
    from quizapp.content.drills import precise
    from quizapp.content.schema import Drill, Question
    from quizapp.content.drills import reference_value

    drills = [Drill(id="c", prompt="p", setup={"corpus_bytes": "10 TB", "bytes_per_token": 4}, ask="corpus_tokens",
                    unit="T"),
              Drill(id="m", prompt="p", setup={"format": "fp8-e5m2"}, ask="format_max", unit="x"),
              Drill(id="p", prompt="p", setup={"model": "llama-2-7b"}, ask="params", unit="B")]
    question = Question(id="q", title="t", topic="t", answer="a", drills=drills, lang="en")
    assert reference_value(question, "c", None) == "2.50T tokens"  # 10e12 / 4 = 2.5e12
    assert reference_value(question, "m", None) == "57,344"  # 1.75 x 2^15
    assert reference_value(question, "p", None) == "6.74B params"  # unchanged for parameter counts
    assert precise(3.3616, "x") == "3.36"
