import pytest
from tests.tui.test_tui_snapshots import cram, settle
from textual.widgets import Tabs, Tab

@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_probe(app_factory, lang):
    app = app_factory(lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await cram(pilot, "brackets/question/main")
        await pilot.press("ctrl+r")
        await settle(pilot)
        tabs = app.screen.query_one("#answer-tabs Tabs", Tabs)
        print(lang, "tabs region", tabs.region, "scroll", tabs.query_one("#tabs-scroll").region, tabs.query_one("#tabs-list").region)
        for t in tabs.query(Tab):
            print("  ", t.id, t.region, repr(str(t.label)))
        print(app.screen.query_one("#card-area").region)
