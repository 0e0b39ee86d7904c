"""The one line every screen shows instead of itself while the window is under 80x24 (the size the
layouts are made for): a request to enlarge it, not a broken layout. In a terminal and in the
browser (`quizapp serve`) alike.

An overlay over the whole screen, invisible (so it takes no clicks) from 80x24 up; it follows the
app's size on every layout refresh of its screen (a resize is one). The widgets under it keep their state and reappear as they were.
"""

from __future__ import annotations

from textual.widget import Widget

from quizapp.words import say

MIN_WIDTH, MIN_HEIGHT = 80, 24


class TooSmall(Widget):
    DEFAULT_CSS = """
    TooSmall {
        overlay: screen;
        position: absolute;
        offset: 0 0;
        width: 100vw;
        height: 100vh;
        padding: 0 1;
        background: $background;
        color: $warning;
        text-style: bold;
        visibility: hidden;
    }
    """

    def on_mount(self) -> None:
        self._follow()
        self.screen.screen_layout_refresh_signal.subscribe(self, self._follow, immediate=True)  # resizes too

    def _follow(self, _screen: object = None) -> None:
        width, height = self.app.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        if small != self.visible:
            self.visible = small
        elif small:
            self.refresh()  # the size it names

    def render(self) -> str:
        width, height = self.app.size
        lang = getattr(getattr(self.app, "settings", None), "lang", "en")
        return say("app.too_small", lang, min_width=MIN_WIDTH, min_height=MIN_HEIGHT, width=width, height=height)
