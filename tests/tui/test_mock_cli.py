"""`quizapp mock` flags: bad values are one line on stderr with exit status 2, before the terminal is taken."""

from __future__ import annotations

import subprocess
import sys

import pytest
from mock_support import write_bank


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "quizapp", *args], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--minutes", "abc"], "--minutes: expected minutes as a number"),
        (["--minutes", "0"], "--minutes: expected minutes > 0"),
        (["--minutes", "nan"], "--minutes: expected minutes > 0"),
        (["--questions", "0"], "--questions: expected a whole number >= 1"),
        (["--followups", "-1"], "--followups: expected a whole number >= 0"),
        (["--calcs", "-1"], "--calcs: expected a whole number >= 0"),
        (["--calcs", "two"], "--calcs: expected a whole number"),
        (["--seed", "x"], "--seed: expected a whole number"),
    ],
)
def test_bad_flags_are_one_line(flags, message):
    result = run_cli("mock", *flags)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_unknown_topic_names_the_topics(tmp_path):
    bank = write_bank(tmp_path / "bank")
    result = run_cli("--content", str(bank), "--db", str(tmp_path / "db.sqlite3"), "mock", "--topic", "nope")
    assert result.returncode == 2
    assert result.stderr.strip() == "quizapp: --topic: unknown topic nope; topics are: t-one, t-two"


def test_resume_without_an_unfinished_interview(tmp_path):
    bank = write_bank(tmp_path / "bank")
    result = run_cli("--content", str(bank), "--db", str(tmp_path / "db.sqlite3"), "mock", "--resume")
    assert result.returncode == 2
    assert result.stderr.strip() == "quizapp: --resume: there is no unfinished mock interview to resume"
