"""Fixtures for the store tests: a FakeClock and Stores on files in tmp_path."""

from __future__ import annotations

from datetime import timezone
from pathlib import Path

import pytest

from quizapp.clock import FakeClock
from quizapp.store import SchedulerConfig, Store


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()  # 2026-11-29 12:00 UTC


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "data" / "quizapp.sqlite3"


@pytest.fixture
def open_store(db_path, clock):
    """open_store(**config) -> a Store on db_path (UTC days, seeded fuzz unless overridden)."""
    opened: list[Store] = []

    def _open(path: Path | None = None, **overrides) -> Store:
        options = dict(tz=timezone.utc, fuzz_seed=1234)
        options.update(overrides)
        store = Store.open(path or db_path, clock, SchedulerConfig(**options))
        opened.append(store)
        return store

    yield _open
    for store in opened:
        store.close()
