"""Fixtures for the bilingual and key-point tests: the bundled bank as loaded and a folder holding the
small bilingual question of fixture_files.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bilingual.fixture_files import KV_POINTS


@pytest.fixture(scope="session")
def bundled():
    from quizapp.content import load_bank
    from quizapp.locations import bundled_content_dir

    return load_bank([bundled_content_dir()], authoring=True)  # as `validate` loads it


@pytest.fixture
def kv_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bank" / "inference"
    folder.mkdir(parents=True)
    (folder / "kv-points.yaml").write_text(KV_POINTS, encoding="utf-8")
    return tmp_path / "bank"


@pytest.fixture
def kv_app(kv_dir, tmp_path):
    """app(lang) -> the app on the bilingual fixture bank and a fresh database (plus its path)."""
    from datetime import timezone

    from quizapp.clock import FakeClock
    from quizapp.content import load_bank
    from quizapp.store import SchedulerConfig, Store
    from quizapp.tui.app import AppSettings, make_app

    opened = []

    def build(lang: str = "en"):
        bank = load_bank([kv_dir])
        assert bank.problems == ()
        path = tmp_path / f"{lang}.sqlite3"
        store = Store.open(path, FakeClock(), SchedulerConfig(fuzz_seed=0, tz=timezone.utc))
        store.sync(bank.cards())
        opened.append(store)
        settings = AppSettings(lang=lang, content_dirs=(kv_dir,), db_path=path, seed=7)
        return make_app(settings, store, bank, FakeClock()), path

    yield build
    for store in opened:
        store.close()


def write_question(folder: Path, text: str, name: str = "kv-points") -> Path:
    path = folder / "inference" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
