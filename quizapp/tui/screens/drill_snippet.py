"""The calculator's "copy as drill" modal: the setup as a YAML drill, shown and saved to a named file.

The YAML comes from calculator_form.drill_snippet; saving goes through calculator_form.save_snippet,
which backs up an existing file before writing. Dismisses with the saved path, or None.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from quizapp.practice import calculator_form as form


class DrillSnippetScreen(ModalScreen[Path | None]):
    """Pick the asked quantity, see the drill YAML, name a file, save."""

    CSS_PATH = "drill_snippet.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="cancel")]

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
                yield Button(self._t("snippet.save"), variant="primary", id="snippet-save")
                yield Button(self._t("snippet.cancel"), id="snippet-cancel")

    def on_mount(self) -> None:
        self.query_one("#snippet-path", Input).focus()

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

    @on(Input.Submitted, "#snippet-path")
    @on(Button.Pressed, "#snippet-save")
    def save(self) -> None:
        raw = self.query_one("#snippet-path", Input).value.strip()
        error = self.query_one("#snippet-error", Static)
        if not raw:
            error.update(Text(self._t("snippet.no_path")))
            return
        path = Path(raw).expanduser()
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
