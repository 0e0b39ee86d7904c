"""The broken-file corpus: each file names, in its first line, the one problem it must produce
(`# expect: LINE:COL PATH | MESSAGE PART`), worked out by hand from the file's text."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from quizapp.cli import main
from quizapp.content import load_bank

BROKEN_DIR = Path(__file__).parent / "broken"

_EXPECT = re.compile(rb"# expect: (\d+):(\d+) (\S+) \| (.+)")


def _corpus() -> list[Path]:
    files = sorted(p for p in BROKEN_DIR.rglob("*.yaml") if _EXPECT.match(p.read_bytes().split(b"\n", 1)[0]))
    return files


def _expectation(path: Path) -> tuple[int, int, str, str]:
    match = _EXPECT.match(path.read_bytes().split(b"\n", 1)[0])
    assert match, path
    line, col, where, message = match.groups()
    return int(line), int(col), where.decode(), message.decode().strip()


def _load(path: Path):
    # The duplicate-id case needs its twin loaded first; every other file is loaded alone.
    return load_bank([path.parent.parent] if path.parent.parent.name == "duplicate-id" else [path])


def test_corpus_covers_every_listed_problem():
    assert len(_corpus()) >= 15


@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.stem if p.parent == BROKEN_DIR else p.parent.name)
def test_each_broken_file_reports_its_problem_at_the_right_place(path):
    line, col, where, message = _expectation(path)
    bank = _load(path)
    problems = [p for p in bank.problems if p.file == path]
    assert len(problems) == 1, [str(p) for p in bank.problems]
    problem = problems[0]
    assert (problem.line, problem.col) == (line, col), str(problem)
    assert problem.path.startswith(where), str(problem)
    assert message in problem.message, str(problem)
    assert all(q.source_path != path for q in bank.questions)  # a bad file never becomes a question


def test_validate_in_process_reports_every_corpus_file_and_exits_1(capsys):
    code = main(["validate", str(BROKEN_DIR), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    flagged = {Path(e["file"]).resolve() for e in report["errors"]}
    assert {p.resolve() for p in _corpus()} <= flagged
    for error in report["errors"]:
        assert set(error) == {"file", "line", "col", "path", "message"}
    # only the first copy of the duplicated id survives
    assert report["questions"] == 1


def _run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    return subprocess.run([sys.executable, "-m", "quizapp", *args], capture_output=True, text=True, env=env, timeout=120, cwd=cwd)


@pytest.mark.parametrize("name", ["unknown-top-key", "bad-setup-key", "missing-drill-reference", "python-tag", "not-utf8"])
def test_validate_subprocess_prints_file_line_col_without_traceback(name):
    path = BROKEN_DIR / f"{name}.yaml"
    line, col, where, message = _expectation(path)
    result = _run_cli("validate", str(path))
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert f"{path}:{line}:{col}: {where}" in result.stdout
    assert message in result.stdout


def test_python_tag_is_never_executed(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "python-exec.yaml"
    path.write_text(f"id: python-exec\ntitle: !!python/object/apply:os.system ['touch {marker}']\ntopic: t\nanswer: a\n")
    result = _run_cli("validate", str(path))
    assert result.returncode == 1 and not marker.exists()


def test_file_over_one_mib_is_refused(write_question):
    path = write_question("t/too-large.yaml", "id: too-large\ntitle: t\ntopic: t\nanswer: |\n" + "  x\n" * 300_000)
    assert path.stat().st_size > 1024 * 1024
    problems = load_bank([path]).problems
    assert [(p.line, p.col, p.path) for p in problems] == [(1, 1, "(file)")]
    assert "1 MiB" in problems[0].message


@pytest.mark.parametrize("opener", ["[", "{a: ", "- "])
def test_pathologically_deep_nesting_is_refused_without_crashing(tmp_path, opener):
    closer = {"[": "]", "{a: ": "}", "- ": ""}[opener]
    path = tmp_path / "deep.yaml"
    path.write_text("id: deep\ntitle: t\ntopic: t\nanswer: a\nreading: " + opener * 100_000 + "x" + closer * 100_000 + "\n")
    result = _run_cli("validate", str(path))  # libyaml would overflow the C stack on this
    assert result.returncode == 1, result.stderr
    assert "nested too deeply" in result.stdout and "Traceback" not in result.stderr
    assert f"{path}:5:" in result.stdout


def test_missing_path_is_a_one_line_error():
    result = _run_cli("validate", "/nonexistent/questions")
    assert result.returncode == 2
    assert result.stderr.strip() == "quizapp: no such file or folder: /nonexistent/questions"


def test_alias_bomb_is_refused(write_question):
    lines = ["id: bomb", "title: t", "topic: t", "answer: a", 'a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [*a{i-1},*a{i-1},*a{i-1},*a{i-1},*a{i-1},*a{i-1},*a{i-1},*a{i-1},*a{i-1},*a{i-1}]" for i in range(1, 9)]
    path = write_question("t/bomb.yaml", "\n".join(lines) + "\n")
    problems = load_bank([path]).problems
    assert problems and "aliases" in problems[0].message
