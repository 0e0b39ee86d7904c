"""Global flags shared by every subcommand and the TUI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from quizapp import __version__
from quizapp.cli import build_parser, resolve_options


def test_version_flag():
    out = subprocess.run([sys.executable, "-m", "quizapp", "--version"], capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout.strip() == f"quizapp {__version__}"


def test_unknown_flag_is_one_line_exit_2():
    out = subprocess.run([sys.executable, "-m", "quizapp", "--no-such-flag"], capture_output=True, text=True)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_content_flag_beats_environment(tmp_path):
    args = build_parser().parse_args(["--content", str(tmp_path / "a"), "--content", str(tmp_path / "b")])
    env = {"QUIZAPP_CONTENT": os.pathsep.join([str(tmp_path / "x")])}
    assert resolve_options(args, env).content_dirs == (tmp_path / "a", tmp_path / "b")


def test_environment_lists_content_dirs_and_db(tmp_path):
    args = build_parser().parse_args([])
    env = {"QUIZAPP_CONTENT": os.pathsep.join([str(tmp_path / "x"), str(tmp_path / "y")]),
           "QUIZAPP_DB": str(tmp_path / "q.db")}
    options = resolve_options(args, env)
    assert options.content_dirs == (tmp_path / "x", tmp_path / "y")
    assert options.db_path == Path(tmp_path / "q.db")
    assert options.lang == "en"


def test_bad_language_in_environment_is_one_line():
    env = dict(os.environ, QUIZAPP_LANG="fr")
    out = subprocess.run([sys.executable, "-m", "quizapp", "calc", "--help"], capture_output=True, text=True, env=env)
    assert out.returncode == 0  # --help exits before options are resolved
    out = subprocess.run([sys.executable, "-m", "quizapp", "schema"], capture_output=True, text=True, env=env)
    assert out.returncode == 2
    assert out.stderr.strip() == "quizapp: QUIZAPP_LANG='fr': expected 'en' or 'zh'"
