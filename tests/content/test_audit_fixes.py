"""Validation of `vary` combinations, duplicate paths, special files, placeholders, `quizapp new`'s
target and `quizapp drill`'s text layout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quizapp.cli import main
from quizapp.content import draw_variant, load_bank, load_question_file
from quizapp.content.validate import MAX_COMBINATIONS, vary_combinations
from quizapp.memory import SetupError

HERE = Path(__file__).parent
GOOD_DIR = HERE / "fixtures" / "good"
GOOD_FILE = GOOD_DIR / "llm-training" / "mini-adamw.yaml"
GRADING_DIR = HERE / "fixtures" / "grading"
BUNDLED_ID = "single-gpu-requirements"  # the seed card: always in the bundled bank


def _drill_file(tmp_path: Path, drill: str, name: str = "q") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"id: {name}\ntitle: t\ntopic: t\nanswer: a\ndrills:\n{drill}", encoding="utf-8")
    return path


# --- 1. vary combinations -------------------------------------------------------------------------

ZERO_OFFLOAD = (
    "  - id: d\n"
    "    prompt: \"{model} ZeRO-{zero} offload {offload}\"\n"
    "    setup: {model: llama-2-7b, zero: 3, offload: none}\n"
    "    ask: model_states\n"
    "    unit: GB\n"
    "    vary: {zero: [3, 1], offload: [none, optimizer+params]}\n"
)


def test_a_failing_vary_combination_is_reported_at_the_vary_key(tmp_path):
    # Each choice alone is fine with the base setup (zero 1 + offload none; zero 3 + offload
    # optimizer+params), but zero 1 with optimizer+params offload is not (spec: offload needs ZeRO-3).
    path = _drill_file(tmp_path, ZERO_OFFLOAD)
    question, problems = load_question_file(path)
    assert question is None and len(problems) == 1, [str(p) for p in problems]
    problem = problems[0]
    assert problem.path == "drills[0].vary.offload"
    vary_line = path.read_text(encoding="utf-8").splitlines()[10]
    assert vary_line.lstrip().startswith("vary:")
    assert (problem.line, problem.col) == (11, vary_line.index("offload:") + 1)  # the key in the flow mapping
    assert "offload=optimizer+params, zero=1" in problem.message
    with pytest.raises(SetupError):  # what draw_variant would have hit in review
        from quizapp.memory import setup_from_options

        setup_from_options({"model": "llama-2-7b", "zero": 1, "offload": "optimizer+params"})


def test_every_variant_of_a_valid_drill_can_be_drawn(tmp_path):
    path = _drill_file(tmp_path, ZERO_OFFLOAD.replace("zero: [3, 1]", "zero: [3]"))
    question, problems = load_question_file(path)
    assert problems == []
    for seed in range(20):
        draw_variant(question, question.drills[0], seed)


def test_vary_combinations_all_when_few():
    combos, sampled = vary_combinations({"b": [1, 2, 3], "a": ["x", "y"]})
    assert not sampled and len(combos) == 6
    assert {tuple(sorted(c.items())) for c in combos} == {
        (("a", a), ("b", b)) for a in ("x", "y") for b in (1, 2, 3)
    }


def test_vary_combinations_sample_deterministically_when_many():
    vary = {"seq": list(range(1, 21)), "batch": list(range(1, 21)), "zero": [0, 1, 2, 3]}  # 1,600
    combos, sampled = vary_combinations(vary)
    assert sampled and len(combos) == MAX_COMBINATIONS
    assert len({tuple(sorted(c.items())) for c in combos}) == MAX_COMBINATIONS  # no repeats
    assert all(set(c) == set(vary) and all(c[k] in vary[k] for k in vary) for c in combos)
    assert vary_combinations(vary)[0] == combos  # the same sample every run


def test_a_large_vary_still_finds_a_failing_combination(tmp_path):
    seqs = ", ".join(str(512 * i) for i in range(1, 71))  # 2 x 2 x 70 = 280 combinations, sampled
    drill = ZERO_OFFLOAD.replace("vary: {", f"vary: {{seq: [{seqs}], ").replace(
        "setup: {model: llama-2-7b,", "setup: {model: llama-2-7b, seq: 512,"
    )
    _, problems = load_question_file(_drill_file(tmp_path, drill))
    assert len(problems) == 1 and problems[0].path == "drills[0].vary.offload", [str(p) for p in problems]
    assert f"of {MAX_COMBINATIONS} sampled" in problems[0].message


def test_a_bad_single_choice_is_still_reported_at_the_choice(tmp_path):
    drill = ZERO_OFFLOAD.replace("zero: [3, 1]", "zero: [3, 7]")
    _, problems = load_question_file(_drill_file(tmp_path, drill))
    assert [p.path for p in problems] == ["drills[0].vary.zero[1]"]


# --- 8. placeholders ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prompt", "setup", "vary", "ok"),
    [
        ("{model} 权重？", "{model: 7B}", None, True),  # a fixed setup field: kept consistent, allowed
        ("{model} 权重？", "{}", "{model: [7B, 13B]}", True),  # a vary field
        ("{seq} 权重？", "{model: 7B}", None, False),  # neither
        ("{seq} 权重？", "{model: 7B}", "{batch: [1, 2]}", False),  # neither, with a vary
        ("{} 权重？", "{model: 7B}", None, False),  # positional: names nothing
        ("{model.name} 权重？", "{model: 7B}", None, False),  # attribute access is not a field
    ],
)
def test_placeholder_must_name_a_setup_or_vary_field(tmp_path, prompt, setup, vary, ok):
    drill = f"  - id: d\n    prompt: \"{prompt}\"\n    setup: {setup}\n    ask: weights\n    unit: GB\n"
    if vary:
        drill += f"    vary: {vary}\n"
    question, problems = load_question_file(_drill_file(tmp_path, drill))
    if ok:
        assert problems == [], [str(p) for p in problems]
        assert "{" not in draw_variant(question, question.drills[0], 0).prompt
    else:
        assert [p.path for p in problems] == ["drills[0].prompt"], [str(p) for p in problems]
        assert "placeholder" in problems[0].message


# --- 3. duplicate paths ---------------------------------------------------------------------------


def test_the_same_file_twice_is_loaded_once(capsys):
    bank = load_bank([GOOD_FILE, GOOD_FILE])
    assert bank.problems == () and len(bank.questions) == 1
    assert main(["validate", str(GOOD_FILE), str(GOOD_FILE)]) == 0
    assert "no problems" in capsys.readouterr().out


def test_overlapping_content_folders_are_not_duplicates(capsys, monkeypatch):
    assert load_bank([GOOD_DIR, GOOD_DIR / "llm-training", GOOD_DIR]).problems == ()
    monkeypatch.setenv("QUIZAPP_CONTENT", os.pathsep.join([str(GOOD_DIR), str(GOOD_DIR / "llm-training")]))
    assert main(["validate"]) == 0
    assert main(["--content", str(GOOD_DIR), "--content", str(GOOD_DIR / ".." / "good"), "validate"]) == 0


def test_a_symlinked_copy_is_the_same_file(tmp_path):
    link = tmp_path / "mini-adamw.yaml"
    link.symlink_to(GOOD_FILE)
    bank = load_bank([GOOD_DIR, tmp_path])
    assert bank.problems == () and len(bank.questions) == 1


def test_a_real_copy_is_still_a_duplicate(tmp_path):
    (tmp_path / "mini-adamw.yaml").write_bytes(GOOD_FILE.read_bytes())
    bank = load_bank([GOOD_DIR, tmp_path])
    assert [p.message.split(" (")[0] for p in bank.problems] == ["duplicate question id 'mini-adamw'"]


# --- 4. special files -----------------------------------------------------------------------------


@pytest.mark.skipif(not Path(os.devnull).exists() or os.name != "posix", reason="needs /dev/null")
def test_a_device_is_not_a_regular_file(capsys):
    assert main(["validate", os.devnull]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a regular file or folder" in err and "no such" not in err
    problems = load_bank([Path(os.devnull)]).problems
    assert len(problems) == 1 and "not a regular file or folder" in problems[0].message


def test_a_missing_path_still_says_so(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope.yaml")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


# --- 2. quizapp new -------------------------------------------------------------------------------


def test_new_defaults_to_the_users_content_folder(tmp_path, monkeypatch, capsys):
    # issue 13: without --content, `new` writes into the user's folder, loaded over the bundled bank
    from quizapp.locations import bundled_content_dir, user_content_dir

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("QUIZAPP_CONTENT", raising=False)
    before = sorted(bundled_content_dir().rglob("*"))
    assert main(["new", "my-question", "--topic", "inference"]) == 0
    target = user_content_dir() / "inference" / "my-question.yaml"
    assert Path(capsys.readouterr().out.strip()).resolve() == target.resolve()
    assert target.is_file()
    assert sorted(bundled_content_dir().rglob("*")) == before  # the bundled bank is untouched
    assert main(["validate", str(target)]) == 0


def test_new_with_content_writes_into_the_first_folder(tmp_path, capsys):
    first, second = tmp_path / "one", tmp_path / "two"
    assert main(["--content", str(first), "--content", str(second), "new", "x-1"]) == 0
    assert (first / "misc" / "x-1.yaml").is_file() and not second.exists()


def test_new_refuses_an_id_of_the_bundled_bank(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("QUIZAPP_CONTENT", raising=False)
    assert main(["new", BUNDLED_ID, "--topic", "other"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already exists" in err
    assert not (tmp_path / "content").exists()


def test_new_refuses_an_id_in_another_topic_of_the_configured_bank(tmp_path, capsys):
    bank = tmp_path / "bank"
    assert main(["--content", str(bank), "new", "dup", "--topic", "a"]) == 0
    capsys.readouterr()
    assert main(["--content", str(bank), "new", "dup", "--topic", "b"]) == 2
    assert "'dup' already exists" in capsys.readouterr().err
    assert not (bank / "b").exists()


def test_new_help_says_where_it_writes(capsys):
    with pytest.raises(SystemExit):
        main(["new", "--help"])
    assert "<your content folder>/<topic>/<id>.yaml" in " ".join(capsys.readouterr().out.split())


# --- 7. quizapp drill text layout -----------------------------------------------------------------


@pytest.mark.parametrize("columns", [60, 100])
def test_drill_text_fits_the_terminal(tmp_path, monkeypatch, capsys, columns):
    drill = (
        "  - id: act\n    prompt: p\n"
        "    setup: {model: llama-2-70b, method: full, batch: 4, seq: 4096, recompute: none}\n"
        "    ask: activations\n    unit: GB\n"
    )
    _drill_file(tmp_path, drill, "wide")
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(["--content", str(tmp_path), "drill", "wide/act"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= columns
    from quizapp.content import load_bank as load
    from quizapp.memory.quantities import format_quantity

    question = load([tmp_path]).questions[0]
    variant = draw_variant(question, question.drills[0], 0)
    for term in variant.breakdown.terms:  # "name  GB  GiB" on one line of its own
        row = next(line for line in lines if line.split()[:1] == [term.name])
        assert row.split() == [term.name, *format_quantity(term.bytes, "GB").split(), *format_quantity(term.bytes, "GiB").split()]
    body = " ".join(line.strip() for line in lines)
    activations = next(t for t in variant.breakdown.terms if t.name == "activations")
    assert " ".join(activations.substituted.split()) in body  # wrapped, but all there


def test_an_extra_mistake_label_is_printed_once(capsys):
    assert main(["--content", str(GRADING_DIR), "drill", "grading-table/zero-one-gpu", "--answer", "60 GB"]) == 0
    out = capsys.readouterr().out
    assert out.count("fp32 weights and gradients only") == 1 and "[fp32" not in out
    assert main(["--content", str(GRADING_DIR), "drill", "grading-table/zero-one-gpu", "--answer", "37 GB"]) == 0
    assert "[zero-single-gpu]" in capsys.readouterr().out  # a catalogue id differs from its label: shown
