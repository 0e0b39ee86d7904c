"""Fixtures for the daily-practice tests: the bundled bank and Stores on files in tmp_path."""

from __future__ import annotations

from quizapp.content.localize import localized

from datetime import timezone

import pytest

from quizapp.clock import FakeClock
from quizapp.store import SchedulerConfig, Store


@pytest.fixture(scope="session")
def bundled_bank():
    from quizapp.content import load_bank
    from quizapp.locations import bundled_content_dir

    return localized(load_bank([bundled_content_dir()]), "zh")  # the bank as a Chinese UI shows it


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()  # 2026-11-29 12:00 UTC


@pytest.fixture
def open_store(tmp_path, clock):
    """open_store(**config) -> a Store on a file in tmp_path (UTC days, seeded fuzz, default limits)."""
    opened: list[Store] = []

    def _open(name: str = "quizapp.sqlite3", **overrides) -> Store:
        options = dict(tz=timezone.utc, fuzz_seed=1234)
        options.update(overrides)
        store = Store.open(tmp_path / name, clock, SchedulerConfig(**options))
        opened.append(store)
        return store

    yield _open
    for store in opened:
        store.close()
