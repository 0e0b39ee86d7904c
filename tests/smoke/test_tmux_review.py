"""The real `quizapp` command in a real terminal (tmux): one review and a clean quit, on a tmp database."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

QUESTION = """\
id: smoke-question
title: "Smoke test: why is [/] shown literally?"
topic: smoke
lang: en
answer: |
  Because YAML text is never Textual markup.
"""


# a private tmux server per run (never the user's own, whose environment a session would inherit)
SOCKET = f"quizapp-smoke-{uuid.uuid4().hex[:8]}"
# how long to wait for a screen; raise it on a slow machine (QUIZAPP_SMOKE_TIMEOUT=60)
TIMEOUT_S = float(os.environ.get("QUIZAPP_SMOKE_TIMEOUT", "20"))


def tmux(*args: str, check: bool = True) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], check=check, capture_output=True, text=True).stdout


def wait_for(session: str, needle: str, timeout: float = TIMEOUT_S) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", session, check=False)
        if needle in screen:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{needle!r} not on screen after {timeout}s:\n{screen}")


def test_one_review_and_a_clean_quit(tmp_path: Path):
    bank = tmp_path / "bank" / "smoke"
    bank.mkdir(parents=True)
    (bank / "smoke-question.yaml").write_text(QUESTION, encoding="utf-8")
    db = tmp_path / "smoke.sqlite3"
    session = f"quizapp-smoke-{os.getpid()}"
    status = tmp_path / "status"
    command = (
        f"QUIZAPP_DB={db} {sys.executable} -m quizapp --content {tmp_path / 'bank'}; echo $? > {status}"
    )
    env_home = tmp_path / "home"
    hermetic = {  # every location and language setting the app reads, so nothing leaks in from outside
        "HOME": str(env_home), "TERM": "xterm-256color", "XDG_CONFIG_HOME": str(env_home / ".config"),
        "XDG_DATA_HOME": str(env_home / ".local" / "share"), "XDG_STATE_HOME": str(env_home / ".local" / "state"),
        "XDG_CACHE_HOME": str(env_home / ".cache"), "QUIZAPP_LANG": "en", "QUIZAPP_CONTENT": "",
    }
    exports = [arg for key, value in hermetic.items() for arg in ("-e", f"{key}={value}")]
    tmux("new-session", "-d", "-x", "100", "-y", "30", "-s", session, *exports, command)
    try:
        wait_for(session, "smoke")  # home lists the topic
        tmux("send-keys", "-t", session, "r")
        wait_for(session, "why is [/] shown literally?")
        tmux("send-keys", "-t", session, "a")  # into the answer box (a card opens with the keys of Anki)
        wait_for(session, "^r Reveal")
        tmux("send-keys", "-t", session, "-l", "use [b]markup[/b] 2")
        wait_for(session, "use [b]markup[/b] 2")
        tmux("send-keys", "-t", session, "C-r")
        wait_for(session, "never Textual markup")
        tmux("send-keys", "-t", session, "4")  # Easy: graduates, so the session ends
        wait_for(session, "Cards reviewed: 1")
        tmux("send-keys", "-t", session, "q")
        deadline = time.monotonic() + TIMEOUT_S
        while not status.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status.read_text().strip() == "0"
    finally:
        tmux("kill-server", check=False)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT card_id, rating, mode, answer FROM review_log").fetchall()
    assert rows == [("smoke-question/question/main", 4, "review", "use [b]markup[/b] 2")]
