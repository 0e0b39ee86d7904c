"""A plain `pip install .` must carry the question bank: the wheel holds content/ as quizapp/_bank."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_wheel_ships_the_bundled_bank_and_the_app_finds_it(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path)],
        check=True, capture_output=True,
    )
    (wheel,) = tmp_path.glob("quizapp-*.whl")
    bundled = sorted(p.relative_to(ROOT / "content").as_posix() for p in (ROOT / "content").rglob("*.yaml"))
    with zipfile.ZipFile(wheel) as archive:
        shipped = sorted(n.removeprefix("quizapp/_bank/") for n in archive.namelist() if n.startswith("quizapp/_bank/"))
        assert "quizapp/_bank.pickle" in archive.namelist()  # the bundled bank, validated when the wheel was built
        archive.extractall(tmp_path / "site")
    assert bundled and shipped == bundled

    # Installed (here: unpacked) away from the source tree, the bank is found inside the package.
    code = (
        "from quizapp.locations import bundled_content_dir; from quizapp.content import load_bank\n"
        "d = bundled_content_dir(); b = load_bank([d]); print(d.name, len(b.questions), len(b.problems))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True,
        env={"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.split() == ["_bank", str(len(bundled)), "0"]

    # The very first run of the install reads that validated bank: no YAML parsed, the same bank as
    # validating the installed files, its paths where the files are now.
    code = (
        "import sys; from pathlib import Path\n"
        "from quizapp.locations import bundled_content_dir, content_dirs\n"
        "from quizapp.content.cache import load_bank_cached, CachedBank\n"
        "bank = load_bank_cached(content_dirs(()), Path(sys.argv[1]))\n"
        "first = (type(bank).__name__, 'yaml' in sys.modules, len(bank.cards()))\n"
        "from quizapp.content import load_bank\n"
        "fresh = load_bank([bundled_content_dir()])\n"
        "same = bank.questions == fresh.questions and bank.cards() == fresh.cards() and "
        "[q.source_path for q in bank.questions] == [q.source_path for q in fresh.questions]\n"
        "print(*first, same, all(bundled_content_dir() in q.source_path.parents for q in bank.questions))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "cache")], cwd=tmp_path, capture_output=True, text=True,
        check=True, env={"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    kind, yaml_loaded, cards, same, moved = out.stdout.split()
    assert (kind, yaml_loaded, same, moved) == ("CachedBank", "False", "True", "True") and int(cards) > 1000
