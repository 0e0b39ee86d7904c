"""The what-if calculator: a form over every calculator setting and a live breakdown beside it.

The screen only renders. Which fields exist and apply, the options dict, the figures and the drill
snippet come from quizapp.tui.calculator_form, which calls quizapp.memory.setup_from_options (the
one parser of calculator inputs); an invalid value is flagged on its field, never raised.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Label, Select, Static

from quizapp.tui import calculator_form as form
from quizapp.tui.bindings import localize_bindings
from quizapp.tui.widgets.breakdown_table import BreakdownTable

SECTIONS = ("model", "run", "parallel", "lora", "inference", "hardware")
SWITCH = (("on", True), ("off", False))


def _gb(value: float, unit: str = "GB") -> str:
    from quizapp.memory import format_bytes

    return format_bytes(value, unit)


class CalculatorScreen(Screen[None]):
    """Change any setting and see the memory breakdown, the fit and the largest batch/sequence/model."""

    CSS_PATH = "calculator.tcss"
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="back"),
        Binding("ctrl+s", "copy_drill", "Copy as drill", id="copy_drill"),
        Binding("ctrl+r", "reset", "Reset", id="reset"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.fields = {f.key: f for f in form.form_fields()}
        self.figures: form.Figures | None = None
        self._wanted_table: tuple[Any, Any] | None = None
        self._shown_table: tuple[Any, Any] | None = None
        self._syncing_table = False
        self._recalc_pending = False
        self._field_errors: dict[str, Static] = {}  # field key -> the error line under it
        self._last_values: dict[str, object] | None = None

    # --- building ------------------------------------------------------------------------------------
    def _t(self, key: str) -> str:
        return self.app.t(key)  # type: ignore[attr-defined]

    def _choice_label(self, key: str, choice: str) -> str:
        if (key == "model" and choice in (form.CUSTOM, form.COUNT)) or (key == "gpu" and choice == form.NO_GPU):
            return self._t(f"calc.choice.{choice}")
        if key == "gpu":
            return form.gpu_label(choice)
        return choice

    def _input_widget(self, item: form.FormField):
        wid = f"input-{item.key}"
        if item.kind == "choice":
            options = [(self._choice_label(item.key, c), c) for c in item.choices]
            return Select(options, value=item.default, allow_blank=False, compact=True, id=wid)
        if item.kind == "switch":
            return Select(SWITCH, value=bool(item.default), allow_blank=False, compact=True, id=wid)
        return Input(str(item.default), compact=True, id=wid)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="calc-body"):
            with VerticalScroll(id="calc-form"):
                for section in SECTIONS:
                    items = [f for f in self.fields.values() if f.section == section]
                    with Vertical(classes="calc-section", id=f"section-{section}"):
                        yield Static(Text(self._t(f"calc.section.{section}")), classes="calc-section-title")
                        for item in items:
                            with Horizontal(classes="calc-field", id=f"field-{item.key}"):
                                yield Label(Text(self._t(f"calc.field.{item.key}")), classes="calc-label")
                                yield self._input_widget(item)
            with VerticalScroll(id="calc-results"):
                yield Static(Text(self._t("calc.title")), classes="screen-title")
                yield Static(Text(""), id="calc-total")
                yield Static(Text(""), id="calc-error")
                yield Static(Text(""), id="calc-fit")
                yield Static(Text(""), id="calc-derived")
                yield Static(Text(self._t("calc.shares")), classes="calc-subtitle")
                yield Static(Text(""), id="calc-shares")
                yield Vertical(id="calc-breakdown")
                yield Static(Text(""), id="calc-cpu", classes="muted")
        yield Footer()

    def on_mount(self) -> None:
        localize_bindings(self, self.app.settings.lang)  # type: ignore[attr-defined]
        self.refresh_bindings()
        self._inputs = {key: self.query_one(f"#input-{key}") for key in self.fields}
        self._rows = {key: self.query_one(f"#field-{key}") for key in self.fields}
        self._sections = {name: self.query_one(f"#section-{name}") for name in SECTIONS}
        self._results = [self.query_one(f"#{name}") for name in
                         ("calc-total", "calc-fit", "calc-derived", "calc-shares", "calc-breakdown")]
        self._results += list(self.query(".calc-subtitle"))
        self.recalculate()

    # --- reading the form ----------------------------------------------------------------------------
    def values(self) -> dict[str, object]:
        """The form's current values by field key (strings; switches as bools)."""
        values: dict[str, object] = {}
        for key, item in self.fields.items():
            widget = self._inputs[key]
            if isinstance(widget, Select):
                value = widget.value
                values[key] = item.default if value is Select.BLANK else value
            else:
                values[key] = widget.value  # type: ignore[attr-defined]
        return values

    @on(Select.Changed)
    @on(Input.Changed)
    def _changed(self, event) -> None:
        event.stop()
        if not self._recalc_pending:  # many changes in one frame (e.g. at mount) make one recalculation
            self._recalc_pending = True
            self.call_after_refresh(self.recalculate)

    def action_reset(self) -> None:
        with self.prevent(Select.Changed, Input.Changed):
            for key, item in self.fields.items():
                widget = self._inputs[key]
                if isinstance(widget, Select):
                    widget.value = item.default
                else:
                    widget.value = str(item.default)  # type: ignore[attr-defined]
        self.recalculate()

    # --- showing the figures ---------------------------------------------------------------------------
    def recalculate(self) -> None:
        self._recalc_pending = False
        values = self.values()
        if values == self._last_values:
            return
        self._last_values = values
        visible = set(form.visible_keys(values))
        for key, row in self._rows.items():
            if row.display != (key in visible):
                row.display = key in visible
        for section, node in self._sections.items():
            shown = any(k in visible for k, f in self.fields.items() if f.section == section)
            if node.display != shown:
                node.display = shown
        figures = form.compute(values)
        self.figures = figures
        self._flag(figures)
        if figures.ok:
            self._show(figures)

    def _flag(self, figures: form.Figures) -> None:
        errors = figures.errors or ({figures.error_field: figures.error or ""} if figures.error_field else {})
        for key, row in self._rows.items():
            invalid = key in errors
            if invalid or row.has_class("-invalid"):
                row.set_class(invalid, "-invalid")
        self._place_field_errors(errors)
        banner = self.query_one("#calc-error", Static)
        if figures.ok:
            banner.display = False
            for node in self._results:
                node.display = True
            return
        lines = [self._t("calc.invalid").format(field=self._t(f"calc.field.{field}") if field in self.fields else field,
                                                message=message)
                 for field, message in errors.items()]
        banner.update(Text("\n".join([*lines, self._t("calc.invalid_note")])))
        banner.display = True
        for node in [*self._results, self.query_one("#calc-cpu")]:
            node.display = False

    def _place_field_errors(self, errors: dict[str, str]) -> None:
        """An error line under each field the calculator rejects (removed once the field is fixed)."""
        for key in [k for k in self._field_errors if k not in errors or k not in self._rows]:
            self._field_errors.pop(key).remove()
        for key, message in errors.items():
            row = self._rows.get(key)
            if row is None:
                continue
            line = self._field_errors.get(key)
            if line is not None:
                line.update(Text(message))
                continue
            line = Static(Text(message), classes="calc-field-error")
            self._field_errors[key] = line
            row.parent.mount(line, after=row)  # type: ignore[union-attr]

    def _show(self, figures: form.Figures) -> None:
        b: Any = figures.breakdown
        fit: Any = figures.fit
        self.query_one("#calc-total", Static).update(
            Text(self._t("calc.total").format(gb=_gb(b.total), gib=_gb(b.total, "GiB")), style="bold"))
        self.query_one("#calc-fit", Static).update(self._fit_text(b, fit))
        self.query_one("#calc-derived", Static).update(self._derived_text(figures))
        self.query_one("#calc-shares", Static).update(self._shares_text(b))
        cpu = self.query_one("#calc-cpu", Static)
        cpu.update(Text(self._t("calc.cpu").format(cpu=_gb(b.cpu)) if b.cpu else ""))
        cpu.display = bool(b.cpu)
        self._wanted_table = (b, fit)
        if not self._syncing_table:
            self._syncing_table = True
            self.run_worker(self._sync_table(), group="breakdown-table", exit_on_error=False)

    async def _sync_table(self) -> None:
        """Replace the breakdown table until it shows the latest figures (one replacement at a time,
        so a table is never removed while it is still being mounted)."""
        holder = self.query_one("#calc-breakdown", Vertical)
        try:
            while self._shown_table != self._wanted_table:
                wanted = self._wanted_table
                await holder.remove_children()
                await holder.mount(BreakdownTable(wanted[0], wanted[1], lang=self.app.settings.lang))  # type: ignore[attr-defined]
                self._shown_table = wanted
        finally:
            self._syncing_table = False

    def _fit_text(self, b: Any, fit: Any) -> Text:
        if fit is None:
            return Text(self._t("calc.no_gpu"))
        words = dict(gpu=form.gpu_label(fit.gpu.name), total=_gb(b.total), usable=_gb(fit.usable), reserve=_gb(fit.reserve, "GiB"),
                     headroom=_gb(fit.headroom), over=_gb(-fit.headroom))
        line = self._t("calc.fits" if fit.fits else "calc.no_fit").format(**words)
        share = b.total / fit.usable if fit.usable > 0 else float("inf")
        gauge = Text(line + "\n")
        gauge.append(form.bar(share, 30), style="green" if fit.fits else "red")
        gauge.append(f" {share:.0%}" if share != float("inf") else " ∞")
        return gauge

    def _derived_text(self, figures: form.Figures) -> Text:
        from quizapp.memory import format_quantity

        def show(solved: form.Solved, render) -> str:
            if solved.value is None:
                return self._t("calc.na").format(reason=solved.reason or "")
            return render(solved.value)

        rows = [
            ("calc.max_batch", show(figures.max_batch, lambda v: f"{int(v):,}")),
            ("calc.max_seq", show(figures.max_seq, lambda v: f"{int(v):,}")),
            ("calc.max_params", show(figures.max_params, lambda v: format_quantity(v, "B"))),
            ("calc.flops", show(figures.flops_per_token, lambda v: f"{v / 1e9:,.2f} GFLOP")),
            ("calc.step", show(figures.step_time, lambda v: format_quantity(v, "s", 3))),
        ]
        width = max(len(self._t(key)) for key, _ in rows) + 2
        return Text("\n".join(f"{self._t(key):<{width}}{value}" for key, value in rows))

    def _shares_text(self, b: Any) -> Text:
        lang = self.app.settings.lang  # type: ignore[attr-defined]
        from quizapp.tui.i18n import t

        rows = form.shares(b)
        if not rows:
            return Text("—")
        names = [t(f"term.{name}", lang) for name, _, _ in rows]
        width = max(len(n) for n in names) + 1
        text = Text()
        for (name, value, share), label in zip(rows, names):
            text.append(f"{label:<{width}}")
            text.append(form.bar(share, 8), style="bold")
            text.append(f" {share:5.1%} {value / 1e9:,.1f}\n")  # GB, as the subtitle says
        text.rstrip()
        return text

    # --- copy as drill ---------------------------------------------------------------------------------
    def action_copy_drill(self) -> None:
        figures = self.figures
        if figures is None or not figures.ok:
            error = figures.error if figures else ""
            self.notify(self._t("snippet.invalid").format(error=error), severity="warning", markup=False)
            return
        from quizapp.tui.screens.drill_snippet import DrillSnippetScreen

        self.app.push_screen(DrillSnippetScreen(dict(figures.options), form.snippet_asks(figures.setup)))
