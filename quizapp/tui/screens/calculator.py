"""The what-if calculator: a mode switch (training · serving · cluster), a form over the settings that
apply in that mode, and the live figures beside it.

The screen only renders. Which fields exist and apply, the options dict, the figures and the drill
snippet come from quizapp.practice.calculator_form, which calls quizapp.memory.setup_from_options
(the one parser of calculator inputs); an invalid value is flagged on its field, never raised.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Header, Input, Label, Select, Static, Tab, Tabs

from quizapp.practice import calculator_form as form
from quizapp.tui.screens.base import QuizScreen
from quizapp.tui.widgets.breakdown_table import BreakdownTable
from quizapp.tui.widgets.footer import Footer

SECTIONS = ("model", "run", "parallel", "lora", "inference", "hardware")
SWITCH = (("on", True), ("off", False))


def _gb(value: float, unit: str = "GB") -> str:
    from quizapp.memory import format_bytes

    return format_bytes(value, unit)


def _time(seconds: float) -> str:
    from quizapp.memory.quantities import format_quantity, sensible_unit

    return format_quantity(seconds, sensible_unit(seconds, "seconds"), 2)


class CalculatorScreen(QuizScreen[None]):
    """Change any setting and see the memory per GPU, the fit, and the mode's figures and solves."""

    CSS_PATH = "calculator.tcss"
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="back"),
        Binding("ctrl+t", "next_mode", "Mode", id="next_mode"),
        Binding("ctrl+s", "copy_drill", "Copy as drill", id="copy_drill"),
        Binding("ctrl+r", "reset", "Reset", id="reset"),
    ]

    def __init__(self, mode: str = form.DEFAULT_MODE) -> None:
        super().__init__()
        self.mode = mode if mode in form.MODES else form.DEFAULT_MODE
        self.fields = {f.key: f for f in form.form_fields()}
        self.figures: form.Figures | None = None
        self._wanted_table: tuple[Any, Any] | None = None
        self._shown_table: tuple[Any, Any] | None = None
        self._syncing_table = False
        self._recalc_pending = False
        self._field_errors: dict[str, Static] = {}  # field key -> the error line under it
        self._last_values: dict[str, object] | None = None

    # --- building ------------------------------------------------------------------------------------
    def _t(self, key: str, **args: object) -> str:
        return self.app.t(key, **args)  # type: ignore[attr-defined]

    def _word(self, key: str, mode_key: str | None = None) -> str:
        """The mode's own word where there is one (batch reads "Concurrency" when serving)."""
        from quizapp.words import TEXT

        if mode_key and f"{key}.{mode_key}" in TEXT:
            return self._t(f"{key}.{mode_key}")
        return self._t(key)

    def _choice_label(self, key: str, choice: str) -> str:
        if (key == "model" and choice in (form.CUSTOM, form.COUNT)) or (key == "gpu" and choice == form.NO_GPU) \
                or choice == form.SAME:
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
        yield Tabs(*(Tab(self._t(f"calc.mode.{m}"), id=f"mode-{m}") for m in form.MODES),
                   active=f"mode-{self.mode}", id="calc-modes")
        with Horizontal(id="calc-body"):
            with VerticalScroll(id="calc-form"):
                for section in SECTIONS:
                    items = [f for f in self.fields.values() if f.section == section]
                    with Vertical(classes="calc-section", id=f"section-{section}"):
                        yield Static(Text(self._word(f"calc.section.{section}", self.mode)),
                                     classes="calc-section-title", id=f"title-{section}")
                        for item in items:
                            with Horizontal(classes="calc-field", id=f"field-{item.key}"):
                                yield Label(Text(self._word(f"calc.field.{item.key}", self.mode)),
                                            classes="calc-label", id=f"label-{item.key}")
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
        self._inputs = {key: self.query_one(f"#input-{key}") for key in self.fields}
        self._rows = {key: self.query_one(f"#field-{key}") for key in self.fields}
        self._sections = {name: self.query_one(f"#section-{name}") for name in SECTIONS}
        self._results = [self.query_one(f"#{name}") for name in
                         ("calc-total", "calc-fit", "calc-derived", "calc-shares", "calc-breakdown")]
        self._results += list(self.query(".calc-subtitle"))
        self._inputs["model"].focus()  # the form starts where every question starts: the model
        self.recalculate()

    # --- reading the form ----------------------------------------------------------------------------
    def values(self) -> dict[str, object]:
        """The form's current values by field key (strings; switches as bools), and the mode."""
        values: dict[str, object] = {"mode": self.mode}
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
        self._schedule()

    def _schedule(self) -> None:
        if not self._recalc_pending:  # many changes in one frame (e.g. at mount) make one recalculation
            self._recalc_pending = True
            self.call_after_refresh(self.recalculate)

    @on(Tabs.TabActivated, "#calc-modes")
    def _mode_chosen(self, event: Tabs.TabActivated) -> None:
        event.stop()
        mode = (event.tab.id or "").removeprefix("mode-")
        if mode in form.MODES and mode != self.mode:
            self.set_mode(mode)

    def set_mode(self, mode: str) -> None:
        """Switch to `mode`: its fields, its words and its figures."""
        self.mode = mode
        tabs = self.query_one("#calc-modes", Tabs)
        if tabs.active != f"mode-{mode}":
            tabs.active = f"mode-{mode}"
        for key in self.fields:
            self.query_one(f"#label-{key}", Label).update(Text(self._word(f"calc.field.{key}", mode)))
        for section in SECTIONS:
            self.query_one(f"#title-{section}", Static).update(Text(self._word(f"calc.section.{section}", mode)))
        self._schedule()

    def action_next_mode(self) -> None:
        self.set_mode(form.MODES[(form.MODES.index(self.mode) + 1) % len(form.MODES)])

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
        lines = [self._t("calc.invalid").format(
            field=self._word(f"calc.field.{field}", self.mode) if field in self.fields else field, message=message)
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
        setup: Any = figures.setup
        per_gpu = figures.mode != "training" or setup.world_size > 1
        key = "calc.total.per_gpu" if per_gpu else "calc.total"
        self.query_one("#calc-total", Static).update(
            Text(self._t(key).format(gb=_gb(b.total), gib=_gb(b.total, "GiB")), style="bold"))
        self.query_one("#calc-fit", Static).update(self._fit_text(b, fit))
        derived = {"serving": self._serving_text, "cluster": self._cluster_text}.get(figures.mode, self._derived_text)
        self.query_one("#calc-derived", Static).update(derived(figures))
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

    def _show_solved(self, solved: form.Solved, render) -> str:
        if solved.value is None:
            return self._t("calc.na").format(reason=solved.reason or "")
        if solved.hint is not None and not solved.value:
            key, args = solved.hint
            return self._t(key, **args)
        text = render(solved.value)
        if solved.hint is not None:
            key, args = solved.hint
            text += f" ({self._t(key, **args)})"
        return text

    def _rows_text(self, rows: list[tuple[str, str]]) -> Text:
        width = max(len(label) for label, _ in rows) + 2
        return Text("\n".join(f"{label:<{width}}{value}" for label, value in rows))

    def _utilisation_rows(self, figures: form.Figures) -> list[tuple[str, str]]:
        rows = []
        if figures.mfu.value is not None and figures.hfu.value is not None:
            rows.append((self._t("calc.mfu"), f"{figures.mfu.value:.1%} / {figures.hfu.value:.1%}"))
        if figures.tokens_per_s.value is not None:
            rows.append((self._t("calc.tokens_per_s"), f"{figures.tokens_per_s.value:,.0f}"))
        return rows

    def _derived_text(self, figures: form.Figures) -> Text:
        from quizapp.memory import format_quantity

        show = self._show_solved
        rows = [
            (self._t("calc.max_batch"), show(figures.max_batch, lambda v: f"{int(v):,}")),
            (self._t("calc.max_seq"), show(figures.max_seq, lambda v: f"{int(v):,}")),
            (self._t("calc.max_params"), show(figures.max_params, lambda v: format_quantity(v, "B"))),
            (self._t("calc.flops"), show(figures.flops_per_token, lambda v: f"{v / 1e9:,.2f} GFLOP")),
            (self._t("calc.step"), show(figures.step_time, lambda v: format_quantity(v, "s", 3))),
        ]
        return self._rows_text(rows + self._utilisation_rows(figures))

    def _serving_text(self, figures: form.Figures) -> Text:
        s: Any = figures.serving
        setup: Any = figures.setup
        if s is None or s.decode is None:
            return Text(self._t("calc.no_gpu"))
        show = self._show_solved
        d, p = s.decode, s.prefill
        rows = [
            (self._t("calc.kv_per_token"), f"{s.kv_bytes_per_token:,.0f} B"),
            (self._t("calc.kv_budget"), _gb(s.budget)),
            (self._t("calc.kv_tokens"), f"{s.kv_tokens:,} tokens"),
            (self._t("calc.max_concurrency"), self._t("calc.at_context", n=f"{s.max_concurrency:,}", s=f"{setup.seq:,}")),
            (self._t("calc.max_context"), show(figures.max_context, lambda v: self._t(
                "calc.at_batch", n=f"{int(v):,}", b=f"{setup.batch:,}"))),
            (self._t("calc.min_tp"), show(figures.min_tp, lambda v: f"{int(v)}" if v else "—")),
            (self._t("calc.decode"), f"{_time(d.step_s)}, {self._t(f'calc.bound.{d.bound}')}"),
            (self._t("calc.decode_rate"), self._t("calc.per_seq", total=f"{d.tokens_per_s:,.0f}",
                                                   each=f"{d.per_seq_tokens_per_s:,.1f}")),
            (self._t("calc.ttft"), f"{_time(p.step_s)}, {self._t(f'calc.bound.{p.bound}')}"),
            (self._t("calc.critical_batch"), f"{s.critical_batch:,}"),
        ]
        return self._rows_text(rows)

    def _cluster_text(self, figures: form.Figures) -> Text:
        from quizapp.memory import format_quantity

        c: Any = figures.communication
        show = self._show_solved
        rows: list[tuple[str, str]] = []
        if c is not None:
            for traffic in c.kinds:
                if traffic.bytes or traffic.kind == "dp":
                    seconds = _time(traffic.seconds) if c.link_bandwidth else "—"
                    rows.append((self._t(f"calc.comm.{traffic.kind}"), f"{_gb(traffic.bytes)}, {seconds}"))
            total_s = _time(c.total_s) if c.link_bandwidth else "—"
            rows.append((self._t("calc.comm.total"), f"{_gb(c.total_bytes)}, {total_s}"))
            if figures.setup.pp > 1:  # type: ignore[union-attr]
                rows.append((self._t("calc.bubble"), f"{c.bubble:.1%}"))
        rows += self._utilisation_rows(figures)
        if figures.compute_budget.value is not None:
            rows.append((self._t("calc.budget"), format_quantity(figures.compute_budget.value, "EFLOPs")))
        if figures.train_days.value is not None:
            rows.append((self._t("calc.train_days"), self._t("calc.days", n=f"{figures.train_days.value:,.1f}")))
        if figures.chinchilla.value is not None:
            rows.append((self._t("calc.chinchilla"), self._t("calc.tokens", n=f"{figures.chinchilla.value / 1e9:,.1f}B")))
        rows.append((self._t("calc.min_gpus"), show(figures.min_gpus, lambda v: f"{int(v):,}")))
        return self._rows_text(rows)

    def _shares_text(self, b: Any) -> Text:
        lang = self.app.settings.lang  # type: ignore[attr-defined]
        from quizapp.words import say as t

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

        self.app.push_screen(DrillSnippetScreen(dict(figures.options), form.snippet_asks(figures.setup, figures.mode)))
