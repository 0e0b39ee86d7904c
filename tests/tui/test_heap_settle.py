"""The app settles the heap once its warm-up is over: collection on again, start-up's objects frozen."""

from __future__ import annotations

import gc

import pytest

from quizapp import heap


@pytest.fixture
def held_collection():
    heap.hold()  # as `quizapp` run as a command does before the app starts
    yield
    gc.unfreeze()
    gc.enable()


async def test_collection_is_on_again_after_the_warm_up(app_factory, held_collection):
    app = app_factory()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert gc.isenabled()
        assert gc.get_freeze_count() > 10_000  # the modules, the bank and the screens: never walked again
