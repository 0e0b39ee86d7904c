"""The exported deck imported into Anki's own library (the `anki` package): studied cards arrive with
their state, due date, FSRS memory state, flag and review history as stored here (issue #22)."""

from __future__ import annotations

import json
import zipfile
from datetime import datetime, timedelta, timezone

import pytest

from quizapp.clock import FakeClock
from quizapp.content.bank import load_content
from quizapp.practice.export import note_guid, notes_for, study_progress, write_apkg
from quizapp.store import SchedulerConfig, Store
from quizapp.store import card_ops

UTC = timezone.utc
ROLLOVER = 4  # SchedulerConfig's default rollover hour (UTC here), as Anki's


@pytest.fixture(scope="module")
def bank():
    return load_content()


def _study_day(t: datetime) -> int:
    """The study day of `t` as a day count, written out here (not the store's day_bounds): days since
    the epoch of t shifted back by the rollover hour."""
    return (t - timedelta(hours=ROLLOVER)).date().toordinal()


def _studied_store(bank, tmp_path):
    """A week of study ending now (real time: Anki's importer counts due days from the real today).

    R graduates to review; L fails once and sits in learning; S graduates and is suspended; F is
    answered once and flagged 3; K lapses once with a leech threshold of 1 (a leech, suspended);
    C is only crammed (still new)."""
    end = datetime.now(UTC).replace(microsecond=0)
    clock = FakeClock(start=end - timedelta(days=7))
    store = Store.open(tmp_path / "study.sqlite3", clock, SchedulerConfig(tz=UTC, bury_siblings=False, leech_lapses=1))
    store.sync(bank.cards())
    ids = [c.card_id for c in bank.cards()]
    r, l, s, f, k, c = ids[:6]

    def graduate(card_id):  # Good on each of the two learning steps (1m, 10m)
        store.review(card_id, 3, duration_ms=4000)
        clock.advance(minutes=11)
        store.review(card_id, 3, duration_ms=3000)

    for card_id in (r, s, k):
        graduate(card_id)
    store.review(f, 3, duration_ms=90_000)  # capped at 60 s, like Anki
    clock.advance(days=6)
    store.review(k, 1, duration_ms=5000)  # a lapse: with leech_lapses=1, a leech and suspended
    store.review(c, 2, duration_ms=1000, mode="cram")
    store.review(l, 1, duration_ms=1500)
    card_ops.apply(store, "suspend", [s])
    card_ops.apply(store, "flag", [f], 3)
    clock.advance((end - clock.now()).total_seconds())  # now is the real now again
    return store, clock, dict(r=r, l=l, s=s, f=f, k=k, c=c)


def _import_into_anki(package, tmp_path):
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest  # a [test] dependency

    (tmp_path / "anki").mkdir()
    col = Collection(str(tmp_path / "anki" / "collection.anki2"))
    col.import_anki_package(ImportAnkiPackageRequest(package_path=str(package),
                                                     options=ImportAnkiPackageOptions(with_scheduling=True)))
    return col


def _anki_card(col, card_id, lang="en"):
    (nid,) = col.db.list("select id from notes where guid = ?", note_guid(card_id, lang))
    (cid,) = col.db.list("select id from cards where nid = ?", nid)
    return col.get_card(cid)


def test_studied_cards_arrive_in_anki_with_their_state_and_history(bank, tmp_path):
    store, clock, ids = _studied_store(bank, tmp_path)
    package = tmp_path / "deck.apkg"
    write_apkg(notes_for(bank, lang="en"), package, "en", study_progress(store))
    col = _import_into_anki(package, tmp_path)
    try:
        today = col.sched.today
        now = clock.now()

        r_row, r = store.card(ids["r"]), _anki_card(col, ids["r"])
        assert r_row.state == 2  # graduated after 1m and 10m steps
        assert (r.type, r.queue) == (2, 2)
        # due: the same study day as here, counted from Anki's today
        assert r.due - today == _study_day(r_row.due) - _study_day(now)
        assert r.memory_state.stability == pytest.approx(r_row.stability, abs=1e-3)
        assert r.memory_state.difficulty == pytest.approx(r_row.difficulty, abs=1e-3)
        assert r.last_review_time == int(r_row.last_review.timestamp())
        assert r.reps == r_row.reps == 2 and r.lapses == 0
        r_log = col.db.all("select ease, type, time, ivl, lastIvl from revlog where cid = ? order by id", r.id)
        # two Good answers in learning (type 0, ease 3 as answered: no v1 renumbering); the first sets
        # the 10-minute step (-600 s), the second graduates with a day interval
        assert [(e, t, ms) for e, t, ms, *_ in r_log] == [(3, 0, 4000), (3, 0, 3000)]
        assert r_log[0][3] == -600 and r_log[1][3] >= 1 and r_log[1][4] == -600

        l_row, l_card = store.card(ids["l"]), _anki_card(col, ids["l"])
        assert l_row.state == 1 and (l_card.type, l_card.queue) == (1, 1)
        assert l_card.due == int(l_row.due.timestamp())  # learning: due in epoch seconds
        assert col.db.all("select ease, type from revlog where cid = ?", l_card.id) == [[1, 0]]

        s_card = _anki_card(col, ids["s"])
        assert (s_card.type, s_card.queue) == (2, -1)  # a review card, suspended

        f_card = _anki_card(col, ids["f"])
        assert f_card.flags == 3
        assert col.db.list("select time from revlog where cid = ?", f_card.id) == [60_000]

        k_row, k_card = store.card(ids["k"]), _anki_card(col, ids["k"])
        assert k_row.leech and k_row.suspended and k_row.lapses == 1
        assert (k_card.type, k_card.queue, k_card.lapses) == (3, -1, 1)  # relearning, suspended
        assert "leech" in k_card.note().tags
        # the lapse was answered in review: type 1, Again
        assert col.db.all("select ease, type from revlog where cid = ? order by id", k_card.id)[-1] == [1, 1]

        c_card = _anki_card(col, ids["c"])
        assert (c_card.type, c_card.queue) == (0, 0)  # cram moved nothing: still new
        assert col.db.all("select ease, type from revlog where cid = ?", c_card.id) == [[2, 3]]  # filtered

        # every logged answer arrived, and no card that was never answered has any history
        assert col.db.scalar("select count() from revlog") == 3 * 2 + 1 + 1 + 1 + 1  # R S K, K's lapse, F, C, L
        untouched = _anki_card(col, [c.card_id for c in bank.cards()][10])
        assert (untouched.type, untouched.queue, untouched.reps) == (0, 0, 0)
    finally:
        col.close()


def test_a_deck_without_history_is_all_new(bank, tmp_path):
    store = Store.open(tmp_path / "fresh.sqlite3", FakeClock(), SchedulerConfig(tz=UTC))
    store.sync(bank.cards())
    progress = study_progress(store)
    assert not progress.cards and not progress.reviews
    package = tmp_path / "deck.apkg"
    write_apkg(notes_for(bank), package, "zh", progress)
    with zipfile.ZipFile(package) as z:
        assert "collection.anki2" in z.namelist()
    col = _import_into_anki(package, tmp_path)
    try:
        assert col.db.scalar("select count() from revlog") == 0
        assert col.db.scalar("select count() from cards where type != 0") == 0
        assert col.card_count() == len(bank.cards())
    finally:
        col.close()


def test_the_card_data_is_the_json_anki_reads(bank, tmp_path):
    """The memory state travels in card.data as Anki's keys (s, d, dr, lrt), the desired retention
    the card's own (a topic's retention when it has one)."""
    store, _, ids = _studied_store(bank, tmp_path)
    progress = study_progress(store)
    data = json.loads(progress.cards[ids["r"]].data)
    assert set(data) == {"s", "d", "dr", "lrt"} and data["dr"] == 0.9


def test_the_cli_export_carries_the_history_and_writes_nothing_to_the_database(bank, tmp_path, monkeypatch, capsys):
    import hashlib
    import sqlite3

    from quizapp.cli import main

    store, _, ids = _studied_store(bank, tmp_path)
    store.close()
    db = tmp_path / "study.sqlite3"
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    out = tmp_path / "cli.apkg"
    assert main(["--db", str(db), "--lang", "en", "export", "anki", str(out), "is:review -is:suspended"]) == 0  # R alone
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    with zipfile.ZipFile(out) as z:
        z.extract("collection.anki2", tmp_path / "x")
    col = sqlite3.connect(tmp_path / "x" / "collection.anki2")
    assert col.execute("select count() from notes").fetchone()[0] == 1
    assert col.execute("select type, queue, reps from cards").fetchone() == (2, 2, 2)
    assert [e for (e,) in col.execute("select ease from revlog order by id")] == [3, 3]
