"""The what-if calculator screen: live figures equal quizapp.memory's, invalid input is flagged, copy as drill."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizapp import memory
from quizapp.memory import format_bytes
from quizapp.tui.screens.calculator import CalculatorScreen


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector).content)


async def settle(pilot) -> None:
    """Let the screen's coalesced recalculation and the breakdown-table swap run."""
    for _ in range(3):
        await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def open_calculator(app, pilot):
    app.push_screen(CalculatorScreen())
    await settle(pilot)
    assert isinstance(app.screen, CalculatorScreen)
    return app.screen


async def type_into(pilot, screen, key: str, text: str) -> None:
    field = screen.query_one(f"#input-{key}")
    field.focus()
    field.value = ""
    await pilot.press(*text)
    await settle(pilot)


async def test_two_changed_fields_show_the_calculators_total(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_calculator(app, pilot)
        await type_into(pilot, screen, "batch", "4")
        screen.query_one("#input-recompute").value = "full"
        await settle(pilot)

        # What the calculator says for the setup those two changes make (the other fields at their defaults).
        expected = memory.breakdown(memory.setup_from_options(
            {"model": "llama-2-7b", "batch": 4, "recompute": "full", "gpu": "a100-80g"}))
        text = shown(screen, "#calc-total")
        assert format_bytes(expected.total, "GB") in text
        assert format_bytes(expected.total, "GiB") in text
        # ... and differs from the default setup's total, so the two edits really took effect.
        default = memory.breakdown(memory.setup_from_options({"model": "llama-2-7b"}))
        assert format_bytes(default.total, "GB") not in text
        assert screen.figures.setup.batch == 4 and screen.figures.setup.recompute == "full"


async def test_fit_and_largest_batch_follow_the_gpu(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_calculator(app, pilot)
        screen.query_one("#input-model").value = "llama-3.2-1b"
        screen.query_one("#input-gpu").value = "h100-80g"
        await settle(pilot)
        setup = memory.setup_from_options({"model": "llama-3.2-1b", "gpu": "h100-80g"})
        largest = memory.max_batch(setup, setup.gpu, setup.reserve)
        assert largest > 1
        assert f"{largest:,}" in shown(screen, "#calc-derived")
        assert "H100 80GB" in shown(screen, "#calc-fit")  # a readable name, not the id


async def test_invalid_combination_is_flagged_on_its_field(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_calculator(app, pilot)
        screen.query_one("#input-zero").value = "1"
        screen.query_one("#input-offload").value = "optimizer+params"  # needs ZeRO stage 3
        await settle(pilot)
        assert screen.query_one("#field-offload").has_class("-invalid")
        error = screen.query_one(".calc-field-error")
        assert "ZeRO stage 3" in str(error.content)
        siblings = list(error.parent.children)
        assert siblings[siblings.index(error) - 1] is screen.query_one("#field-offload")  # right under it
        assert screen.query_one("#calc-error").display
        assert not screen.query_one("#calc-total").display
        screen.query_one("#input-zero").value = "3"  # fixing it clears the flag
        await pilot.pause()
        assert not screen.query_one("#field-offload").has_class("-invalid")
        assert not screen.query(".calc-field-error")
        assert screen.query_one("#calc-total").display

        await type_into(pilot, screen, "batch", "x")  # junk in a number field: flagged, not a crash
        assert screen.query_one("#field-batch").has_class("-invalid")
        assert app.screen is screen


async def test_fields_that_do_not_apply_are_hidden_and_not_sent(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_calculator(app, pilot)
        assert not screen.query_one("#field-kv_dtype").display
        screen.set_mode("serving")
        await settle(pilot)
        assert screen.query_one("#field-kv_dtype").display
        assert not screen.query_one("#field-optimizer").display
        assert "optimizer" not in screen.figures.options
        assert screen.figures.options["method"] == "inference"
        assert screen.figures.breakdown.term("kv_cache") is not None


async def test_copy_as_drill_writes_the_file_and_backs_up_an_old_one(app_factory, tmp_path: Path):
    target = tmp_path / "drills" / "what-if.yaml"
    target.parent.mkdir()
    target.write_text("old: content\n", encoding="utf-8")
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_calculator(app, pilot)
        await type_into(pilot, screen, "seq", "4096")
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert type(dialog).__name__ == "DrillSnippetScreen"
        assert "seq: 4096" in str(dialog.query_one("#snippet-yaml").content)  # shown on screen
        dialog.query_one("#snippet-path").value = str(target)
        await pilot.click("#snippet-save")
        await pilot.pause()
        assert app.screen is screen
    written = target.read_text(encoding="utf-8")
    assert "seq: 4096" in written and "ask: total" in written
    assert (tmp_path / "drills" / "what-if.yaml.bak").read_text(encoding="utf-8") == "old: content\n"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_calculator_snapshot(snap_compare, app_factory, size):
    async def run_before(pilot) -> None:
        await open_calculator(pilot.app, pilot)

    assert snap_compare(app_factory(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("mode", ["serving", "cluster"])
def test_calculator_snapshot_modes(snap_compare, app_factory, mode):
    async def run_before(pilot) -> None:
        screen = await open_calculator(pilot.app, pilot)
        screen.set_mode(mode)
        await settle(pilot)
        if mode == "cluster":
            await type_into(pilot, screen, "gpus", "8")
            await type_into(pilot, screen, "pp", "4")
            await type_into(pilot, screen, "microbatches", "8")
        screen.query_one("#input-model").focus()
        for box in screen.query("Input"):
            box.cursor_blink = False
        await settle(pilot)

    assert snap_compare(app_factory(), terminal_size=(80, 24), run_before=run_before)


def test_calculator_snapshot_invalid_field(snap_compare, app_factory):
    async def run_before(pilot) -> None:
        screen = await open_calculator(pilot.app, pilot)
        screen.query_one("#input-offload").value = "optimizer+params"
        await type_into(pilot, screen, "batch", "x")  # two bad fields: both flagged
        screen.query_one("#calc-form").scroll_home(animate=False)
        for box in screen.query("Input"):
            box.cursor_blink = False  # a blinking cursor would make the snapshot depend on timing
        await settle(pilot)

    assert snap_compare(app_factory(), terminal_size=(100, 32), run_before=run_before)


async def test_every_rejected_field_is_flagged_not_only_the_first(app_factory):
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_calculator(app, pilot)
        await type_into(pilot, screen, "batch", "x")
        await type_into(pilot, screen, "mfu", "2")
        for key in ("batch", "mfu"):
            assert screen.query_one(f"#field-{key}").has_class("-invalid")
        errors = list(screen.query(".calc-field-error"))
        assert len(errors) == 2
        for line, key in zip(errors, ("batch", "mfu")):
            siblings = list(line.parent.children)
            assert siblings[siblings.index(line) - 1] is screen.query_one(f"#field-{key}")
        await type_into(pilot, screen, "batch", "2")  # fixing one leaves the other flagged
        assert not screen.query_one("#field-batch").has_class("-invalid")
        assert screen.query_one("#field-mfu").has_class("-invalid") and len(screen.query(".calc-field-error")) == 1


async def test_labels_never_run_into_their_values_at_80_columns(app_factory):
    from rich.cells import cell_len

    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_calculator(app, pilot)
        screen.query_one("#input-model").value = "custom"  # shows the longest labels
        await settle(pilot)
        for row in screen.query(".calc-field"):
            if not row.display:
                continue
            label, value = row.children[0], row.children[1]
            text = str(label.content)
            assert cell_len(text) <= label.content_region.width, text  # the whole label fits ...
            assert label.content_region.right < value.region.x, text  # ... with a gap before the value
        gpu = screen.query_one("#input-gpu")
        assert str(gpu.query_one("SelectCurrent #label").content) == "A100 80GB"  # a name, not the id


# --- modes (issue 11) and polish (issue 13) --------------------------------------------------------


async def test_focus_starts_on_the_model(app_factory):
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_calculator(app, pilot)
        assert app.focused is screen.query_one("#input-model")


async def test_serving_mode_shows_the_kv_budget_concurrency_and_bound(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_calculator(app, pilot)
        await pilot.click("#mode-serving")  # the tab itself, as a user would
        await settle(pilot)
        assert screen.mode == "serving"
        await type_into(pilot, screen, "seq", "4096")
        setup = memory.setup_from_options({"model": "llama-2-7b", "method": "inference", "seq": 4096,
                                           "gpu": "a100-80g"})
        text = shown(screen, "#calc-derived")
        assert f"{int(memory.evaluate(setup, 'max_concurrency')):,}" in text
        assert f"{int(memory.evaluate(setup, 'kv_tokens')):,} tokens" in text
        assert format_bytes(memory.evaluate(setup, "kv_budget"), "GB") in text
        assert "memory-bound" in text and "154" in text  # the decode bound and the critical batch
        # pinned literals (an engine bug cannot pass both): A100 80GB reports 81,920 MiB; budget =
        # 0.9 x 85,899,345,920 - 2 x 6,738,415,616 (bf16 weights) - 1 GiB = 62,758,838,272 B = 62.76 GB;
        # KV per token = 2 x 32 layers x 4096 x 2 B = 524,288 B; kv_tokens = floor(budget / (16 x 524,288)) x 16
        # = 119,696; at 4096 tokens a sequence holds 4096 x 524,288 B, so floor(29.22) = 29 fit at once.
        assert "119,696 tokens" in text and "62.76 GB" in text
        assert int(memory.evaluate(setup, "max_concurrency")) == 29
        assert str(screen.query_one("#label-seq").content) == "Context"  # the mode's own word


async def test_cluster_mode_shows_communication_per_kind_and_the_bubble(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_calculator(app, pilot)
        await pilot.press("ctrl+t", "ctrl+t")  # training -> serving -> cluster
        await settle(pilot)
        assert screen.mode == "cluster"
        await type_into(pilot, screen, "gpus", "8")
        await type_into(pilot, screen, "pp", "4")
        await type_into(pilot, screen, "microbatches", "8")
        setup = memory.setup_from_options({"model": "llama-2-7b", "gpus": 8, "pp": 4, "microbatches": 8,
                                           "gpu": "a100-80g"})
        text = shown(screen, "#calc-derived")
        assert format_bytes(memory.evaluate(setup, "comm_dp_bytes"), "GB") in text
        assert format_bytes(memory.evaluate(setup, "comm_pp_bytes"), "GB") in text
        assert "37.5%" in text  # bubble (pp − 1)/m = 3/8


async def test_copy_as_drill_offers_the_modes_asks(app_factory):
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_calculator(app, pilot)
        screen.set_mode("serving")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert type(dialog).__name__ == "DrillSnippetScreen"
        assert "max_concurrency" in dialog.asks and "decode_step_s" in dialog.asks
        assert "optimizer_states" not in dialog.asks
        assert "method: inference" in str(dialog.query_one("#snippet-yaml").content)


async def test_largest_micro_batch_zero_says_what_fits(app_factory):
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_calculator(app, pilot)  # full AdamW 7B on an A100 80GB: nothing fits
        text = shown(screen, "#calc-derived")
        assert "even one token needs" in text and "n/a" not in text.splitlines()[0]
