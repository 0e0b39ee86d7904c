"""Fixtures for the memory calculator tests."""

from __future__ import annotations

import pytest

from quizapp.memory import PRESETS, setup_from_options


@pytest.fixture
def llama7b():
    return PRESETS["llama-2-7b"]


@pytest.fixture
def make_setup():
    def make(**options):
        return setup_from_options(options)

    return make
