"""`quizapp drill QID` lists the question's drills; without --seed one fixed variant (seed 0) is printed
and --answer is graded against it (issue 22)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from quizapp.cli import main

ROOT = Path(__file__).resolve().parents[2] / "content"


def test_drill_with_a_question_id_lists_its_drills(capsys):
    ids = [d["id"] for d in yaml.safe_load((ROOT / "inference" / "kv-cache.yaml").read_text(encoding="utf-8"))["drills"]]
    assert main(["--lang", "en", "drill", "kv-cache"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"kv-cache: {len(ids)} drills (quizapp drill kv-cache/DRILL shows one)"
    assert [line.split()[0] for line in out.splitlines() if line.startswith("  kv-cache/")] == [f"kv-cache/{i}" for i in ids]
    assert "{" not in out  # prompts shown as the variant `drill QID/ID` prints, placeholders filled
    assert main(["drill", "kv-cache", "--json"]) == 0
    assert [d["id"] for d in json.loads(capsys.readouterr().out)["drills"]] == [f"kv-cache/{i}" for i in ids]


def test_without_a_seed_the_printed_variant_is_the_graded_one(capsys):
    reference = "kv-cache/kv-7b"  # a parametric drill: its variants differ in model, context and batch
    assert main(["drill", reference, "--json", "--answer", "2 GB"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert main(["drill", reference, "--json", "--answer", "2 GB", "--seed", "0"]) == 0
    assert json.loads(capsys.readouterr().out) == default  # seed 0, every time
    assert default["seed"] == 0
    assert main(["drill", reference, "--answer", "2 GB"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].startswith("variant: seed 0") and default["prompt"] in text
