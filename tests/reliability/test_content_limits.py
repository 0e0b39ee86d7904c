"""Each content limit has its own message at the offending line (docs/content.md, "Limits"), and odd
scalars (an impossible date, a 100,000-digit number) are problems at their line, never an internal error."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from quizapp.content import load_question_file
from quizapp.content.loader import MAX_DIGITS, MAX_DRILLS, MAX_EXPANDED, MAX_VALUES

HEAD = ["id: q", "title: t", "topic: t", "answer: a"]
DRILL = ["  - id: d{i}", "    prompt: p", "    setup: {{model: llama-2-7b}}", "    ask: weights", "    unit: GB"]


def _problems(tmp_path: Path, lines: list[str]):
    path = tmp_path / "q.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    question, problems = load_question_file(path)
    assert question is None
    assert not any("internal error" in p.message for p in problems), problems
    return problems


def test_too_many_drills_is_its_own_message_at_the_drills_list(tmp_path):
    lines = HEAD + ["drills:"] + [line.format(i=i) for i in range(2_000) for line in DRILL]  # the issue had 10,000; any number past the limit
    problems = _problems(tmp_path, lines)
    assert len(problems) == 1
    assert problems[0].line == len(HEAD) + 2 and problems[0].path == "drills"
    assert f"the limit is {MAX_DRILLS} drills" in problems[0].message
    assert "alias" not in problems[0].message


def test_one_drill_over_the_limit_is_refused_and_the_limit_itself_is_not(tmp_path):
    lines = HEAD + ["drills:"] + [line.format(i=i) for i in range(MAX_DRILLS + 1) for line in DRILL]
    assert "drills" in _problems(tmp_path, lines)[0].message
    path = tmp_path / "ok.yaml"
    ok = ["id: ok"] + HEAD[1:] + ["drills:"] + [line.format(i=i) for i in range(MAX_DRILLS) for line in DRILL]
    path.write_text("\n".join(ok) + "\n")
    assert not any("limit" in p.message for p in load_question_file(path)[1])


def test_too_many_values_without_aliases_is_not_blamed_on_aliases(tmp_path):
    lines = HEAD + ["reading:"] + [f"  - r{i}" for i in range(MAX_VALUES + 10)]
    problems = _problems(tmp_path, lines)
    assert len(problems) == 1
    assert f"more than {MAX_VALUES:,} values in this file" in problems[0].message
    assert "alias" not in problems[0].message
    assert problems[0].line > len(HEAD) + 1  # at the value that passes the limit, not 1:1


def test_an_alias_bomb_is_blamed_on_aliases(tmp_path):
    lines = HEAD + ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i-1}"] * 10) + "]" for i in range(1, 6)]
    problems = _problems(tmp_path, lines)
    assert len(problems) == 1 and f"anchors and aliases expand to more than {MAX_EXPANDED:,} values" in problems[0].message


def test_an_impossible_date_is_reported_at_its_line(tmp_path):
    problems = _problems(tmp_path, ["id: q", "title: 2026-13-45", "topic: t", "answer: a"])
    assert [(p.line, p.col, p.path) for p in problems] == [(2, 8, "title")]
    assert "not a valid" in problems[0].message and "quotes" in problems[0].message


@pytest.mark.parametrize("digits", [MAX_DIGITS + 1, 5_000, 100_000])
def test_a_number_with_too_many_digits_is_reported_at_its_line(tmp_path, digits):
    problems = _problems(tmp_path, HEAD + ["difficulty: " + "9" * digits])
    assert [(p.line, p.path) for p in problems] == [(5, "difficulty")]
    assert f"a number with {digits:,} digits; the limit is {MAX_DIGITS}" in problems[0].message


def test_a_long_float_and_a_long_setup_number_are_reported_too(tmp_path):
    lines = HEAD + ["drills:", "  - id: d", "    prompt: p", "    setup: {model: llama-2-7b, batch: " + "1" * 5000 + "}",
                    "    ask: weights", "    unit: GB", "extra: 1." + "5" * 100]
    problems = _problems(tmp_path, lines)
    assert {p.path for p in problems} >= {"drills[0].setup.batch", "extra"}


def test_the_limits_are_documented():
    text = (Path(__file__).resolve().parents[2] / "docs" / "content.md").read_text(encoding="utf-8")
    for figure in ("1 MiB", "50,000", f"{MAX_DRILLS}", f"{MAX_DIGITS}", "4,096"):
        assert figure in text.split("## Limits")[1].split("\n## ")[0], figure


def _imports(path: Path, package: str) -> set[str]:
    """Every quizapp module `path` imports, at any level (function-level and TYPE_CHECKING included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(package):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith(package))
    return found


def test_the_content_modules_import_each_other_without_a_cycle():
    folder = Path(__file__).resolve().parents[2] / "quizapp" / "content"
    graph = {f"quizapp.content.{p.stem}": {m for m in _imports(p, "quizapp.content.") if m != f"quizapp.content.{p.stem}"}
             for p in folder.glob("*.py") if p.stem != "__init__"}
    done: set[str] = set()

    def visit(module: str, trail: tuple[str, ...]) -> None:
        assert module not in trail, " -> ".join(trail + (module,))
        if module in done:
            return
        for child in graph.get(module, ()):
            visit(child, trail + (module,))
        done.add(module)

    for module in graph:
        visit(module, ())
