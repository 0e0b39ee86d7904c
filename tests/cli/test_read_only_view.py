"""Read-only commands see what the app sees (issue 21): before the app has ever run, the bank's cards are
listed as new cards; after the app has synced, the same cards; the database is never created or changed."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from quizapp.cli import main
from quizapp.clock import FakeClock
from quizapp.content.bank import load_bank
from quizapp.store import Store

FIXTURES = Path(__file__).resolve().parents[1] / "content" / "fixtures"


@pytest.fixture
def bank_dir(tmp_path) -> Path:
    folder = tmp_path / "bank"
    shutil.copytree(FIXTURES / "good", folder / "good")
    shutil.copytree(FIXTURES / "grading", folder / "grading")
    return folder


def _json(capsys, argv) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _seen(capsys, db: Path, bank: Path, tmp_path: Path) -> dict:
    common = ["--db", str(db), "--content", str(bank)]
    cards = _json(capsys, [*common, "cards", "--json"])
    stats = _json(capsys, [*common, "stats", "--json"])
    queue = _json(capsys, [*common, "queue", "--json"])
    deck = tmp_path / f"deck-{len(list(tmp_path.glob('deck-*')))}.apkg"
    assert main([*common, "export", "anki", str(deck), "is:new"]) == 0
    exported = capsys.readouterr().out
    return {
        "cards": sorted((c["card_id"], c["state"]) for c in cards["cards"]),
        "new": next(s["new"] for s in stats["states"] if s["topic"] == ""),
        "queue": sorted(c["card_id"] for c in queue["days"][0]["cards"]),
        "exported": exported.split()[1],  # "Exported N notes ...": the count
    }


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_before_the_first_run_and_after_the_app_synced_the_same_cards(tmp_path, bank_dir, capsys):
    db = tmp_path / "data" / "q.sqlite3"
    expected = sorted(c.card_id for c in load_bank([bank_dir]).cards())
    assert expected  # the fixture bank has cards

    before = _seen(capsys, db, bank_dir, tmp_path)
    assert not db.exists() and not db.parent.exists()  # nothing was created
    assert before["cards"] == [(card_id, "new") for card_id in expected]
    assert before["new"] == len(expected)
    assert before["queue"]  # new cards are offered today, as Home offers them

    with Store.open(db, FakeClock()) as store:  # what `quizapp` does before its first frame
        store.sync(load_bank([bank_dir]).cards())
    files = {p.name: _sha(p) for p in db.parent.iterdir()}
    after = _seen(capsys, db, bank_dir, tmp_path)
    assert after == before  # the same cards, counts, queue and export
    assert {p.name: _sha(p) for p in db.parent.iterdir()} == files  # not a byte changed, nothing beside it
