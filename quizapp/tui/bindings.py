"""Footer labels in the app's language: rewrite a node's binding descriptions from i18n by binding id.

Bindings are declared as data in English (`Binding(key, action, "Review", id="review")`); a screen
calls `localize_bindings(self, lang)` when mounted so the footer says 复习 in Chinese. Textual keeps a
per-instance copy of the bindings map (`_bindings`), so this changes only that one node.
"""

from __future__ import annotations

from dataclasses import replace

from textual.binding import BindingsMap
from textual.dom import DOMNode

from quizapp.tui.i18n import WORDS, t


def localize_bindings(node: DOMNode, lang: str) -> None:
    localized = BindingsMap()
    for key, bindings in node._bindings.key_to_bindings.items():
        localized.key_to_bindings[key] = [
            replace(b, description=t(f"bind.{b.id}", lang)) if b.id and f"bind.{b.id}" in WORDS["en"] else b
            for b in bindings
        ]
    node._bindings = localized
