"""Issue 13: Home says how many bundled questions the user's own content folder overrides."""

from __future__ import annotations

from pathlib import Path

from quizapp.words import say
from tests.tui.conftest import write_bank
from tests.tui.bank_files import FILES


async def settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_home_says_how_many_bundled_questions_are_overridden(app_factory, tiny_bank_dir, tmp_path: Path):
    from quizapp.content import load_bank

    name = "inference/brackets.yaml"
    user_dir = write_bank(tmp_path / "mine", {name: FILES[name]})  # the user's copy of one question
    bank = load_bank([tiny_bank_dir], overrides=[user_dir])
    assert len(bank.overridden) == 1 and not bank.problems
    app = app_factory(bank=bank)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        line = app.screen.query_one("#overridden")
        assert line.display
        assert str(line.render()) == say("home.overridden", "en", n=1)
        assert "1 bundled question replaced" in str(line.render())


async def test_home_hides_the_override_line_when_nothing_is_overridden(app_factory, bank):
    assert bank.overridden == ()
    app = app_factory()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not app.screen.query_one("#overridden").display
