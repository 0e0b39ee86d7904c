"""Helpers for the reliability tests. Running quizapp in a child process the way a user (or a script) does: real argv, real files,
a timeout, optionally a memory limit (resource.setrlimit), and the TUI (and the web server of `serve`)
replaced by a no-op so a command that would start it returns instead of waiting for a terminal."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The child: App.run becomes a no-op as soon as textual.app is imported (whichever command imports it),
# and so does aiohttp's run_app (`quizapp serve` returns once its socket is bound, instead of serving).
DRIVER = r"""
import importlib.abc, importlib.util, sys

PATCHES = {
    "textual.app": lambda module: setattr(module.App, "run", lambda self, *a, **k: None),
    "aiohttp.web": lambda module: setattr(module, "run_app", lambda app, *a, **k: getattr(app, "close", lambda: None)()),
}

class _NoTui(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in PATCHES:
            return None
        patch = PATCHES.pop(name)
        if not PATCHES:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run_module = spec.loader.exec_module

        def exec_module(module):
            run_module(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, _NoTui())
limit = int(sys.argv[1])
if limit:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from quizapp.cli import main
sys.exit(main(sys.argv[2:]))
"""


@dataclass(frozen=True)
class Result:
    returncode: int
    stdout: str
    stderr: str


def run_quizapp(args, *, cwd: Path, env: dict | None = None, timeout: float = 60,
                memory_limit: int = 0) -> Result:
    """quizapp ARGS in a child process (stdin closed); memory_limit in bytes (0 = none)."""
    environ = {**os.environ, **(env or {})}
    done = subprocess.run([sys.executable, "-c", DRIVER, str(memory_limit), *map(str, args)], cwd=cwd,
                          env=environ, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    return Result(done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))


def assert_clean_failure(result: Result, codes=(0, 1, 2)) -> None:
    """Exit 0, 1 or 2, and no traceback: an error is one line."""
    assert result.returncode in codes, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr, result.stderr[-4000:]
    assert "\x1b" not in result.stderr, repr(result.stderr[-500:])


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listing(folder: Path) -> dict[str, str]:
    """Every file in `folder` with its sha256: what must not change (no -wal, no -shm, same bytes)."""
    return {p.name: sha256(p) if p.is_file() else "dir" for p in sorted(folder.iterdir())}


def foreign_database(path: Path) -> Path:
    """An SQLite database of another application: a table with a row, and its own application_id."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 1234")
    conn.execute("CREATE TABLE contacts (name TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('ada')")
    conn.commit()
    conn.close()
    return path


def foreign_wal_database(path: Path) -> Path:
    """Another application's database in WAL mode, closed cleanly (no -wal beside it), no application_id."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('hello')")
    conn.commit()
    conn.close()
    assert not Path(f"{path}-wal").exists()
    return path


def versioned_foreign_database(path: Path) -> Path:
    """Another program's file that marks itself only with PRAGMA user_version (no tables yet, no application_id):
    quizapp never sets user_version, so such a file is not an empty database for quizapp to fill."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    return path


def empty_sqlite_file(path: Path) -> Path:
    """An empty SQLite file another application created (a header, no tables), in WAL mode."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA user_version = 0")
    conn.commit()
    conn.close()
    return path


def run_in_process(args) -> Result:
    """quizapp ARGS through quizapp.cli.main in this process (fast; for checks on files, not on crashes
    of the interpreter). SystemExit from argparse becomes the exit status; any other exception fails."""
    import contextlib
    import io

    from quizapp.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return Result(code, out.getvalue(), err.getvalue())
