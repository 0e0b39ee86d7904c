"""The Anki export opened back as the zip + SQLite collection it is; the revlog CSV out and back in."""

from __future__ import annotations

import csv
import json
import sqlite3
import zipfile
from datetime import datetime, timezone

import pytest

from quizapp.cli import main
from quizapp.clock import FakeClock
from quizapp.content import draw_variant
from quizapp.content.bank import load_content
from quizapp.practice.export import FIELDS, MODEL_ID, notes_for, stable_id, write_apkg
from quizapp.store import SchedulerConfig, Store
from quizapp.store.optimize import review_history
from quizapp.store.revlog_io import COLUMNS, RevlogError, import_revlog, numeric_card_id, read_revlog
from tests.srs.synthetic import simulate, write

UTC = timezone.utc


@pytest.fixture(scope="module")
def bank():
    return load_content()


def _collection(path, tmp_path):
    with zipfile.ZipFile(path) as z:
        assert "collection.anki2" in z.namelist()
        z.extract("collection.anki2", tmp_path)
    return sqlite3.connect(tmp_path / "collection.anki2")


def test_the_apkg_is_an_anki_collection_with_one_note_per_card(bank, tmp_path):
    path = tmp_path / "deck.apkg"
    write_apkg(notes_for(bank), path)
    db = _collection(path, tmp_path)
    notes = db.execute("SELECT id, guid, mid, tags, flds FROM notes").fetchall()
    cards = bank.cards()
    assert len(notes) == len(cards) == db.execute("SELECT count(*) FROM cards").fetchone()[0]
    models = json.loads(db.execute("SELECT models FROM col").fetchone()[0])
    assert list(models) == [str(MODEL_ID)] and [f["name"] for f in models[str(MODEL_ID)]["flds"]] == list(FIELDS)
    decks = json.loads(db.execute("SELECT decks FROM col").fetchone()[0])
    assert decks[str(stable_id("deck:quizapp"))]["name"] == "quizapp"
    by_card = {}
    for _, guid, mid, tags, flds in notes:
        fields = flds.split("\x1f")
        assert mid == MODEL_ID and len(fields) == len(FIELDS)
        by_card[fields[0]] = (fields, tags.split())
    assert set(by_card) == {c.card_id for c in cards}
    for spec in cards:
        fields, tags = by_card[spec.card_id]
        question = bank.question(spec.question_id)
        assert fields[1] == spec.kind and fields[2] == question.topic
        assert spec.topic in tags and spec.kind in tags and "quizapp" in tags
        assert all(t.replace(" ", "_") in tags for t in question.tags)
        if spec.kind == "drill":  # one concrete variant with its expected value, and the worked solution
            drill = next(d for d in question.drills if d.id == spec.item_id)
            variant = draw_variant(question, drill, seed=stable_id(spec.card_id))
            assert variant.expected_display in fields[4] and "<table>" in fields[5]
        if spec.kind == "question":
            assert fields[4].strip() and "{{" not in fields[4]  # the answer, references rendered
            if question.mistakes:
                assert "<table>" in fields[7]
            if question.followups:
                assert all(f.id for f in question.followups) and "<h4>" in fields[6]
    # a re-export gives the same note ids (guids): Anki updates instead of duplicating
    again = tmp_path / "again.apkg"
    write_apkg(notes_for(bank), again)
    (tmp_path / "2").mkdir()
    guids = {g for (g,) in _collection(again, tmp_path / "2").execute("SELECT guid FROM notes")}
    assert guids == {n[1] for n in notes}


def test_text_is_escaped_never_markup(bank):
    from quizapp.practice.export import _markdown

    assert "<script>" not in _markdown("<script>alert(1)</script> list[int]")
    assert "list[int]" in _markdown("list[int]")


def test_cli_exports_what_a_search_finds_and_never_overwrites(bank, tmp_path, capsys):
    db = tmp_path / "q.sqlite3"
    with Store.open(db, FakeClock(), SchedulerConfig(tz=UTC)) as store:
        store.sync(bank.cards())
    target = tmp_path / "drills.apkg"
    assert main(["--db", str(db), "export", "anki", str(target), "kind:drill"]) == 0
    out = capsys.readouterr().out
    notes = [r[0].split("\x1f") for r in _collection(target, tmp_path).execute("SELECT flds FROM notes")]
    assert {n[1] for n in notes} == {"drill"} and out.startswith(f"wrote {len(notes)} notes to ")
    # (the bank is being edited by others while tests run: compare with what was written, not a re-load)
    before = target.read_bytes()
    assert main(["--db", str(db), "export", "anki", str(target)]) == 2
    assert "already exists" in capsys.readouterr().err and target.read_bytes() == before
    assert main(["--db", str(db), "export", "anki", str(tmp_path / "x.zip")]) == 2
    assert main(["--db", str(db), "export", "anki", str(tmp_path / "y.apkg"), "kind:"]) == 2


@pytest.fixture
def history_db(tmp_path):
    path = tmp_path / "h.sqlite3"
    reviews, final = simulate(40, 40, seed=11)
    with Store.open(path, FakeClock(), SchedulerConfig(tz=UTC)) as store:
        write(store, reviews, final)
    return path, reviews


def test_revlog_export_has_the_benchmark_columns(history_db, tmp_path, capsys):
    path, reviews = history_db
    target = tmp_path / "revlog.csv"
    assert main(["--db", str(path), "export", "revlog", str(target)]) == 0
    rows = list(csv.DictReader(target.open()))
    assert tuple(rows[0]) == COLUMNS and len(rows) == len(reviews)
    by_key = {(int(r["card_id"]), int(r["review_time"])): r for r in rows}
    for review in reviews:
        row = by_key[(numeric_card_id(review.card_id), int(review.reviewed_at.timestamp() * 1000))]
        assert int(row["review_rating"]) == review.rating and int(row["review_duration"]) == review.duration_ms
        assert int(row["review_state"]) == (0 if review.prev_reps == 0 else review.prev_state)


def test_revlog_import_feeds_the_optimizer_only(history_db, tmp_path):
    path, reviews = history_db
    target = tmp_path / "revlog.csv"
    assert main(["--db", str(path), "export", "revlog", str(target)]) == 0
    other = tmp_path / "other.sqlite3"
    with Store.open(other, FakeClock(), SchedulerConfig(tz=UTC)) as store:
        report = import_revlog(store, target)
        assert (report.reviews, report.cards, report.already) == (len(reviews), 40, False)
        assert store.cards() == [] and store.next_card() is None  # it schedules nothing
        with Store.open(path, FakeClock(), SchedulerConfig(tz=UTC)) as original:
            assert [s for s in review_history(store).steps] == [s for s in review_history(original).steps]
        assert import_revlog(store, target).already  # the same file twice is added once


HEADER = ",".join(COLUMNS)
MALFORMED = [
    (b"", "empty", 1, 1),
    (b"card_id,review_time\n1,2\n", "missing_columns", 1, 1),
    (f"{HEADER}\n".encode(), "no_rows", 2, 1),
    (f"{HEADER}\n1,1700000000000,3,0,10\n2,1700000000000,3,0\n".encode(), "field_count", 3, 1),
    (f"{HEADER}\nx,1700000000000,3,0,10\n".encode(), "bad_value", 2, 1),
    (f"{HEADER}\n1,1700000000000,0,0,10\n".encode(), "bad_value", 2, 17),
    (f"{HEADER}\n1,1700000000000,3,7,10\n".encode(), "bad_value", 2, 19),
    (f"{HEADER}\n1,-5,3,0,10\n".encode(), "bad_value", 2, 3),
    (f"{HEADER}\n1,1700000000000,3,0,ten\n".encode(), "bad_value", 2, 21),
    (f"{HEADER}\n1,17e11,3,0,10\n".encode(), "bad_value", 2, 3),
    (HEADER.encode() + b"\n1,1700000000000,3,0,\xff\n", "not_utf8", 2, 21),
]


@pytest.mark.parametrize(("data", "code", "line", "column"), MALFORMED, ids=[m[1] + str(i) for i, m in enumerate(MALFORMED)])
def test_a_malformed_revlog_names_line_and_column(data, code, line, column):
    with pytest.raises(RevlogError) as caught:
        read_revlog(data)
    assert (caught.value.code, caught.value.line, caught.value.column) == (code, line, column)


def test_a_malformed_revlog_changes_nothing(tmp_path, capsys):
    db = tmp_path / "db.sqlite3"
    bad = tmp_path / "bad.csv"
    bad.write_text(f"{HEADER}\n1,1700000000000,3,0,10\n1,1700000000000,9,2,10\n")
    assert main(["--db", str(db), "import", "revlog", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"quizapp: {bad}:3:17: review_rating: expected a rating 1 (Again) to 4 (Easy), got '9'; nothing was imported"
    with Store.open(db, FakeClock(), SchedulerConfig(tz=UTC)) as store, store.reading() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM imported_review").scalar() == 0


def test_empty_duration_reads_as_zero():
    assert read_revlog(f"{HEADER}\n5,1700000000000,2,2,\n".encode()) == [(5, 1700000000000, 2, 2, 0)]
    assert datetime.fromtimestamp(1700000000, UTC).year == 2023
