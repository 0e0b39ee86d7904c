"""Write studied cards' scheduling and review history into an Anki collection file (collection.anki2).

Why here: it is SQL on a SQLite file, and the store is the layer that speaks SQL; the values come
from quizapp.practice.anki_progress (Anki's meaning of each column is explained there). genanki
writes every card as new; this fills in the columns of the cards that have progress and adds their
revlog rows, matching cards by their note's guid (one card per note).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path


def write_progress(collection: Path, timing: object, cards: Mapping[str, object],
                   reviews: Mapping[str, Sequence[object]], leech_guids: Sequence[str] = ()) -> int:
    """Fill in `cards` (note guid -> AnkiCard) and add `reviews` (note guid -> AnkiReview rows); tag the
    notes of `leech_guids` "leech" as Anki does. Returns the number of cards written.

    timing (quizapp.practice.anki_progress.CollectionTiming): the collection is marked as using
    Anki's v2 day timing (`schedVer` 2; genanki writes v1, whose learning answers Anki's importer
    renumbers, Good 2 and Easy 3) with quizapp's rollover hour, created at the start of a study day
    `timing.today` days ago: a review card's day number is today plus its days from today.
    """
    import json

    db = sqlite3.connect(collection)
    try:
        (conf,) = db.execute("SELECT conf FROM col").fetchone()
        conf = json.loads(conf or "{}")
        conf.update(schedVer=2, rollover=timing.rollover_hour)
        db.execute("UPDATE col SET crt = ?, conf = ?", (timing.crt, json.dumps(conf)))
        today = timing.today
        card_of = dict(db.execute("SELECT notes.guid, cards.id FROM cards JOIN notes ON notes.id = cards.nid"))
        used_ids: set[int] = {i for (i,) in db.execute("SELECT id FROM revlog")}
        written = 0
        for guid, state in cards.items():
            cid = card_of.get(guid)
            if cid is None:
                continue
            if state.keep_due:
                (due,) = db.execute("SELECT due FROM cards WHERE id = ?", (cid,)).fetchone()
            else:
                due = state.due_epoch if state.due_epoch is not None else today + (state.due_in_days or 0)
            db.execute("UPDATE cards SET type = ?, queue = ?, due = ?, ivl = ?, factor = ?, reps = ?, lapses = ?, "
                       "left = ?, flags = ?, data = ? WHERE id = ?",
                       (state.ctype, state.queue, due, state.ivl, state.factor, state.reps, state.lapses, state.left,
                        state.flags, state.data, cid))
            written += 1
        for guid, rows in reviews.items():
            cid = card_of.get(guid)
            if cid is None:
                continue
            for row in rows:
                rid = row.at_ms
                while rid in used_ids:  # revlog ids are unique milliseconds: two answers in one ms move apart
                    rid += 1
                used_ids.add(rid)
                db.execute("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
                           "VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)",
                           (rid, cid, row.ease, row.ivl, row.last_ivl, row.factor, row.time_ms, row.rtype))
        for guid in leech_guids:
            (tags,) = db.execute("SELECT tags FROM notes WHERE guid = ?", (guid,)).fetchone() or ("",)
            if "leech" not in tags.split():
                db.execute("UPDATE notes SET tags = ? WHERE guid = ?", (f" {' '.join([*tags.split(), 'leech'])} ", guid))
        db.commit()
        return written
    finally:
        db.close()
