"""Writes the database refuses (issue 21): another program's file, a database nobody may write. The
command exits 2 with one line, and nothing is left behind: same bytes, no -wal, no -shm, no journal."""

from __future__ import annotations

import os
import subprocess

import pytest
from reliability_helpers import (assert_clean_failure, foreign_database, listing, run_in_process, run_quizapp,
                                 versioned_foreign_database)

from quizapp.clock import FakeClock
from quizapp.content import CardSpec
from quizapp.store import Store

WRITERS = {
    "settings": ["settings", "new_per_day", "5"],
    "app": [],  # `quizapp` itself: Store.open before the first frame
}


def _run(argv, path, workdir):
    if argv:
        return run_in_process(["--db", path, *argv])
    # the app in a child (it would start a terminal UI if it did not refuse), stdin closed, bounded
    return run_quizapp(["--db", path], cwd=workdir, timeout=30)


@pytest.mark.parametrize("which", sorted(WRITERS))
@pytest.mark.parametrize("kind", ["application-id", "user-version"])
def test_another_programs_database_is_refused_and_left_untouched(tmp_path, workdir, monkeypatch, which, kind):
    folder = tmp_path / "db"
    folder.mkdir()
    make = foreign_database if kind == "application-id" else versioned_foreign_database
    path = make(folder / "data.sqlite3")
    before = listing(folder)
    monkeypatch.chdir(workdir)
    result = _run(WRITERS[which], path, workdir)
    assert_clean_failure(result)
    assert result.returncode == 2 and "another application" in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1
    assert listing(folder) == before  # no quizapp tables were created inside it


def _immutable(path, on: bool) -> None:
    if os.geteuid() == 0:  # root ignores modes; the immutable attribute refuses even root
        subprocess.run(["chattr", "+i" if on else "-i", str(path)], check=True, capture_output=True)
    else:
        path.chmod(0o444 if on else 0o644)


@pytest.mark.parametrize("which", sorted(WRITERS))
def test_a_read_only_database_in_a_writable_folder_refuses_writes_and_leaves_nothing(tmp_path, workdir, monkeypatch,
                                                                                    which):
    folder = tmp_path / "db"
    folder.mkdir()
    path = folder / "q.sqlite3"
    with Store.open(path, FakeClock()) as store:
        store.sync([CardSpec("q0/question/main", "q0", "question", "main", "t", 0)])
    before = listing(folder)
    try:
        _immutable(path, True)
    except (subprocess.CalledProcessError, FileNotFoundError):
        pytest.skip("chattr is not available to make the file unwritable for root")
    monkeypatch.chdir(workdir)
    try:
        result = _run(WRITERS[which], path, workdir)
    finally:
        _immutable(path, False)
    assert_clean_failure(result)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and str(path) in result.stderr, result.stderr
    assert listing(folder) == before  # the folder is writable, yet no -wal or -shm appeared beside the file
