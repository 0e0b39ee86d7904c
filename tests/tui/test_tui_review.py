"""Pilot tests that drive whole sessions against a tmp database and content folder, and check the
database rows after each step (review_log and card, read with a second sqlite3 connection)."""

from __future__ import annotations

import os
import re

import pytest
from textual.widgets import Input, Markdown, Static, TextArea

from quizapp.memory import evaluate, mistake_values, setup_from_options
from quizapp.words import say
from quizapp.words.calc import render


async def settle(app, pilot) -> None:
    """Let pending messages and the database workers finish."""
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


def log_rows(query_db):
    return query_db("SELECT card_id, rating, mode, answer, verdict, mistake FROM review_log ORDER BY id")


def static_text(widget: Static) -> str:
    return str(widget.render())


async def start_review(app, pilot):
    await settle(app, pilot)
    await pilot.press("r")
    await settle(app, pilot)
    from quizapp.tui.screens.review import ReviewScreen

    assert isinstance(app.screen, ReviewScreen)
    return app.screen


TEXT_CARDS = ["brackets/question/main", "kv-drill/question/main"]


async def on_text_cards(app, pilot):
    """A session whose first cards are self-graded questions (the queue's order is the store's business,
    tested in tests/practice; these tests are about keys, focus and what the screen shows)."""
    await settle(app, pilot)
    app.open_review("cram", card_ids=TEXT_CARDS)
    await settle(app, pilot)
    return app.screen


async def test_reveal_rate_and_undo_write_and_remove_log_rows(app_factory, query_db, store):
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await on_text_cards(app, pilot)
        first = screen.current.card_id
        assert not screen.check_action("rate", ())  # rating keys only after reveal
        area = screen.query_one("#own-answer", TextArea)
        # issue 13: as in Anki, a self-graded card opens with the focus outside the box (Space reveals)
        assert screen.focused is not area
        await pilot.press("3")  # a digit before reveal rates nothing
        await settle(app, pilot)
        assert log_rows(query_db) == []

        await pilot.press("a")  # `a` puts the focus in the box; what follows is typing
        assert screen.focused is area
        await pilot.press("3", "a", "space", "b")  # space types a space in the editor, it does not reveal
        assert area.text == "3a b"
        assert not screen.revealed
        await pilot.press("ctrl+r")  # reveals from inside the editor, the text kept
        assert screen.revealed
        assert area.text == "3a b"
        assert screen.query("#answer")
        await pilot.press("3")
        await settle(app, pilot)
        assert log_rows(query_db) == [(first, 3, "cram", "3a b", None, None)]
        assert screen.current.card_id != first
        assert screen.tally.reviewed == 1

        await pilot.press("a", "u")  # in the next card's answer box, u is typed: nothing undone
        await settle(app, pilot)
        assert len(log_rows(query_db)) == 1
        next_box = screen.query_one("#drill-input, #own-answer")
        assert (getattr(next_box, "text", None) or getattr(next_box, "value", None)) == "u"
        await pilot.press("ctrl+z")  # the box has typing: ctrl+z undoes the typing, not the rating
        await pilot.press("ctrl+z")  # now the box is empty: ctrl+z undoes the last rating
        await settle(app, pilot)
        assert log_rows(query_db) == []
        assert screen.current.card_id == first  # the undone card is shown again
        assert screen.tally.reviewed == 0


async def drill_screen(app, pilot, card_id: str):
    """A cram session on one drill card (as the debrief screen starts it)."""
    await settle(app, pilot)
    app.open_review("cram", card_ids=[card_id])
    await settle(app, pilot)
    return app.screen


DRILL = "single-gpu/drill/adamw-7b"
DRILL_SETUP = dict(model="llama-2-7b", method="full", precision="bf16-mixed", optimizer="adamw", gpu="a100-80g")


async def test_numeric_drill_right_answer_suggests_good_and_enter_accepts(app_factory, query_db):
    expected_gb = evaluate(setup_from_options(DRILL_SETUP), "model_states") / 1e9
    assert f"{expected_gb:.1f}" == "107.8"  # pinned: 16 B/param x 6,738,415,616 (llama-2-7b) = 107.81 GB
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await drill_screen(app, pilot, DRILL)
        assert screen.current.kind == "drill"
        box = screen.query_one("#drill-input", Input)
        assert "GB" in box.placeholder
        box.value = f"{expected_gb:.1f} GB"
        await pilot.press("enter")
        await pilot.pause()
        assert screen.grade.verdict == "correct"
        assert screen.revealed
        assert "Correct" in static_text(screen.query_one("#verdict", Static))
        await pilot.press("enter")  # accepts the suggested rating (Good)
        await settle(app, pilot)
        assert log_rows(query_db) == [(DRILL, 3, "cram", f"{expected_gb:.1f} GB", "correct", None)]
        # cram leaves the schedule alone
        assert query_db("SELECT reps FROM card WHERE card_id = ?", DRILL) == [(0,)]


async def test_numeric_drill_wrong_answer_names_the_mistake(app_factory, query_db):
    setup = setup_from_options(DRILL_SETUP)
    forgot_optimizer_gb = mistake_values(setup, "model_states")["no-optimizer"] / 1e9
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await drill_screen(app, pilot, DRILL)
        box = screen.query_one("#drill-input", Input)
        box.value = f"{forgot_optimizer_gb:.2f}"  # unitless: read in the drill's unit (GB)
        await pilot.press("enter")
        await pilot.pause()
        grade = screen.grade
        assert grade.verdict == "wrong"
        assert grade.mistake_id == "no-optimizer"
        verdict = static_text(screen.query_one("#verdict", Static))
        assert say("no-optimizer", "en") in verdict  # the grade carries the id; the screen names it
        assert screen.query_one("#rating-bar").suggested == 1
        await pilot.press("1")
        await settle(app, pilot)
        assert log_rows(query_db) == [(DRILL, 1, "cram", f"{forgot_optimizer_gb:.2f}", "wrong", "no-optimizer")]


async def test_unparseable_answer_can_be_retyped(app_factory, query_db):
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await drill_screen(app, pilot, DRILL)
        box = screen.query_one("#drill-input", Input)
        box.value = "about a lot"
        await pilot.press("enter")
        await pilot.pause()
        assert screen.grade.verdict == "unparseable"
        assert not screen.revealed
        assert not box.disabled and box.value == "about a lot"  # kept, to fix
        assert not screen.check_action("rate", ())
        box.value = "1 GB"
        await pilot.press("enter")
        await pilot.pause()
        assert screen.grade.verdict == "wrong"
        assert screen.revealed
        assert log_rows(query_db) == []


async def test_cram_topic_from_home_logs_cram_rows_without_rescheduling(app_factory, query_db, bank):
    app = app_factory()
    topic_cards = [c.card_id for c in bank.cards() if c.topic == "inference"]
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("c")
        await pilot.pause()
        from quizapp.tui.screens.topic_picker import TopicPickerScreen

        assert isinstance(app.screen, TopicPickerScreen)
        options = app.screen.query_one("OptionList")
        index = options.get_option_index("inference")
        options.highlighted = index
        await pilot.press("enter")
        await settle(app, pilot)
        screen = app.screen
        assert screen.mode == "cram" and screen.topic == "inference"
        assert screen.current.card_id == topic_cards[0]  # the walk through the list: tests/practice
        await pilot.press("ctrl+r", "2")  # reveal, Hard
        await settle(app, pilot)
        assert screen.current.card_id == topic_cards[1]
    assert log_rows(query_db) == [(topic_cards[0], 2, "cram", None, None, None)]
    assert query_db("SELECT SUM(reps) FROM card") == [(0,)]


async def test_escape_leaves_the_editor_before_going_home(app_factory):
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await on_text_cards(app, pilot)
        area = screen.query_one("#own-answer", TextArea)
        area.focus()
        await pilot.press("x")
        await pilot.press("escape")
        assert app.screen is screen and area.text == "x"
        await pilot.press("escape")
        from quizapp.tui.screens.home import HomeScreen

        assert isinstance(app.screen, HomeScreen)


async def test_database_error_shows_a_message_and_keeps_the_typed_answer(app_factory, store, query_db):
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await on_text_cards(app, pilot)
        area = screen.query_one("#own-answer", TextArea)
        area.load_text("my careful answer [b]")

        def broken(*args, **kwargs):
            from quizapp.store import StoreError

            raise StoreError("review.sqlite3: database is locked")

        store.review = broken
        shown: list[str] = []
        notify = app.notify
        app.notify = lambda message, **kw: (shown.append(str(message)), notify(message, **kw))[1]
        await pilot.press("ctrl+r", "3")
        await settle(app, pilot)
        assert app.screen is screen and not screen.busy  # the keys work again
        assert area.text == "my careful answer [b]"
        assert any("database is locked" in message for message in shown)  # said once, by the app
        assert log_rows(query_db) == []


async def test_edit_runs_the_editor_and_reloads_the_question(app_factory, tiny_bank_dir, tmp_path):
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys, pathlib\n"
        "p = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text(encoding='utf-8').replace('generic alias', 'EDITED alias'), encoding='utf-8')\n"
    )
    import sys

    app = app_factory(editor=f"{sys.executable} {script}")
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await on_text_cards(app, pilot)
        assert screen.current.card_id == "brackets/question/main"
        await pilot.press("e")  # the focus is outside the answer box (issue 13): e edits
        await settle(app, pilot)
        assert "EDITED alias" in app.bank.question("brackets").answer
        await pilot.press("ctrl+r")
        await pilot.pause()
        answer = screen.query_one("#answer .answer--standard", Markdown)
        assert "EDITED" in answer.source


@pytest.mark.parametrize("lang, again", [("en", "Again"), ("zh", "重来")])
async def test_rating_buttons_speak_the_language(app_factory, lang, again):
    app = app_factory(lang=lang)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await start_review(app, pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()
        labels = [str(b.label) for b in screen.query("#rating-bar Button")]
        assert labels[0].startswith(f"1 {again}")
        if lang == "zh":
            assert [label.split()[1] for label in labels] == ["重来", "困难", "良好", "简单"]


def shown_keys(screen) -> set[str]:
    """The keys the footer shows now (bindings whose check_action hides them are left out)."""
    return {key for key, active in screen.active_bindings.items() if active.binding.show}


async def test_worked_solution_shows_each_terms_formula_and_numbers_in_full(app_factory):
    """The breakdown's columns are term, formula with numbers, GB, GiB, and at 80 columns no formula
    is cut off: every term's substituted numbers are in the rendered table."""
    from rich.console import Console

    from quizapp.memory import breakdown
    from quizapp.tui.widgets.breakdown_table import BreakdownTable, breakdown_rich_table

    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await drill_screen(app, pilot, DRILL)
        screen.query_one("#drill-input", Input).value = "1 GB"
        await pilot.press("enter")
        await settle(app, pilot)
        table = screen.query_one("#answer").query_one(BreakdownTable)
        shown = table.breakdown
        assert shown.total == breakdown(setup_from_options(DRILL_SETUP)).total
        headers = [str(c.header) for c in breakdown_rich_table(shown).columns]
        assert headers == ["Term", "Formula", "GB", "GiB"]
        width = table.query_one(".breakdown--table").size.width
        assert 0 < width <= 80
        console = Console(width=width, record=True, file=open(os.devnull, "w"))
        console.print(breakdown_rich_table(shown))
        flat = "".join(console.export_text().split())
        for term in shown.terms:
            # Folded lines of one cell sit between the other columns' figures: every piece of the
            # formula and its numbers is there, in order (nothing was cut off).
            pieces = [re.escape(c) for c in f"{term.formula}={term.substituted}" if not c.isspace()]
            assert re.search(".*?".join(pieces), flat, re.S), term.name


async def test_after_reveal_the_keyboard_scrolls_to_the_answer_and_rates(app_factory, query_db):
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await drill_screen(app, pilot, DRILL)
        screen.query_one("#drill-input", Input).value = "1 GB"
        await pilot.press("enter")
        await settle(app, pilot)
        area = screen.query_one("#card-area")
        assert screen.revealed and screen.focused is area
        assert area.max_scroll_y > 0  # the answer is below the fold at 80x24
        assert "pagedown" in shown_keys(screen)
        await pilot.press("pagedown")
        await pilot.pause()
        assert area.scroll_y > 0
        await pilot.press("down", "up")  # arrows scroll too; none of them rates
        await settle(app, pilot)
        assert log_rows(query_db) == []
        await pilot.press("enter")  # Enter still accepts the suggestion (Again: the answer was wrong)
        await settle(app, pilot)
        assert [r[:2] for r in log_rows(query_db)] == [(DRILL, 1)]


async def test_footer_shows_ctrl_keys_in_a_box_and_space_u_outside(app_factory, query_db):
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await drill_screen(app, pilot, "brackets/question/main")
        assert not isinstance(screen.focused, TextArea)  # issue 13: Space reveals, `a` focuses the box
        await pilot.press("a")
        assert isinstance(screen.focused, TextArea)
        keys = shown_keys(screen)
        assert {"ctrl+r", "ctrl+z"} <= keys and not {"space", "u"} & keys
        await pilot.press("escape")  # leave the box
        keys = shown_keys(screen)
        assert {"space", "u"} <= keys and not {"ctrl+r", "ctrl+z"} & keys
        await pilot.press("space")  # space reveals outside the box
        assert screen.revealed
        await pilot.press("3")
        await settle(app, pilot)
        assert len(log_rows(query_db)) == 1


async def test_ctrl_r_grades_a_typed_drill_answer_before_revealing(app_factory, query_db):
    expected_gb = evaluate(setup_from_options(DRILL_SETUP), "model_states") / 1e9
    app = app_factory()
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await drill_screen(app, pilot, DRILL)
        box = screen.query_one("#drill-input", Input)
        assert screen.focused is box
        await pilot.press(*f"{expected_gb:.0f}")
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert screen.revealed and screen.grade is not None and screen.grade.verdict == "correct"
        assert screen.query_one("#rating-bar").suggested == 3
        await pilot.press("enter")
        await settle(app, pilot)
        assert log_rows(query_db) == [(DRILL, 3, "cram", f"{expected_gb:.0f}", "correct", None)]


async def test_undo_brings_the_card_back_as_it_was(app_factory, query_db):
    """The same drill variant (not a fresh draw: seed None draws anew each time) and the typed
    answers back in their boxes."""
    app = app_factory(seed=None)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        app.open_review("cram", card_ids=["brackets/question/main", DRILL, "kv-drill/question/main"])
        await settle(app, pilot)
        screen = app.screen
        screen.query_one("#own-answer", TextArea).load_text("list[int] is [/] generic")
        await pilot.press("ctrl+r", "3")
        await settle(app, pilot)
        assert screen.current.card_id == DRILL
        variant = screen.variant
        screen.query_one("#drill-input", Input).value = "1 GB"
        await pilot.press("enter")
        await pilot.press("1")
        await settle(app, pilot)
        assert screen.current.card_id == "kv-drill/question/main"
        await pilot.press("ctrl+z")  # the new card's box is empty: undo the drill's rating
        await settle(app, pilot)
        assert screen.current.card_id == DRILL
        assert screen.variant is variant
        assert screen.query_one("#drill-input", Input).value == "1 GB"
        assert [r[0] for r in log_rows(query_db)] == ["brackets/question/main"]
        await pilot.press("ctrl+a", "ctrl+k")  # clear the box so ctrl+z undoes the rating, not the typing
        await pilot.press("ctrl+z")
        await settle(app, pilot)
        assert screen.current.card_id == "brackets/question/main"
        assert screen.query_one("#own-answer", TextArea).text == "list[int] is [/] generic"
        assert log_rows(query_db) == []


async def test_worked_solution_notes_follow_the_app_language(app_factory):
    from quizapp.memory import breakdown

    expected = breakdown(setup_from_options(DRILL_SETUP))
    first = expected.terms[0]
    note_zh = render(first.code, "zh")  # memory gives a code; quizapp.words says it in Chinese
    app = app_factory(lang="zh")
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await drill_screen(app, pilot, DRILL)
        screen.query_one("#drill-input", Input).value = "1 GB"
        await pilot.press("enter")
        await settle(app, pilot)
        notes = static_text(screen.query_one("#answer .breakdown--notes", Static))
        assert note_zh in notes
        table = screen.query_one("#answer .breakdown--table", Static).content  # the rich Table shown
        assert [str(c.header) for c in table.columns][1:] == ["公式", "GB", "GiB"]
