"""`Prose`: Textual's Markdown widget with one shared parser, and Chinese that reads like Chinese.

Textual's Markdown builds a new markdown-it parser (its rule chains compiled again) for every widget
and every update; a card shows several, so reveal and the next card paid for it each time. The
parser holds only its configuration (each parse has its own state), so one serves them all.

Two things Textual does for English only: a soft line break of the source becomes a space (the
parser's `join_cjk_soft_breaks` rule drops it between two wide characters, as CSS Text 3 does), and
lines wrap at spaces (each block's text is a `FilledContent`, which breaks where quizapp.tui.text_wrap
allows and fills every line to the width).
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from textual.content import Content
from textual.widgets import Markdown

from quizapp.tui.text_wrap import is_wide, wrap_offsets


def _edge(token, last: bool) -> str:
    text = token.content if token.type in ("text", "code_inline") else ""
    return (text[-1:] if last else text[:1]) if text else ""


def join_cjk_soft_breaks(state) -> None:
    """A markdown-it core rule: a soft break between two wide characters (中文 or full-width
    punctuation on both sides) joins the lines without a space; elsewhere it stays a space."""
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        children = token.children
        for index, child in enumerate(children):
            if child.type != "softbreak" or index == 0 or index + 1 == len(children):
                continue
            before, after = _edge(children[index - 1], last=True), _edge(children[index + 1], last=False)
            if before and after and is_wide(before) and is_wide(after):
                child.type, child.content = "text", ""


@lru_cache(maxsize=1)
def shared_parser() -> MarkdownIt:
    """The "gfm-like" parser Textual's Markdown uses by default, built once, with the CJK soft-break rule."""
    parser = MarkdownIt("gfm-like")
    parser.core.ruler.push("join_cjk_soft_breaks", join_cjk_soft_breaks)
    return parser


class FilledContent(Content):
    """Content that wraps at the line-break opportunities of quizapp.tui.text_wrap (UAX #14 tailored
    for Chinese), then lays out as Textual does: each line already fits, so Textual does not cut it."""

    def _wrap_and_format(self, width: int, align="left", overflow="fold", no_wrap: bool = False, line_pad: int = 0,
                         tab_size: int = 8, **options):
        if no_wrap or width <= 0:
            return super()._wrap_and_format(width, align, overflow, no_wrap, line_pad, tab_size, **options)
        pieces: list[Content] = []
        for line in self.split(allow_blank=True):
            offsets = wrap_offsets(line.plain, width - 2 * line_pad)
            parts = line.divide(offsets) if offsets else [line]
            pieces.extend(part.rstrip() for part in parts[:-1])
            pieces.append(parts[-1])
        filled = Content("\n").join(pieces)
        return Content._wrap_and_format(filled, width, align, overflow, no_wrap, line_pad, tab_size, **options)


class _Filled:
    """Mixin for Markdown blocks: their inline text becomes FilledContent."""

    def set_content(self, content: Content) -> None:
        super().set_content(FilledContent(content.plain, list(content.spans), content.cell_length))  # type: ignore[misc]


_FILLED = ("h1", "h2", "h3", "h4", "h5", "h6", "paragraph_open")  # prose; code and tables keep Textual's layout


@lru_cache(maxsize=1)
def filled_blocks() -> dict:
    """Textual's block classes, paragraphs and headings with the mixin; the same class names, so CSS type
    selectors (MarkdownParagraph { ... }) still match."""
    return {name: type(block.__name__, (_Filled, block), {}) if name in _FILLED else block
            for name, block in Markdown.BLOCKS.items()}


class Prose(Markdown):
    """A Markdown body (question text, answers, drafts' standards), parsed with the shared parser."""

    BLOCKS = filled_blocks()

    def __init__(self, markdown: str | None = None, **kwargs) -> None:
        super().__init__(markdown, parser_factory=shared_parser, **kwargs)
