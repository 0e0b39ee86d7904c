"""`quizapp settings`: list, show one, set one (checked), reset; bad input is one line and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from quizapp.cli import main
from quizapp.clock import FakeClock
from quizapp.store import SchedulerConfig, Store
from quizapp.store.config import SETTINGS


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "data" / "q.sqlite3"
    monkeypatch.setenv("QUIZAPP_DB", str(path))
    return path


def _run(capsys, *argv):
    code = main(["settings", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_every_setting_with_its_default_and_creates_nothing(capsys, db):
    code, out, _ = _run(capsys, "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == list(SETTINGS)
    for key, spec in SETTINGS.items():
        assert data[key]["value"] == data[key]["default"] == spec.show(spec.default)
        assert data[key]["changed"] is False
    assert data["desired_retention"]["default"] == "0.9" and data["learning_steps"]["default"] == "1m 10m"
    code, out, _ = _run(capsys)
    assert code == 0 and all(key in out for key in SETTINGS)
    assert not db.exists() and not db.parent.exists()  # reading does not create a database


def test_set_show_and_reset(capsys, db):
    code, out, _ = _run(capsys, "learning_steps", "2m", "15m")  # several words, no quotes needed
    assert code == 0 and "learning_steps = 2m 15m" in out and "was 1m 10m" in out
    code, out, _ = _run(capsys, "desired-retention", "85%")
    assert code == 0 and "desired_retention = 0.85" in out
    code, out, _ = _run(capsys, "learning_steps")
    assert code == 0 and out.splitlines()[0] == "learning_steps = 2m 15m (default 1m 10m)"
    code, out, _ = _run(capsys)
    row = next(line for line in out.splitlines() if line.startswith("desired_retention"))
    assert "0.85 *" in row and "0.9" in row
    with Store.open(db, FakeClock()) as store:  # what the app will schedule with
        assert store.config.desired_retention == 0.85
        assert [s.total_seconds() for s in store.config.learning_steps] == [120, 900]
    code, out, _ = _run(capsys, "learning_steps", "default")
    assert code == 0 and "learning_steps = 1m 10m" in out
    with Store.open(db, FakeClock()) as store:
        assert store.config.learning_steps == SchedulerConfig().learning_steps


@pytest.mark.parametrize(
    "argv, fragments",
    [
        (["desired_retention", "1.5"], ["desired_retention: expected", "0.7", "0.99", "'1.5'"]),
        (["rollover_hour", "24"], ["rollover_hour: expected", "0 to 23"]),
        (["learning_steps", "1x"], ["learning_steps: expected steps like"]),
        (["new_per_day", "-3"], ["new_per_day: expected"]),
        (["retention", "0.9"], ["retention: unknown setting", "did you mean desired_retention"]),
        (["retention"], ["unknown setting"]),
    ],
)
def test_bad_input_is_one_line_exit_2_and_stores_nothing(capsys, db, argv, fragments):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("quizapp: ") and err.count("\n") == 1
    for fragment in fragments:
        assert fragment in err
    assert not db.exists()


def test_a_bad_stored_value_is_listed_and_can_be_fixed(capsys, db):
    with Store.open(db, FakeClock(), SchedulerConfig()) as store:
        store.set_setting("rollover_hour", 99)
    code, out, _ = _run(capsys)
    assert code == 0 and "invalid stored value 99" in out
    code, out, _ = _run(capsys, "rollover_hour", "5")
    assert code == 0 and "rollover_hour = 5" in out
    with Store.open(db, FakeClock()) as store:
        assert store.config.rollover_hour == 5


def test_the_module_imports_nothing_heavy():
    code = (
        "import sys, quizapp.cli; quizapp.cli.build_parser(); "
        "heavy = [m for m in ('sqlmodel', 'sqlalchemy', 'fsrs', 'textual') if m in sys.modules]; "
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
