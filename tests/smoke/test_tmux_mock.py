"""Smoke test: the real `quizapp mock` command in tmux, a one-question mock (question + one follow-up)
to the debrief and a clean quit, on a temporary database; then the stored session is checked on disk."""

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
from mock_support import write_bank

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

TIMEOUT_S = float(os.environ.get("QUIZAPP_SMOKE_TIMEOUT", "30"))  # raise on a slow machine


class Tmux:
    """One detached tmux session on a private server socket (never the user's own tmux)."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path) -> None:
        self.socket = f"quizapp-mock-{uuid.uuid4().hex[:8]}"
        self.name = "mock"
        exports = " ".join(f"{k}={_quote(v)}" for k, v in env.items())
        shell = f"cd {_quote(str(cwd))} && env {exports} {' '.join(_quote(c) for c in command)}"
        self.tmux("new-session", "-d", "-s", self.name, "-x", "100", "-y", "32", shell)

    def tmux(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name).stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        self.tmux("send-keys", "-t", self.name, *(["-l"] if literal else []), *keys)

    def wait_for(self, text: str) -> str:
        deadline = time.monotonic() + TIMEOUT_S
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{text!r} did not appear; the screen was:\n{shown}")

    def wait_exit(self) -> None:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            if self.tmux("has-session", "-t", self.name).returncode != 0:
                return
            time.sleep(0.2)
        raise AssertionError(f"quizapp did not exit; the screen was:\n{self.screen()}")

    def kill(self) -> None:
        self.tmux("kill-server")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def test_one_question_mock_in_tmux(tmp_path):
    bank = write_bank(tmp_path / "bank")
    db = tmp_path / "smoke.sqlite3"
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
           "TERM": "xterm-256color", "QUIZAPP_DB": str(db), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = [sys.executable, "-m", "quizapp", "--content", str(bank), "mock", "--questions", "1",
               "--followups", "1", "--minutes", "1", "--topic", "t-two", "--seed", "1"]
    session = Tmux(command, env, tmp_path)
    try:
        session.wait_for("Question 1 of 1")
        assert "This step" in session.screen() and "Interview" in session.screen()
        session.keys("my first answer", literal=True)
        session.wait_for("my first answer")
        session.keys("C-o")  # pause from inside the editor: a key the terminal delivers, nothing typed
        session.wait_for("PAUSED")
        session.keys("C-o")
        session.wait_for("Pause (ctrl+o)")
        session.keys("C-n")
        session.wait_for("follow-up 1 of 1")
        session.keys("a follow-up answer", literal=True)
        session.wait_for("a follow-up answer")
        session.keys("C-n")
        shown = session.wait_for("Debrief")
        assert "2/2 answered" in shown
        session.keys("Escape")
        session.wait_for("Today")  # Home
        session.keys("q")
        session.wait_exit()
    finally:
        session.kill()

    conn = sqlite3.connect(db)
    try:
        completed, questions = conn.execute("SELECT completed, question_count FROM mock_session").fetchone()
        drafts = conn.execute("SELECT kind, draft, answered_at IS NOT NULL FROM mock_item ORDER BY position").fetchall()
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()
    assert (completed, questions) == (1, 1)
    assert drafts == [("question", "my first answer", 1), ("followup", "a follow-up answer", 1)]
    assert integrity == "ok"
