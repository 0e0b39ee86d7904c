"""The calculator's "copy as drill" modal: the setup as a YAML drill, shown and saved to a named file.

The YAML comes from calculator_form.drill_snippet; saving goes through calculator_form.save_snippet,
which backs up an existing file before writing. Dismisses with the saved path, or None.

The control that has focus is marked (drill_snippet.tcss: its row's label and its background), and
Enter saves from the file name, the YAML or the Save button (on the ask list it opens the list); a
notification says the absolute path it was written to.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from quizapp.practice import calculator_form as form


class DrillSnippetScreen(ModalScreen[Path | None]):
    """Pick the asked quantity, see the drill YAML, name a file, save."""

    CSS_PATH = "drill_snippet.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="cancel"),
                Binding("enter", "save", "Save", id="snippet-save", show=False)]

    def __init__(self, options: dict[str, object], asks: list[str] | None = None) -> None:
        super().__init__()
        self.options = options
        self.asks = asks or ["total"]

    def _t(self, key: str) -> str:
        return self.app.t(key)  # type: ignore[attr-defined]

    def compose(self) -> ComposeResult:
        with Vertical(id="snippet-dialog"):
            yield Static(Text(self._t("snippet.title")), classes="screen-title")
            with Horizontal(classes="snippet-row"):
                yield Label(Text(self._t("snippet.ask")), classes="snippet-label")
                yield Select([(a, a) for a in self.asks], value=self.asks[0], allow_blank=False, compact=True,
                             id="snippet-ask")
            with VerticalScroll(id="snippet-yaml-box"):
                yield Static(Text(self.snippet()), id="snippet-yaml")
            with Horizontal(classes="snippet-row"):
                yield Label(Text(self._t("snippet.path")), classes="snippet-label")
                yield Input(placeholder=self._t("snippet.path_hint"), compact=True, id="snippet-path")
            yield Static(Text(""), id="snippet-error")
            with Horizontal(id="snippet-buttons"):
                yield Static(Text(self._t("snippet.keys")), id="snippet-keys")
                yield Button(self._t("snippet.save"), variant="primary", id="snippet-save")
                yield Button(self._t("snippet.cancel"), id="snippet-cancel")

    def on_mount(self) -> None:
        self.query_one("#snippet-path", Input).focus()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._mark_focused_row()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self._mark_focused_row()

    def _mark_focused_row(self) -> None:
        """The row holding the focused control gets -focused (a class, so its label restyles at once;
        :focus-within does not restyle a sibling of the focused widget when focus moves)."""
        focused = self.focused
        for row in self.query(".snippet-row"):
            row.set_class(focused is not None and row in focused.ancestors, "-focused")

    def ask(self) -> str:
        value = self.query_one("#snippet-ask", Select).value
        return value if isinstance(value, str) else self.asks[0]

    def snippet(self) -> str:
        ask = self.asks[0]
        if self.is_mounted:
            ask = self.ask()
        return form.drill_snippet(self.options, ask)

    @on(Select.Changed, "#snippet-ask")
    def _ask_changed(self) -> None:
        self.query_one("#snippet-yaml", Static).update(Text(self.snippet()))

    def action_save(self) -> None:
        self.save()

    @on(Input.Submitted, "#snippet-path")
    @on(Button.Pressed, "#snippet-save")
    def save(self) -> None:
        box = self.query_one("#snippet-path", Input)
        raw = box.value.strip()
        error = self.query_one("#snippet-error", Static)
        if not raw:
            error.update(Text(self._t("snippet.no_path")))
            box.focus()
            return
        path = Path(raw).expanduser().absolute()  # the message says exactly where the file is
        try:
            backup = form.save_snippet(path, self.snippet())
        except OSError as exc:
            error.update(Text(self._t("snippet.failed").format(error=exc.strerror or exc)))
            return
        if backup is None:
            message = self._t("snippet.saved").format(path=path)
        else:
            message = self._t("snippet.saved_backup").format(path=path, backup=backup)
        self.app.notify(message, markup=False)
        self.dismiss(path)

    @on(Button.Pressed, "#snippet-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
