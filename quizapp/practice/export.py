"""The question bank as an Anki package (.apkg, genanki): one note per card, ready to import.

Each note carries the rendered question (every {{drill}} reference replaced by the calculator's
value), the answer, the worked solution as HTML tables, the follow-ups and the common mistakes, and
tags from the topic, the question's tags and the card kind. A drill becomes one concrete variant
(drawn with a seed from its card id, so a re-export gives the same numbers) with its expected value.
The model, the deck and each note's guid are derived from fixed names and card ids: importing a
newer export into Anki updates the notes instead of duplicating them.

Studied cards carry their progress (`study_progress`, quizapp.practice.anki_progress): their state,
due date, FSRS memory state, flag and review history, so Anki continues where quizapp left off when
the deck is imported with "Import any learning progress"; a leech's note is tagged "leech".
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from quizapp.words import say

MODEL_ID = 1_640_152_739  # fixed for ever: Anki matches notes of a re-import by model and guid
DECK_NAME = "quizapp"
# One deck per language (docs/srs.md): the Chinese deck keeps the name and guids of the exports made
# when the bank was Chinese only, so re-importing it updates those notes; the English one is its own.
DECK_NAMES = {"zh": DECK_NAME, "en": "quizapp (English)"}


def deck_name(lang: str) -> str:
    return DECK_NAMES.get(lang, DECK_NAME)


def note_guid(card_id: str, lang: str) -> str:
    """The note's guid: stable per card and language, so the two language decks never collide."""
    import genanki

    return genanki.guid_for("quizapp", card_id) if lang == "zh" else genanki.guid_for("quizapp", lang, card_id)
FIELDS = ("CardId", "Kind", "Topic", "Question", "Answer", "Solution", "Followups", "Mistakes")
CSS = """.card { font-family: sans-serif; font-size: 18px; text-align: left; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { border: 1px solid #888; padding: 2px 6px; vertical-align: top; }
td.num { text-align: right; font-family: monospace; }
.kind { color: #888; font-size: 14px; }
"""


def stable_id(name: str) -> int:
    """A 31-bit positive id from a name (Anki deck ids must fit its int64 and be stable)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big") & 0x7FFFFFFF | 1 << 30


def _markdown(text: str) -> str:
    """Markdown to HTML with raw HTML escaped (a question's text is never trusted as markup)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text or "")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _table(headers: Sequence[str], rows: Iterable[Sequence[object]], numeric: Sequence[int] = ()) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{_e(c)}</td>' if i in numeric else f"<td>{_e(c)}</td>"
                         for i, c in enumerate(row)) + "</tr>"
        for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


@dataclass(frozen=True)
class ExportedNote:
    card_id: str
    fields: tuple[str, ...]
    tags: tuple[str, ...]


def _tag(text: str) -> str:
    return re.sub(r"\s+", "_", text.strip())


def _mistakes(rendered, lang: str) -> str:
    if not rendered.mistakes:
        return ""
    return _table([say("export.wrong", lang), say("export.right", lang), say("export.why", lang)],
                  [(m.wrong, m.right, m.why) for m in rendered.mistakes])


def _followups(rendered, lang: str) -> str:
    parts = [f"<h4>{_e(say('export.followups', lang))}</h4>"] if rendered.followups else []
    for f in rendered.followups:
        parts.append(f"<p><b>{_e(f.q)}</b></p>{_markdown(f.a)}")
    return "".join(parts)


def _worked_solution(variant, lang: str) -> str:
    """The calculator's breakdown of the variant as a table: term, formula, with numbers, value."""
    from quizapp.memory.quantities import format_bytes

    b = variant.breakdown
    if getattr(variant, "derivation", None) is not None:  # no memory term: the derivation's steps
        from quizapp.content.solution import worked_solution

        steps = [(r.name, r.formula, r.substituted, r.shown) for r in worked_solution(variant).rows]
        table = _table([say("export.term", lang), say("export.formula", lang), say("export.numbers", lang), ""],
                       steps, numeric=(3,))
    else:
        rows = [(t.name, t.formula, t.substituted, format_bytes(t.bytes, "GB")) for t in b.terms]
        rows.append((say("export.total", lang), "", "", format_bytes(b.total, "GB")))
        table = _table([say("export.term", lang), say("export.formula", lang), say("export.numbers", lang), "GB"],
                       rows, numeric=(3,))
    answer = _table([say("export.asked", lang), say("export.expected", lang)], [(variant.ask, variant.expected_display)],
                    numeric=(1,))
    return answer + table


def notes_for(bank, card_ids: Iterable[str] | None = None, lang: str = "en") -> list[ExportedNote]:
    """The notes of every card of `bank` (or only of `card_ids`), in bank order.

    Text comes from quizapp.content.render.render_question (every field as the app shows it:
    references filled in, typography fixed); a drill is drawn once, with a seed from its card id.
    """
    from quizapp.content import draw_variant
    from quizapp.content.render import render_question

    wanted = set(card_ids) if card_ids is not None else None
    out: list[ExportedNote] = []
    for question in bank.questions:
        rendered = render_question(question)
        base_tags = ("quizapp", _tag(question.topic), *(_tag(t) for t in question.tags))
        mistakes = _mistakes(rendered, lang)
        cid = f"{question.id}/question/main"
        if wanted is None or cid in wanted:
            solution = ""
            if rendered.template:
                solution = f"<h4>{_e(say('export.template', lang))}</h4>{_markdown(rendered.template)}"
            if rendered.errata:
                solution += f"<h4>{_e(say('export.errata', lang))}</h4>" + _table(
                    [say("export.claim", lang), say("export.correct", lang), say("export.why", lang)],
                    [(x.claim, x.correct, x.why) for x in rendered.errata])
            out.append(ExportedNote(cid, (cid, "question", question.topic, _e(rendered.title),
                                          _markdown(rendered.answer), solution, _followups(rendered, lang), mistakes),
                                    (*base_tags, "question")))
        for f in rendered.followups:
            cid = f"{question.id}/followup/{f.id}"
            if wanted is None or cid in wanted:
                front = f'<p class="kind">{_e(rendered.title)}</p><p>{_e(f.q)}</p>'
                out.append(ExportedNote(cid, (cid, "followup", question.topic, front, _markdown(f.a), "", "",
                                              mistakes), (*base_tags, "followup")))
        for d in question.drills:
            cid = f"{question.id}/drill/{d.id}"
            if wanted is None or cid in wanted:
                try:
                    variant = draw_variant(question, d, seed=stable_id(cid))
                    prompt, expected, solution = variant.prompt, variant.expected_display, _worked_solution(variant, lang)
                except Exception:  # noqa: BLE001 - a drill the calculator refuses: its base prompt, no solution
                    base = rendered.drill(d.id)
                    prompt, expected, solution = (base.prompt, base.expected, "") if base else (d.prompt, "", "")
                front = f'<p class="kind">{_e(rendered.title)}</p><p>{_e(prompt)}</p>'
                back = f"<p><b>{_e(expected)}</b></p>"
                out.append(ExportedNote(cid, (cid, "drill", question.topic, front, back, solution, "", mistakes),
                                        (*base_tags, "drill")))
    return out


@dataclass(frozen=True)
class StudyProgress:
    """What an export carries of the cards studied: card_id -> its Anki columns, its revlog rows and
    whether it is a leech; `timing`: the day the due dates count from."""

    timing: object  # anki_progress.CollectionTiming
    cards: Mapping[str, object]
    reviews: Mapping[str, Sequence[object]]
    leeches: frozenset[str]


def study_progress(store, card_ids: Iterable[str] | None = None) -> StudyProgress:
    """The progress of the studied cards among `card_ids` (all when None), in Anki's terms."""
    from quizapp.practice.anki_progress import anki_card, anki_reviews, collection_timing
    from quizapp.store.progress import card_progress

    now = store.clock.now()
    config = store.config
    progress = card_progress(store, card_ids)
    cards = {cid: anki_card(p, now=now, day_start=lambda t: store.day_bounds(t)[0],
                            desired_retention=config.retention_for(p.card.topic),
                            learning_steps=len(config.learning_steps), relearning_steps=len(config.relearning_steps))
             for cid, p in progress.items()}
    reviews = {cid: anki_reviews(p) for cid, p in progress.items()}
    timing = collection_timing(now, lambda t: store.day_bounds(t)[0], config.rollover_hour)
    return StudyProgress(timing, cards, reviews, frozenset(cid for cid, p in progress.items() if p.card.leech))


def _with_progress(package: Path, progress: StudyProgress, lang: str) -> None:
    """Rewrite the package genanki wrote with the studied cards' columns and revlog filled in."""
    import shutil
    import tempfile
    import zipfile

    from quizapp.store.anki_collection import write_progress

    guid = lambda cid: note_guid(cid, lang)  # noqa: E731
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        with zipfile.ZipFile(package) as source:
            members = source.infolist()
            source.extractall(folder)
        write_progress(folder / "collection.anki2", progress.timing, {guid(c): s for c, s in progress.cards.items()},
                       {guid(c): r for c, r in progress.reviews.items()}, [guid(c) for c in sorted(progress.leeches)])
        rebuilt = folder / "rebuilt.apkg"
        with zipfile.ZipFile(rebuilt, "w", zipfile.ZIP_DEFLATED) as target:
            for member in members:
                target.write(folder / member.filename, member.filename)
        shutil.copyfile(rebuilt, package)


def write_apkg(notes: Sequence[ExportedNote], path: Path, lang: str = "zh",
               progress: StudyProgress | None = None) -> None:
    """Write `notes` (in `lang`) as that language's Anki deck at `path` (a new file; an existing one is
    never replaced), with the studied cards' `progress` when given."""
    import os

    import genanki

    model = genanki.Model(
        MODEL_ID, "quizapp card",
        fields=[{"name": name} for name in FIELDS],
        templates=[{
            "name": "Card",
            "qfmt": "{{Question}}",
            "afmt": "{{FrontSide}}<hr id=answer>{{Answer}}{{Solution}}{{Followups}}{{Mistakes}}",
        }],
        css=CSS, sort_field_index=0)
    name = deck_name(lang)
    deck = genanki.Deck(stable_id(f"deck:{name}"), name)
    for note in notes:
        deck.add_note(genanki.Note(model=model, fields=list(note.fields), tags=list(note.tags),
                                   guid=note_guid(note.card_id, lang)))
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    genanki.Package(deck).write_to_file(str(tmp))
    try:
        if progress is not None and progress.cards:
            _with_progress(tmp, progress, lang)
        os.link(tmp, path)  # FileExistsError if it exists: nothing is overwritten
    finally:
        tmp.unlink()
