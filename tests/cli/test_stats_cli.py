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
    cards = [Spec("q1/question/main", "alpha"), Spec("q2/drill/d", "beta")]
    monkeypatch.setattr("quizapp.cli.srs_support.load_cards", lambda options: type("Bank", (), {"cards": lambda self: cards})())
    assert main(["stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reviews_per_day"][-1]["total"] == 2
    assert {s["topic"] for s in data["states"]} == {"alpha", "beta", ""}  # and the total row
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


def test_stats_without_a_database_creates_none(tmp_path, monkeypatch, capsys):
    missing = tmp_path / "nowhere" / "q.sqlite3"
    monkeypatch.setenv("QUIZAPP_DB", str(missing))
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    assert "No reviews yet" in out and str(missing) in out
    assert main(["stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["database_exists"] is False and data["reviews_last_30_days"] == 0 and data["mistakes"] == []
    assert sum(row["new"] for row in data["states"]) > 0  # the bank's cards, as new cards (issue 21)
    assert not missing.exists() and not missing.parent.exists()  # a read-only command writes nothing


def test_text_tables_align_by_display_width_and_list_days_newest_first(tmp_path):
    from rich.cells import cell_len

    from quizapp.cli.stats import _table, as_text
    from quizapp.store import stats

    lines = _table(["主题", "新卡"], [["显存优化", "3"], ["kv", "12"], ["", "1"]])
    assert len({cell_len(line) for line in lines}) == 1  # every right-aligned last column ends together
    second = [cell_len(line[: len(line) - len(line.split()[-1])]) for line in lines]
    assert all(cell_len(line) == cell_len(lines[0]) for line in lines)
    assert min(second) >= cell_len("  显存优化  ")  # the labels' column is as wide as its widest label

    with Store.open(tmp_path / "q.sqlite3", FakeClock(start=datetime.now(timezone.utc))) as store:
        figures = stats.collect(store)
    text = as_text(figures, "en", 30)
    block = text.split("\n\n")[1].splitlines()  # the reviews-per-day table
    days = [line.split()[0] for line in block[2:]]
    assert len(days) == 30 and days == sorted(days, reverse=True)  # today first
    assert days[0] == figures.reviews[-1].day.isoformat()
