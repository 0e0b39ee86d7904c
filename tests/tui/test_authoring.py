"""Authoring (issue #22): the caret under CJK text, the preview scrolled to the first error, YAML
indentation errors that name the columns, implausible shapes as problems at their line."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from tests.tui.bank_files import SINGLE_GPU

from quizapp.content import load_question_file
from quizapp.tui.preview_app import make_preview_app
from quizapp.tui.screens.preview import annotated_source

# line 28 of SINGLE_GPU is Chinese prose with a reference; a term that does not exist is a problem
# whose column is the reference, after 27 CJK characters and punctuation
BAD_TERM = SINGLE_GPU.replace("{{adamw-7b.optimizer_states}}", "{{adamw-7b.optimizer_statez}}")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def cells(text: str) -> int:
    """Terminal cells, written out: wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def test_the_caret_sits_under_the_character_after_cjk_text(tmp_path):
    path = write(tmp_path / "llm-training" / "single-gpu.yaml", BAD_TERM)
    _, problems = load_question_file(path)
    problem = next(p for p in problems if p.line == 28)
    assert problem.line == 28
    rows = annotated_source(BAD_TERM, [problem]).plain.splitlines()
    source_row = next(r for r in rows if r.lstrip().startswith("28 │"))
    caret_row = rows[rows.index(source_row) + 1]
    assert caret_row.strip() == "^"
    target = source_row.index("{{")  # the column the problem names is the reference's start
    assert problem.col == BAD_TERM.splitlines()[27].index("{{") + 1
    # the caret's cell equals the reference's cell: 36 CJK/full-width cells would be 18 characters off
    assert cells(caret_row[: caret_row.index("^")]) == cells(source_row[:target])
    assert cells(source_row[:target]) > len(source_row[:target])  # the line really has wide characters


async def _settle(pilot) -> None:
    for _ in range(4):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()


async def test_the_preview_scrolls_to_the_first_error(tmp_path):
    path = write(tmp_path / "llm-training" / "single-gpu.yaml", BAD_TERM)
    app = make_preview_app(path, poll_seconds=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        screen = app.screen
        body = screen.query_one("#preview-body")
        assert screen.problems and screen.problems[0].line == 28
        shown = screen.query_one("#preview-source")
        # the part from three lines above the error (line 25) is at the top of the scrolled body
        assert str(shown.content).lstrip().startswith("25 │")
        assert body.scroll_y > 0
        assert body.region.y <= shown.region.y < body.region.y + 2  # its first row is at the body's top
        above = screen.query_one("#preview-source-above")
        assert str(above.content).lstrip().startswith("1 │")


async def test_an_error_near_the_top_needs_no_scrolling(tmp_path):
    path = write(tmp_path / "llm-training" / "single-gpu.yaml", SINGLE_GPU.replace("id: single-gpu", "id: 1"))
    app = make_preview_app(path, poll_seconds=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        screen = app.screen
        assert screen.problems and screen.problems[0].line <= 3
        assert not screen.query("#preview-source-above")
        assert screen.query_one("#preview-body").scroll_y == 0


BLOCK_SCALAR = """id: bad-indent
topic: t
difficulty: 2
title:
  en: What is it?
  zh: 这是什么？
answer:
  en: |
    Line one.
   Line two is under-indented.
  zh: 答案。
"""

LIST_ITEM = """id: bad-indent
topic: t
difficulty: 2
title:
  en: What is it?
  zh: 这是什么？
followups:
  - id: a
    q:
      en: x
      zh: y
   a:
      en: z
      zh: w
"""


def test_an_indentation_slip_names_the_columns_that_disagree(tmp_path):
    path = write(tmp_path / "t" / "bad-indent.yaml", BLOCK_SCALAR)
    _, problems = load_question_file(path)
    (problem,) = problems
    assert (problem.line, problem.col) == (10, 4)
    # the text of `en: |` is at column 5, the mapping's keys (en, zh) at column 3; line 10 is at 4
    assert "block mapping that starts at line 8, column 3" in problem.message
    assert "line 10 starts at column 4, the line above at column 5 and the block's entries at column 3" in problem.message

    write(path, LIST_ITEM)
    _, problems = load_question_file(path)
    (problem,) = problems
    assert problem.line == 12
    # `- id: a` puts the list's '-' at column 3 and the item's keys (id, q) at column 5
    assert "line 12 starts at column 4, but the list's '-' are at column 3 and the keys of its items at column 5" \
        in problem.message


def test_a_correctly_indented_file_gets_no_hint(tmp_path):
    path = write(tmp_path / "llm-training" / "single-gpu.yaml", SINGLE_GPU)
    _, problems = load_question_file(path)
    assert not [p for p in problems if "starts at column" in p.message]


SHAPES = """id: shape
topic: t
difficulty: 2
title:
  en: What is it?
  zh: 这是什么？
answer:
  en: An answer.
  zh: 答案。
drills:
  - id: tiny
    prompt:
      en: "A {model} model, bf16 weights: how many GB?"
      zh: "{model} 模型 bf16 权重多少 GB？"
    setup: {model: 700, method: inference, weights: bf16}
    ask: weights
    unit: GB
  - id: tinyshape
    prompt:
      en: "Shape {layers} x {hidden}, {heads} heads, vocab {vocab}: weights in GB?"
      zh: "形状 {layers} x {hidden}，{heads} 头，词表 {vocab}：权重多少 GB？"
    setup: {layers: 1, hidden: 8, heads: 2, vocab: 10, method: inference, weights: bf16}
    ask: weights
    unit: GB
  - id: gpt2
    prompt:
      en: "GPT-2 small ({layers} x {hidden}): weights in GB?"
      zh: "GPT-2 small（{layers} x {hidden}）：权重多少 GB？"
    setup: {layers: 12, hidden: 768, heads: 12, vocab: 50257, style: gpt, positions: 1024, method: inference, weights: bf16}
    ask: weights
    unit: GB
"""


def test_an_implausible_model_is_a_problem_at_its_line(tmp_path):
    path = write(tmp_path / "t" / "shape.yaml", SHAPES)
    _, problems = load_question_file(path)
    errors = sorted((p.line, p.col, p.message) for p in problems if p.severity == "error")
    assert len(errors) == 2
    (line, col, message), (line2, col2, message2) = errors
    # `model: 700` is 700 parameters (a size written without its unit): at the value of `model`, line 15
    assert (line, col) == (15, 13) and "700 parameters" in message and "700M" in message
    # 1 layer of width 8 with a vocabulary of 10: a few thousand parameters, at `hidden` on line 22
    assert line2 == 22 and col2 == SHAPES.splitlines()[21].index("hidden") + 1 and "implausible" in message2
    # GPT-2 small (124M) is the smallest real model a question uses: no problem
    assert not [p for p in problems if "drills[2]" in str(p.path)]
