"""Chinese reads like Chinese at 80x24 (issue 22): soft line breaks of the YAML join without a space
between Chinese characters, and paragraphs wrap between characters under UAX #14 (tailored: phrases
kept whole, a number never left at a line's end without its unit), so lines are filled to the width."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len
from textual.app import App

from quizapp.content.bank import load_bank
from quizapp.content.localize import localized
from quizapp.content.render import render_text
from quizapp.locations import bundled_content_dir
from quizapp.tui.text_wrap import break_units, is_wide, wrap_lines
from quizapp.tui.widgets.prose import Prose

QUESTIONS = ("single-gpu-requirements", "speculative-decoding", "kv-cache")  # the seed card and two dense ones


def _next_piece_did_not_fit(line: str, following: str, width: int) -> bool:
    """The first unbreakable piece of the next line would have run past the width on this one."""
    piece = break_units(following)[0].rstrip(" ")
    return cell_len(line) + 1 + cell_len(piece) > width  # at most one space between them


@pytest.fixture(scope="module")
def chinese_bank():
    return localized(load_bank([bundled_content_dir()]), "zh")


async def _paragraph_lines(markdown: str) -> list[tuple[list[str], int, str]]:
    """Each paragraph as rendered at 80x24: (its lines, its text width, its source text)."""

    class One(App):
        def compose(self):
            yield Prose(markdown)

    app = One()
    found = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for block in app.query("MarkdownParagraph"):
            strips = block.render_lines(block.region.reset_offset)
            lines = ["".join(segment.text for segment in strip).rstrip() for strip in strips]
            found.append(([line for line in lines if line], block.content_region.width, block._content.plain))
    return found


@pytest.mark.parametrize("qid", QUESTIONS)
async def test_paragraphs_fill_the_width_and_keep_numbers_with_units(chinese_bank, qid):
    question = chinese_bank.question(qid)
    paragraphs = await _paragraph_lines(render_text(question, question.answer))
    assert len(paragraphs) > 3
    for lines, width, source in paragraphs:
        for line, following in zip(lines, lines[1:]):
            # no line shorter than three quarters of the width unless it ends the paragraph (the next
            # piece really did not fit: it would have gone past the width)
            assert cell_len(line) >= 0.75 * width or _next_piece_did_not_fit(line, following, width), (qid, line)
            if re.search(r"\d$", line):  # a number ends the line: what follows is not its unit
                assert not re.match(r"[\u4e00-\u9fff]|(?:[KMGT]i?B|B|ms|s|%|tokens|x)(?![A-Za-z])", following), \
                    (qid, line, following)
        for line in lines:
            assert cell_len(line) <= width
            # no stray space: a space between two wide characters only where the text itself has one
            for match in re.finditer(r"(.) (.)", line):
                if is_wide(match.group(1)) and is_wide(match.group(2)):
                    assert match.group(0) in source, (qid, line)


def test_a_soft_break_between_chinese_characters_joins_without_a_space():
    from quizapp.tui.widgets.prose import shared_parser

    tokens = shared_parser().parse("前向\n验证，decode\n带宽；GPU\n内存")
    text = "".join(child.content if child.type == "text" else " " if child.type == "softbreak" else ""
                   for child in tokens[1].children)
    assert text == "前向验证，decode 带宽；GPU 内存"  # wide|wide joins; a Latin side keeps the space


def test_the_issues_three_splits_do_not_happen():
    # "2⏎字节/参数", "40⏎分钟" and "拷到 CPU⏎内存" at half width (the issue's examples)
    text = "每个参数 2 字节/参数，大约要 40 分钟，然后把优化器状态拷到 CPU 内存里，再继续训练下一步。"
    for width in range(12, 40):
        lines = wrap_lines(text, width)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        for line, following in zip(lines, lines[1:]):
            assert not line.endswith(("2", "40")), (width, lines)
            assert _next_piece_did_not_fit(line, following, width), (width, lines)
