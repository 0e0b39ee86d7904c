"""`quizapp stats`: the same figures as text and JSON, from the database QUIZAPP_DB names."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from quizapp.cli import main
from quizapp.clock import FakeClock
from quizapp.store import Store


class Spec:
    def __init__(self, card_id: str, topic: str) -> None:
        self.card_id, self.topic, self.order = card_id, topic, 0
        self.question_id, self.kind, self.item_id = card_id.split("/")


def test_stats_json_and_text(tmp_path, monkeypatch, capsys):
    db = tmp_path / "q.sqlite3"
    monkeypatch.setenv("QUIZAPP_DB", str(db))
    now = datetime.now(timezone.utc)
    with Store.open(db, FakeClock(start=now)) as store:
        store.sync([Spec("q1/question/main", "alpha"), Spec("q2/drill/d", "beta")])
        store.review("q1/question/main", 3, duration_ms=1000)
        store.review("q2/drill/d", 1, duration_ms=1000, verdict="wrong", mistake="no-master")
    assert main(["stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reviews_per_day"][-1]["total"] == 2
    assert {s["topic"] for s in data["states"]} == {"alpha", "beta", ""}
    assert data["mistakes"][0]["mistake_id"] == "no-master" and data["mistakes"][0]["count"] == 1
    assert main(["stats"]) == 0
    text = capsys.readouterr().out
    assert "True retention" in text and "alpha" in text and "Due forecast" in text
    assert main(["--lang", "zh", "stats"]) == 0
    assert "真实记忆保留率" in capsys.readouterr().out


def test_stats_on_a_foreign_file_is_one_line(tmp_path, monkeypatch, capsys):
    bad = tmp_path / "not-a-db.sqlite3"
    bad.write_text("hello", encoding="utf-8")
    monkeypatch.setenv("QUIZAPP_DB", str(bad))
    assert main(["stats"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("quizapp: ") and err.count("\n") == 1
