"""The calculator without friction (issue 22): at 80x24 every option of every select (model presets,
GPUs, dtypes, ...) shows whole, both as the chosen value and in the open list; "Copy as drill" shows
which control has focus, saves on Enter and says where it wrote the file, in English and Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import Input, Select

from quizapp.tui.screens.calculator import CalculatorScreen

# Settings that bring every choice field on screen at least once: the defaults (training), a custom
# shape (style, bias), PPO (critic, reward), LoRA (targets), serving (weight and KV dtypes).
SETUPS = [("training", {}), ("training", {"model": "custom"}), ("training", {"method": "ppo"}),
          ("training", {"method": "lora"}), ("serving", {})]


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def open_calculator(app, pilot) -> CalculatorScreen:
    app.push_screen(CalculatorScreen())
    await settle(pilot)
    assert isinstance(app.screen, CalculatorScreen)
    return app.screen


def _line(widget, y: int = 0) -> str:
    return "".join(segment.text for segment in widget.render_line(y))


# The selects whose option names Chinese changes (the others show ids and dtypes in both languages).
TRANSLATED = {"model", "critic_model", "reward_model", "gpu"}


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_every_option_of_every_select_shows_whole_at_80_columns(app_factory, lang):
    app = app_factory(lang=lang)
    checked: set[str] = set()
    wanted = None if lang == "en" else TRANSLATED
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_calculator(app, pilot)
        for mode, values in SETUPS:
            screen.set_mode(mode)
            for key, value in values.items():
                screen.query_one(f"#input-{key}", Select).value = value
            await settle(pilot)
            for select in screen.query("#calc-form Select").results(Select):
                key = select.id.removeprefix("input-")
                if not select.parent.display or key in checked or key in values \
                        or (wanted is not None and key not in wanted):
                    continue
                checked.add(key)
                label = select.query_one("SelectCurrent #label")
                original = select.value
                for prompt, _ in select._options:  # every name fits the space the value is drawn in ...
                    assert cell_len(str(prompt)) <= label.content_region.width, (key, str(prompt))
                longest, value = max(select._options, key=lambda option: cell_len(str(option[0])))
                with screen.prevent(Select.Changed):  # shown, not recalculated (which takes long)
                    select.value = value
                await pilot.pause()
                assert str(longest) in _line(label), (key, str(longest))  # ... and the longest is drawn whole
                with screen.prevent(Select.Changed):
                    select.value = original
                await pilot.pause()
                # the open list: every option's name fits inside its border, padding and scrollbar
                select.focus()
                await pilot.press("enter")
                await pilot.pause()
                overlay = select.query_one("SelectOverlay")
                assert overlay.display and select.expanded, key
                room = overlay.scrollable_content_region.width - 2  # the options' padding 0 1
                for prompt, _ in select._options:
                    assert cell_len(str(prompt)) <= room, (key, str(prompt))
                await pilot.press("escape")
                await pilot.pause()
                assert not select.expanded
            screen.action_reset()
            await settle(pilot)
    # every choice field of the form was looked at
    choice_keys = {key for key, item in screen.fields.items() if item.kind == "choice"}
    assert (wanted or choice_keys) <= checked, (wanted or choice_keys) - checked


async def _open_snippet(app, pilot):
    screen = await open_calculator(app, pilot)
    await pilot.press("ctrl+s")
    await settle(pilot)
    dialog = app.screen
    assert type(dialog).__name__ == "DrillSnippetScreen"
    return screen, dialog


def _background(widget) -> str:
    target = widget.query_one("SelectCurrent") if isinstance(widget, Select) else widget
    return str(target.styles.background)


async def test_copy_as_drill_shows_which_control_has_focus(app_factory):
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        _, dialog = await _open_snippet(app, pilot)
        path, ask = dialog.query_one("#snippet-path", Input), dialog.query_one("#snippet-ask", Select)
        ask_label, path_label = (row.query_one(".snippet-label") for row in dialog.query(".snippet-row"))
        assert app.focused is path  # focus starts on the file name
        assert path.has_pseudo_class("focus") and path.parent.has_pseudo_class("focus-within")
        focused_path, blurred_ask = _background(path), _background(ask)
        assert path_label.styles.text_style.bold and not ask_label.styles.text_style.bold  # the focused row's label
        assert path_label.styles.color != ask_label.styles.color
        ask.focus()
        await settle(pilot)
        assert _background(path) != focused_path  # the mark moved with the focus
        assert _background(ask) != blurred_ask and _background(ask) == focused_path
        assert ask_label.styles.text_style.bold and not path_label.styles.text_style.bold
        # the buttons show it too (Textual's focused button style)
        save = dialog.query_one("#snippet-save")
        save.focus()
        await settle(pilot)
        assert save.has_pseudo_class("focus") and save.styles.text_style.reverse


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_enter_in_copy_as_drill_saves_and_says_where(app_factory, tmp_path: Path, monkeypatch, lang):
    monkeypatch.chdir(tmp_path)  # a relative name is saved under the working folder, as before
    app = app_factory(lang=lang)
    seen: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        screen, dialog = await _open_snippet(app, pilot)
        app.notify = lambda message, **options: seen.append(str(message))
        await pilot.press("enter")  # no file name yet: it says so and keeps the dialog
        await pilot.pause()
        assert app.screen is dialog and not seen
        assert str(dialog.query_one("#snippet-error").content) == \
            {"en": "Type a file name first.", "zh": "请先输入文件名。"}[lang]
        await pilot.press(*"drills/what-if.yaml")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen  # saved and closed
    target = tmp_path / "drills" / "what-if.yaml"
    assert target.exists()
    written = target.read_text(encoding="utf-8")
    assert "ask: total" in written and "model: llama-2-7b" in written
    import yaml

    assert yaml.safe_load(written)  # a YAML document
    expected = {"en": f"Saved the drill to {target}", "zh": f"已将计算题保存到 {target}"}[lang]
    assert seen == [expected]  # the absolute path, in the UI's language


async def test_enter_on_the_yaml_saves_too(app_factory, tmp_path: Path):
    target = tmp_path / "from-yaml.yaml"
    app = app_factory()
    seen: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        screen, dialog = await _open_snippet(app, pilot)
        app.notify = lambda message, **options: seen.append(str(message))
        dialog.query_one("#snippet-path", Input).value = str(target)
        dialog.query_one("#snippet-yaml-box").focus()
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
    assert target.exists() and seen == [f"Saved the drill to {target}"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_calculator_at_80_columns_snapshot(snap_compare, app_factory, lang):
    async def run_before(pilot) -> None:
        await open_calculator(pilot.app, pilot)
        screen = pilot.app.screen
        screen.query_one("#input-model", Select).value = "deepseek-v2-lite"  # the longest preset name
        await settle(pilot)

    assert snap_compare(app_factory(lang=lang), terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_copy_as_drill_snapshot(snap_compare, app_factory, lang):
    async def run_before(pilot) -> None:
        await _open_snippet(pilot.app, pilot)
        for box in pilot.app.screen.query("Input"):
            box.cursor_blink = False
        await pilot.press(*"drills/what-if.yaml")
        await settle(pilot)

    assert snap_compare(app_factory(lang=lang), terminal_size=(80, 24), run_before=run_before)
