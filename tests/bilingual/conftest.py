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

    return load_bank([bundled_content_dir()])


@pytest.fixture
def kv_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bank" / "inference"
    folder.mkdir(parents=True)
    (folder / "kv-points.yaml").write_text(KV_POINTS, encoding="utf-8")
    return tmp_path / "bank"


def write_question(folder: Path, text: str, name: str = "kv-points") -> Path:
    path = folder / "inference" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
