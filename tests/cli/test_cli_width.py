"""The CLI's text fits the terminal (issue 22): at COLUMNS=80 no line of `stats`, `settings` or `calc` is
wider than 80 columns, counted in terminal cells (a Chinese character takes two), in both languages."""

from __future__ import annotations

import subprocess
import sys
import unicodedata

import pytest


def _cells(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


COMMANDS = [
    ["stats"],
    ["settings"],
    ["calc", "--model", "llama-3-70b", "--method", "inference", "--gpu", "h100-80g"],
    ["calc", "--model", "llama-2-7b", "--gpu", "a100-80g"],
]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_no_line_is_wider_than_80_columns(tmp_path, lang, argv):
    env = {"COLUMNS": "80", "LINES": "24", "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "quizapp", "--lang", lang, *argv], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) > 3
    # a line naming a file path may be longer: a path is never broken, so it can be copied whole
    wide = [(len(line), line) for line in lines if _cells(line) > 80 and str(tmp_path) not in line]
    assert not wide
