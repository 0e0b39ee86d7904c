"""Check boxes whose mark differs when ticked: Textual draws the same "X" either way and tells the two
apart only by colour, which a reader (or a monochrome terminal) can miss."""

from __future__ import annotations

from typing import TypeVar

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList
from textual.widgets._toggle_button import ToggleButton
from textual.widgets.option_list import OptionDoesNotExist

SelectionType = TypeVar("SelectionType")
TICKED = "✓"
UNTICKED = " "


class TickBox(Checkbox):
    """A Checkbox showing ✓ when ticked and an empty box when not."""

    BUTTON_INNER = UNTICKED

    def on_mount(self) -> None:
        self.BUTTON_INNER = TICKED if self.value else UNTICKED
        self.refresh()

    def watch_value(self) -> None:
        self.BUTTON_INNER = TICKED if self.value else UNTICKED  # the instance's own mark
        super().watch_value()
        self.refresh()


class TickList(SelectionList[SelectionType]):
    """A SelectionList whose boxes show ✓ for the selected values and stay empty for the others."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        _, scroll_y = self.scroll_offset
        try:
            selection = self.get_option_at_index(scroll_y + y)
        except OptionDoesNotExist:
            return strip
        segments = list(strip)
        if len(segments) < 3 or segments[1].text != ToggleButton.BUTTON_INNER:
            return strip  # not a button line (a prompt's second line)
        mark = TICKED if selection.value in self._selected else UNTICKED
        segments[1] = Segment(mark, segments[1].style, segments[1].control)
        return Strip(segments, strip.cell_length)
