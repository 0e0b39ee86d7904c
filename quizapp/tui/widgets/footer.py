"""`Footer`: Textual's footer, rebuilt once per change of the keys it shows.

Textual's Footer recomposes (every key widget built and styled again) on each bindings signal, and
one key press sends several: a focus change, a reactive with bindings=True, a class toggled on the
rating bar. Reveal and rate-to-next paid 3-5 recomposes of 10-50 ms each. This one waits until the
signals of a refresh have settled and recomposes only when the shown keys (key, label, enabled)
differ from what is on screen. A screen that is rearranging itself (a new card mounted, its box not
focused yet) sets `footer_on_hold`, a reactive with bindings=True: the footer waits for it to clear.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer as TextualFooter


def shown_keys(screen: Screen) -> tuple:
    """What a footer on `screen` would show: (key, action, label, enabled) of each displayed binding."""
    return tuple(
        (key, active.binding.action, active.binding.description, active.enabled, active.tooltip)
        for key, active in screen.active_bindings.items()
        if active.binding.show
    )


class Footer(TextualFooter):
    """The app's footer (see the module docstring for why it is not Textual's as it is)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._settle_queued = False
        self._shown: tuple | None = None

    def bindings_changed(self, screen: Screen) -> None:
        if not self._settle_queued:
            self._settle_queued = True
            self.call_next(self._settled, screen)

    def _settled(self, screen: Screen) -> None:
        self._settle_queued = False
        if not self.is_attached or screen is not self.screen or getattr(screen, "footer_on_hold", False):
            return
        shown = shown_keys(screen)
        if shown == self._shown or not screen.app.app_focus:  # (Textual's footer waits for app focus too)
            return
        first = self._shown is None
        self._shown = shown
        if first:
            super().bindings_changed(screen)  # Textual's own first build (it marks the footer ready)
        else:
            self.call_later(self.recompose)  # as soon as it can, where Textual's waits for one more refresh
