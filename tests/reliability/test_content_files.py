"""One bounded reader for every content path: FIFOs and devices are refused by name without blocking
or reading without bound (checked in a child process under a memory limit, with a timeout), and
nothing in a content folder disappears silently."""

from __future__ import annotations

import errno
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from reliability_helpers import ROOT, assert_clean_failure, run_quizapp

from quizapp.content.bank import load_bank
from quizapp.content.files import ContentReadError, find_question_files, read_bounded

GOOD = ROOT / "tests" / "content" / "fixtures" / "good" / "llm-training" / "mini-adamw.yaml"
MEMORY_LIMIT = 1 << 30  # 1 GiB of address space: /dev/zero read without bound would pass it in about a second
posix_only = pytest.mark.skipif(os.name != "posix" or not Path("/dev/zero").exists(), reason="needs FIFOs and /dev/zero")


def _good_copy(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / GOOD.name
    shutil.copy(GOOD, target)
    return target


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    return path


@pytest.fixture
def zero_link(tmp_path) -> Path:
    path = tmp_path / "zero.yaml"
    path.symlink_to("/dev/zero")
    return path


@posix_only
def test_the_reader_names_a_fifo_without_blocking(fifo):
    with pytest.raises(ContentReadError) as err:
        read_bounded(fifo)
    assert err.value.reason.startswith("is a FIFO")


@posix_only
def test_the_reader_names_a_device_without_reading_it(zero_link):
    with pytest.raises(ContentReadError) as err:
        read_bounded(zero_link)
    assert err.value.reason == "is a device"


def test_the_reader_reads_at_most_the_limit_plus_one_byte(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"x" * 5000)
    with pytest.raises(ContentReadError, match="the limit is 4,096 bytes"):
        read_bounded(path, limit=4096)
    assert read_bounded(path, limit=5000) == b"x" * 5000


def test_the_reader_names_dangling_links_loops_folders_and_long_paths(tmp_path):
    (tmp_path / "dangling.yaml").symlink_to(tmp_path / "nowhere")
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    (tmp_path / "folder.yaml").mkdir()
    cases = {"dangling.yaml": "dangling symlink", "a.yaml": "symlink loop", "folder.yaml": "is a directory",
             "x" * 300 + ".yaml": "path too long"}
    for name, reason in cases.items():
        with pytest.raises(ContentReadError) as err:
            read_bounded(tmp_path / name)
        assert err.value.reason.startswith(reason), (name, err.value.reason)


def _refuse(monkeypatch, name: str, target: Path) -> None:
    """Make `os.<name>` fail with EACCES for `target`, as it does for a normal user on a mode-0 path:
    root ignores modes, so a chmod alone would leave the refusal untested in CI (the audit's item 3)."""
    real = getattr(os, name)

    def refusing(path, *args, **kwargs):
        if Path(os.fsdecode(path)) == target:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, name, refusing)


def test_the_reader_names_permission_denied(tmp_path, monkeypatch):
    path = _good_copy(tmp_path)
    path.chmod(0)  # refused for a normal user by the kernel ...
    if os.geteuid() == 0:
        _refuse(monkeypatch, "open", path)  # ... and for root by the same errno from os.open
    try:
        with pytest.raises(ContentReadError, match="permission denied"):
            read_bounded(path)
    finally:
        path.chmod(0o644)


@posix_only
@pytest.mark.parametrize("which", ["fifo", "zero_link"])
@pytest.mark.parametrize("command", ["validate", "preview"])
def test_validate_and_preview_refuse_fifos_and_devices_under_a_memory_limit(request, tmp_path, which, command):
    path = request.getfixturevalue(which)
    result = run_quizapp([command, path], cwd=tmp_path, timeout=30, memory_limit=MEMORY_LIMIT)
    assert_clean_failure(result)
    assert result.returncode == 2, result.stderr
    reason = "is a FIFO" if which == "fifo" else "is a device"
    assert reason in result.stderr and result.stderr.count("\n") == 1


@posix_only
def test_a_content_folder_lists_every_entry_it_cannot_read(tmp_path):
    """Under a memory limit, with a timeout: the bank loads in a child process, every bad entry is a problem."""
    root = tmp_path / "content"
    _good_copy(root / "t")
    (root / "t" / "dangling.yaml").symlink_to(root / "t" / "gone.yaml")
    (root / "t" / "loop-a.yaml").symlink_to(root / "t" / "loop-b.yaml")
    (root / "t" / "loop-b.yaml").symlink_to(root / "t" / "loop-a.yaml")
    os.mkfifo(root / "t" / "pipe.yaml")
    (root / "t" / "zero.yaml").symlink_to("/dev/zero")
    (root / "x.yaml").mkdir()
    (root / "gone-folder").symlink_to(root / "nothing-here")
    (root / "t" / "again").symlink_to(root / "t")  # a folder reached twice: searched once
    (root / ".hidden.yaml").symlink_to("/dev/zero")  # dot names are never content
    result = run_quizapp(["validate", root], cwd=tmp_path, timeout=60, memory_limit=MEMORY_LIMIT)
    assert_clean_failure(result)
    assert result.returncode == 1
    lines = [line for line in result.stdout.splitlines() if line.startswith(str(root)) and ": warning: " not in line]
    expected = {
        "t/dangling.yaml": "dangling symlink", "t/loop-a.yaml": "symlink loop", "t/loop-b.yaml": "symlink loop",
        "t/pipe.yaml": "is a FIFO", "t/zero.yaml": "is a device", "x.yaml": "is a directory",
        "gone-folder": "dangling symlink",
    }
    for name, reason in expected.items():
        assert any(line.startswith(f"{root / name}:1:1: (file): {reason}") for line in lines), (name, lines)
    assert len(lines) == len(expected), lines
    assert "1 questions" in result.stderr  # the good file still loads, once


def test_bank_problems_include_unreadable_entries(tmp_path):
    root = tmp_path / "content"
    _good_copy(root / "t")
    (root / "t" / "dangling.yaml").symlink_to(root / "missing.yaml")
    (root / "sub.yaml").mkdir()
    bank = load_bank([root])
    assert len(bank.questions) == 1
    assert sorted(p.file.name for p in bank.problems) == ["dangling.yaml", "sub.yaml"]  # the app's banner counts these


def test_an_unreadable_folder_is_a_problem(tmp_path, monkeypatch):
    root = tmp_path / "content"
    _good_copy(root / "t")
    locked = root / "locked"
    locked.mkdir()
    locked.chmod(0)
    if os.geteuid() == 0:
        _refuse(monkeypatch, "scandir", locked)
    try:
        files, problems = find_question_files([root])
    finally:
        locked.chmod(0o755)
    assert [(p.name, r) for p, r in problems] == [("locked", "cannot list this folder: permission denied")]
    assert len(files) == 1


@posix_only
def test_preview_model_shows_validates_reason_for_a_fifo(tmp_path, fifo):
    """The preview screen's loader (run in a thread by the screen) returns the same one-line reason."""
    code = ("import sys; from pathlib import Path; from quizapp.tui.screens.preview import build_preview_model; "
            "m = build_preview_model(Path(sys.argv[1]), 0); print(m.unreadable)")
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=30,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT * 2, MEMORY_LIMIT * 2)))
    assert done.returncode == 0, done.stderr
    problems = load_bank([fifo]).problems
    assert done.stdout.strip() == "is a FIFO (named pipe)"
    assert problems[0].message.startswith("is a FIFO (named pipe)")


@posix_only
def test_preview_model_of_a_link_to_dev_zero_is_bounded(tmp_path, zero_link):
    code = ("import sys; from pathlib import Path; from quizapp.tui.screens.preview import build_preview_model; "
            "m = build_preview_model(Path(sys.argv[1]), 0); print(m.unreadable)")
    done = subprocess.run([sys.executable, "-c", code, str(zero_link)], capture_output=True, text=True, timeout=30,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT * 2, MEMORY_LIMIT * 2)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "is a device"


def test_a_content_path_too_long_for_the_system_is_a_problem_not_a_crash(tmp_path):
    files, problems = find_question_files([tmp_path / ("n" * 300), Path("p" * 5000)])
    assert files == []
    assert [reason.split(" (")[0] for _, reason in problems] == ["path too long", "path too long"]
    bank = load_bank([Path("p" * 5000)])
    assert len(bank.problems) == 1 and "path too long" in bank.problems[0].message


def test_preview_model_of_a_file_over_the_limit_says_so_at_once(tmp_path):
    from quizapp.tui.screens.preview import build_preview_model

    path = tmp_path / "huge.yaml"
    path.write_bytes(b"id: huge\nanswer: |\n" + b"  x\n" * (3 << 20))  # 12 MiB
    model = build_preview_model(path, 0)
    assert model.unreadable is not None and "the limit is 1 MiB" in model.unreadable
    assert "the limit is 1 MiB" in load_bank([path]).problems[0].message  # validate says the same


def test_an_unreadable_user_data_folder_is_a_bank_problem_not_a_traceback(tmp_path, monkeypatch, workdir):
    """Permission denied on the folder above the user's content folder (issue 21): Path.is_dir() used to
    raise PermissionError there. Now validate names the folder in one problem line, and the bank loads."""
    from quizapp import locations
    from quizapp.content.cache import load_bank_cached
    from reliability_helpers import run_in_process

    user = locations.user_content_dir()
    _good_copy(user / "mine")
    data = user.parent  # .../quizapp: its mode 0 makes user.is_dir() raise for a normal user
    data.chmod(0)
    try:
        if os.geteuid() == 0:  # root passes mode checks: the same errno, from the same calls
            real_stat, real_scandir = os.stat, os.scandir

            def denied(path):
                return Path(os.fsdecode(path)).is_relative_to(data) and Path(os.fsdecode(path)) != data

            def stat(path, *args, **kwargs):
                if denied(path):
                    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(path))
                return real_stat(path, *args, **kwargs)

            def scandir(path="."):
                if Path(os.fsdecode(path)) == data or denied(path):
                    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fsdecode(path))
                return real_scandir(path)

            monkeypatch.setattr(os, "stat", stat)
            monkeypatch.setattr(os, "scandir", scandir)
        dirs = locations.content_dirs(())
        assert dirs[-1] == user  # listed, not silently dropped
        bank = load_bank_cached(dirs, tmp_path / "cache")
        monkeypatch.chdir(workdir)
        result = run_in_process(["validate"])
    finally:
        data.chmod(0o755)
    assert any(p.file == user and "permission denied" in p.message for p in bank.problems), bank.problems
    assert len(bank.questions) >= 61  # the bundled bank still loads
    assert "Traceback" not in result.stderr and result.returncode == 1, result.stderr
    assert any(line.startswith(f"{user}:") and "permission denied" in line for line in result.stdout.splitlines())
