"""quizapp.heap: collection is held through start-up and on again afterwards, never left off by a test."""

from __future__ import annotations

import gc
import subprocess
import sys

import pytest

from quizapp import heap


@pytest.fixture
def restore_gc():
    yield
    gc.unfreeze()
    gc.enable()


def test_settle_without_hold_neither_freezes_nor_changes_collection(restore_gc):
    frozen = gc.get_freeze_count()
    heap.settle()
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen  # a freeze here would keep a test process's garbage forever


def test_hold_then_settle_freezes_what_is_alive_and_collects_again(restore_gc):
    heap.hold()
    assert not gc.isenabled()
    frozen = gc.get_freeze_count()
    survivor = [[n] for n in range(1000)]  # alive at settle (and tracked): frozen with the rest
    heap.settle()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(survivor)


def _collection_after_main(call: str) -> str:
    script = ("import gc, sys; sys.argv = ['quizapp', 'schema']; from quizapp.cli import main; "
              "import contextlib, io\n"
              f"with contextlib.redirect_stdout(io.StringIO()): rc = {call}\n"
              "print(rc, gc.isenabled())")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()


def test_a_short_command_run_as_the_process_holds_collection():
    assert _collection_after_main("main()") == ["0", "False"]


def test_main_called_with_arguments_leaves_collection_alone():
    # tests call main([...]) in their own process: holding there would switch off the suite's collector
    assert _collection_after_main("main(['schema'])") == ["0", "True"]
