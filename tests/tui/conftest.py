"""Fixtures for the TUI tests, reusable by every screen's tests.

- `tiny_bank_dir`: a temporary content folder (tests/tui/bank_files.py) with three valid questions.
- `broken_bank_dir`: the same plus one file that fails validation (for the problems banner).
- `bank`: the loaded tiny bank; `clock`: a FakeClock; `scheduler_config`: fixed fuzz, UTC days.
- `store`: a Store on a file in tmp_path, synced with `bank`.
- `query_db(sql, *params)`: rows from the database file.
- `app_factory(**overrides)`: builds the app with `make_app` (AppSettings overrides as keywords;
  `bank=` and `store=` to swap those). Drill variants use a fixed seed so snapshots are stable.
"""

from __future__ import annotations

import sqlite3
from datetime import timezone
from pathlib import Path

import pytest

from tests.tui.bank_files import BRACKETS, BROKEN, FILES, KV_DRILL, SINGLE_GPU  # noqa: F401


def write_bank(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def tiny_bank_dir(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", FILES)


@pytest.fixture
def broken_bank_dir(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "broken-bank", {**FILES, "inference/broken.yaml": BROKEN})


@pytest.fixture
def bank(tiny_bank_dir: Path):
    from quizapp.content import load_bank

    loaded = load_bank([tiny_bank_dir])
    assert not loaded.problems, [str(p) for p in loaded.problems]
    return loaded


@pytest.fixture
def clock():
    from quizapp.clock import FakeClock

    return FakeClock()


@pytest.fixture
def scheduler_config():
    from quizapp.store import SchedulerConfig

    return SchedulerConfig(fuzz_seed=0, tz=timezone.utc)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "review.sqlite3"


@pytest.fixture
def store(db_path: Path, clock, bank, scheduler_config):
    from quizapp.store import Store

    opened = Store.open(db_path, clock, scheduler_config)
    opened.sync(bank.cards())
    yield opened
    opened.close()


@pytest.fixture
def app_factory(store, bank, clock, tiny_bank_dir: Path, db_path: Path):
    from quizapp.tui.app import AppSettings, make_app

    def build(*, bank=bank, store=store, **overrides):
        settings = AppSettings(
            **{
                "lang": "en",
                "content_dirs": (tiny_bank_dir,),
                "db_path": db_path,
                "editor": None,
                "seed": 7,
                **overrides,
            }
        )
        return make_app(settings, store, bank, clock)

    return build


@pytest.fixture
def query_db(db_path: Path):
    """query_db(sql, *params) -> rows, read with a second plain sqlite3 connection (what is on disk)."""

    def query(sql: str, *params) -> list[tuple]:
        conn = sqlite3.connect(db_path)
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    return query
