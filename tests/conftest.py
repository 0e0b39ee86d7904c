"""Hermetic defaults for every test: no test reads or writes the user's real data or settings."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _hermetic_environment(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("QUIZAPP_DB", str(tmp_path / "quizapp.sqlite3"))
    for name in ("QUIZAPP_CONTENT", "QUIZAPP_LANG", "EDITOR", "VISUAL"):
        monkeypatch.delenv(name, raising=False)
