"""`quizapp validate`, `new`, `schema` and `drill`, driven through the real CLI entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from quizapp.cli import main

HERE = Path(__file__).parent
GOOD_DIR = HERE / "fixtures" / "good"
GRADING_DIR = HERE / "fixtures" / "grading"


def test_validate_json_shape_on_a_good_bank(capsys):
    assert main(["validate", str(GOOD_DIR), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # a user's question without key points loads, with a warning that it is self-rated (and its
    # prompts, which leave the gradient convention open, are warned about; they grade as written)
    warnings = [w["path"] for w in report.pop("warnings")]
    assert warnings[0] == "key_points" and all(w.startswith("drills[") for w in warnings[1:])
    assert report == {
        "questions": 1,
        "cards": 1 + 2 + 5,
        "drills": 5,
        "topics": {"llm-training": {"questions": 1, "drills": 5}},
        "difficulty": {"1": 0, "2": 1, "3": 0, "4": 0, "5": 0},
        "errors": [],
    }


def test_validate_json_counts_each_topic_and_difficulty(write_question, tmp_path, capsys):
    # three questions in two topics, difficulties 1, 5 and the default (3); drills counted per topic
    def question(qid: str, topic: str, difficulty: str, drills: int) -> str:
        drill = (
            "  - id: d{n}\n"
            "    prompt: \"7B AdamW 模型状态多少 GB？\"\n"
            "    setup: {{model: 7B, method: full, precision: bf16-mixed, optimizer: adamw}}\n"
            "    ask: model_states\n"
            "    unit: GB\n"
        )
        body = f"id: {qid}\ntitle: 题目 {qid}\ntopic: {topic}\n{difficulty}answer: 答\n"
        if drills:
            body += "drills:\n" + "".join(drill.format(n=n) for n in range(drills))
        return body

    write_question("serving/a.yaml", question("a", "serving", "difficulty: 1\n", 2))
    write_question("serving/b.yaml", question("b", "serving", "difficulty: 5\n", 0))
    write_question("moe/c.yaml", question("c", "moe", "", 3))
    assert main(["validate", str(tmp_path / "content"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["topics"] == {"moe": {"questions": 1, "drills": 3}, "serving": {"questions": 2, "drills": 2}}
    assert report["difficulty"] == {"1": 1, "2": 0, "3": 1, "4": 0, "5": 1}
    assert sum(t["questions"] for t in report["topics"].values()) == report["questions"] == 3
    assert sum(t["drills"] for t in report["topics"].values()) == report["drills"] == 5


def test_validate_uses_the_configured_content_dirs(capsys, monkeypatch):
    monkeypatch.setenv("QUIZAPP_CONTENT", str(GOOD_DIR))
    assert main(["validate"]) == 0
    assert "1 questions, 8 cards, 5 drills: no problems" in capsys.readouterr().out
    assert main(["--content", str(GRADING_DIR), "validate", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["drills"] == 12


def test_new_writes_a_skeleton_that_validates_and_never_overwrites(tmp_path, capsys):
    content = tmp_path / "bank"
    assert main(["--content", str(content), "new", "kv-cache-70b", "--topic", "inference"]) == 0
    path = content / "inference" / "kv-cache-70b.yaml"
    assert capsys.readouterr().out.strip() == str(path)
    text = path.read_text(encoding="utf-8")
    assert text.count("#") > 10  # commented
    assert main(["validate", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == [] and report["drills"] == 1
    path.write_text(text + "# my edits\n", encoding="utf-8")
    assert main(["--content", str(content), "new", "kv-cache-70b", "--topic", "inference"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8").endswith("# my edits\n")


@pytest.mark.parametrize("bad_id", ["Bad Id", "../escape", ""])
def test_new_rejects_ids_that_are_not_slugs(tmp_path, capsys, bad_id):
    bank = tmp_path / "bank"
    assert main(["--content", str(bank), "new", bad_id]) == 2
    assert "slug" in capsys.readouterr().err
    assert not bank.exists()


def test_schema_prints_json_schema(capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "quizapp question" and "drills" in schema["properties"]


def test_drill_json_grades_an_answer(capsys):
    code = main(["--content", str(GRADING_DIR), "drill", "grading-table/zero-one-gpu", "--answer", "37 GB", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert {"prompt", "expected", "unit", "verdict", "value", "mistake"} <= set(out)
    assert out["expected"] == pytest.approx(112.0) and out["unit"] == "GB"
    assert out["verdict"] == "wrong" and out["value"] == pytest.approx(37.0) and out["mistake"] == "zero-single-gpu"


def test_drill_text_shows_breakdown_and_nulls_without_answer(capsys):
    assert main(["--content", str(GOOD_DIR), "drill", "mini-adamw/states"]) == 0
    out = capsys.readouterr().out
    for term in ("weights", "gradients", "master_weights", "optimizer_states", "112.00 GB"):
        assert term in out
    assert main(["--content", str(GOOD_DIR), "drill", "mini-adamw/states", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] is None and out["value"] is None and out["mistake"] is None


def test_drill_seed_selects_a_reproducible_variant(capsys):
    prompts = set()
    for _ in range(2):
        main(["--content", str(GOOD_DIR), "drill", "mini-adamw/states-vary", "--seed", "5", "--json"])
        prompts.add(json.loads(capsys.readouterr().out)["prompt"])
    assert len(prompts) == 1


@pytest.mark.parametrize("reference", ["nope/states", "mini-adamw/nope"])  # a bare QID lists its drills
def test_drill_unknown_reference_is_a_one_line_error(capsys, reference):
    assert main(["--content", str(GOOD_DIR), "drill", reference]) == 2
    err = capsys.readouterr().err
    assert err.startswith("quizapp: ") and err.count("\n") == 1


def test_validate_imports_neither_textual_nor_sqlmodel():
    code = (
        "import sys; from quizapp.cli import main; "
        f"rc = main(['validate', {str(GOOD_DIR)!r}]); "
        "bad = [m for m in ('textual', 'sqlmodel', 'sqlalchemy') if m in sys.modules]; "
        "print('HEAVY', bad); sys.exit(rc)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "HEAVY []" in result.stdout


def test_content_package_imports_neither_textual_nor_sqlmodel():
    code = "import sys, quizapp.content; print([m for m in ('textual', 'sqlmodel') if m in sys.modules])"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "[]", result.stderr
