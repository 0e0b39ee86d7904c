"""`Prose`: Textual's Markdown widget with one shared parser.

Textual's Markdown builds a new markdown-it parser (its rule chains compiled again) for every widget
and every update; a card shows several, so reveal and the next card paid for it each time. The
parser holds only its configuration (each parse has its own state), so one serves them all.
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from textual.widgets import Markdown


@lru_cache(maxsize=1)
def shared_parser() -> MarkdownIt:
    """The "gfm-like" parser Textual's Markdown uses by default, built once."""
    return MarkdownIt("gfm-like")


class Prose(Markdown):
    """A Markdown body (question text, answers, drafts' standards), parsed with the shared parser."""

    def __init__(self, markdown: str | None = None, **kwargs) -> None:
        super().__init__(markdown, parser_factory=shared_parser, **kwargs)
