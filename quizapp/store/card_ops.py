"""Changes to many cards at once (the browser and `quizapp cards`): suspend, bury, reset, set due, flag.

Each operation is one BEGIN IMMEDIATE transaction that also writes a card_operation row with every
value it replaced (and, for a reset that forgets the history, the review_log rows it deleted), so
it can be undone exactly: Store.undo_operation() restores those values while the cards still hold
what the operation wrote, and refuses, naming a card, when something changed them since.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, delete, false, insert, inspect, select, update
from sqlalchemy.exc import SQLAlchemyError

from quizapp.store.errors import StoreError, database_error
from quizapp.store.srs_tables import CardFlag, CardOperation
from quizapp.store.tables import Card, ReviewLog

if TYPE_CHECKING:
    from quizapp.store.store import Store

ACTIONS = ("suspend", "unsuspend", "bury", "reset", "reset_history", "due", "flag")
CARD_COLUMNS = ("state", "step", "stability", "difficulty", "due", "last_review", "suspended", "buried_until",
                "leech", "lapses", "reps")
LOG_COLUMNS = ("id", "card_id", "rating", "reviewed_at", "duration_ms", "mode", "answer", "verdict", "mistake",
               "prev_state", "prev_reps", "card_before", "buried_siblings")
_CHUNK = 500  # ids per IN (...) list: far below SQLite's variable limit
CARD, LOG, FLAG, OPS = Card.__table__, ReviewLog.__table__, CardFlag.__table__, CardOperation.__table__


class DueSpecError(ValueError):
    """A set-due spec that is not `N` or `N-M` days (0 = today); str(e) says what was given."""


@dataclass(frozen=True)
class DueSpec:
    """Anki's set-due-date spec: due in `low` to `high` days from today (0 = today), drawn per card."""

    low: int
    high: int

    def __str__(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


def parse_due(text: str) -> DueSpec:
    """`0`, `3`, `3-7` (days from today; at most 36500); DueSpecError otherwise."""
    match = re.fullmatch(r"\s*([0-9]{1,5})\s*(?:-\s*([0-9]{1,5}))?\s*", text or "")
    if match is None:
        raise DueSpecError(text)
    low = int(match.group(1))
    high = int(match.group(2)) if match.group(2) is not None else low
    if high < low or high > 36500:
        raise DueSpecError(text)
    return DueSpec(low, high)


@dataclass(frozen=True)
class OperationResult:
    """What one operation did: its journal id (None when nothing changed), the cards changed and why
    others were left alone (card_id -> reason code: already, new, unknown)."""

    operation_id: int | None
    action: str
    argument: str
    changed: tuple[str, ...]
    skipped: dict[str, str] = field(default_factory=dict)


@contextmanager
def _write(store: Store) -> Iterator:
    if getattr(store, "read_only", False):
        raise StoreError(f"{store.path}: opened read-only (by a command that only reads); nothing was changed")
    try:
        with store.engine.execution_options(immediate=True).begin() as conn:
            yield conn
    except SQLAlchemyError as exc:
        raise database_error(store.path, exc) from None


def _chunks(ids: Sequence[str]) -> Iterator[Sequence[str]]:
    for i in range(0, len(ids), _CHUNK):
        yield ids[i:i + _CHUNK]


class _Stored:
    """Column values <-> the form the table stores them in, converted by the columns' own types.

    The journal keeps what an operation replaced and wrote in the stored form (UTC text for times,
    0/1 for booleans, as docs/database.md describes the columns), so undo compares and restores exactly."""

    def __init__(self, conn, table, names: Sequence[str]) -> None:
        dialect = conn.dialect
        impls = {n: table.c[n].type.dialect_impl(dialect) for n in names}
        self._to = {n: impl.bind_processor(dialect) for n, impl in impls.items()}
        self._from = {n: impl.result_processor(dialect, None) for n, impl in impls.items()}

    def stored(self, values: Mapping[str, object]) -> dict:
        return {k: v if v is None or self._to[k] is None else self._to[k](v) for k, v in values.items()}

    def loaded(self, values: Mapping[str, object]) -> dict:
        return {k: v if v is None or self._from[k] is None else self._from[k](v) for k, v in values.items()}


def _stored_cards(conn, ids: Sequence[str]) -> dict[str, dict]:
    """card_id -> the card's values (orphaned and CARD_COLUMNS), as the column types load them."""
    out: dict[str, dict] = {}
    columns = [CARD.c.card_id, CARD.c.orphaned, *(CARD.c[n] for n in CARD_COLUMNS)]
    for chunk in _chunks(ids):
        rows = conn.execute(select(*columns).where(CARD.c.card_id.in_(chunk))).mappings()
        out.update({r["card_id"]: dict(r) for r in rows})
    return out


def _stored_flags(conn, ids: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for chunk in _chunks(ids):
        out.update(dict(conn.execute(select(FLAG.c.card_id, FLAG.c.flag).where(FLAG.c.card_id.in_(chunk))).all()))
    return out


def _new_values(action: str, card: dict, now: datetime, now_stored: str, argument, day_end: datetime,
                day_start_at: Callable[[int], datetime]) -> dict | str:
    """The card columns `action` writes (values of the columns' types), or a skip reason code."""
    if action == "suspend":
        return "already" if card["suspended"] else {"suspended": True}
    if action == "unsuspend":
        return {"suspended": False} if card["suspended"] else "already"
    if action == "bury":
        if card["buried_until"] is not None and card["buried_until"] >= day_end:
            return "already"
        return {"buried_until": day_end}
    if action in ("reset", "reset_history"):
        if card["reps"] == 0 and card["lapses"] == 0 and action == "reset":
            return "already"
        return {"state": 1, "step": 0, "stability": None, "difficulty": None, "due": now,
                "last_review": None, "reps": 0, "lapses": 0, "leech": False, "buried_until": None}
    if action == "due":
        if card["reps"] == 0:
            return "new"  # a new card has no memory state to schedule from: answer it first
        spec: DueSpec = argument
        days = random.Random(f"{card['card_id']}/{now_stored}").randint(spec.low, spec.high)
        # due at the start of that study day (a calendar day: DST-safe), so it is due the whole day
        # (and `0` means now)
        due = now if days == 0 else day_start_at(days)
        return {"due": due, "buried_until": None}
    raise ValueError(action)


def apply(store: Store, action: str, card_ids: Sequence[str], argument: object = None, *,
          source: str = "app") -> OperationResult:
    """Apply `action` to `card_ids` in one transaction, journaled for undo.

    action: suspend | unsuspend | bury | reset (forget; history kept) | reset_history (forget and delete
    the card's review history) | due (argument: a DueSpec) | flag (argument: 0..4, 0 removes the flag).
    """
    if action not in ACTIONS:
        raise ValueError(f"action: expected one of {', '.join(ACTIONS)}, got {action!r}")
    if action == "flag" and (not isinstance(argument, int) or not 0 <= argument <= 4):
        raise ValueError(f"flag: expected 0..4, got {argument!r}")
    if action == "due" and not isinstance(argument, DueSpec):
        raise ValueError("due: expected a DueSpec")
    ids = list(dict.fromkeys(card_ids))
    now = store.clock.now().astimezone(timezone.utc)
    _, day_end = store.day_bounds(now)
    changes: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    with _write(store) as conn:
        card_values = _Stored(conn, CARD, CARD_COLUMNS)
        now_stored = card_values.stored({"due": now})["due"]  # seeds the set-due draw, as before
        cards = _stored_cards(conn, ids)
        flags = _stored_flags(conn, ids) if action in ("flag", "reset_history") else {}
        for card_id in ids:
            card = cards.get(card_id)
            if card is None or card["orphaned"]:
                skipped[card_id] = "unknown"
                continue
            if action == "flag":
                before = flags.get(card_id, 0)
                if before == argument:
                    skipped[card_id] = "already"
                    continue
                changes[card_id] = {"before": {}, "after": {}, "flag": [before, argument]}
                continue
            values = _new_values(action, card, now, now_stored, argument, day_end,
                                 lambda days: store.study_day_start(days, now))
            if isinstance(values, str):
                skipped[card_id] = values
                continue
            changes[card_id] = {"before": card_values.stored({k: card[k] for k in values}),
                                "after": card_values.stored(values)}
        _write_sides(conn, changes, "after", card_values)
        if action == "reset_history":
            log_values = _Stored(conn, LOG, LOG_COLUMNS)
            for change in changes.values():
                change["logs"] = []
            for chunk in _chunks(list(changes)):
                rows = conn.execute(select(*(LOG.c[n] for n in LOG_COLUMNS))
                                    .where(LOG.c.card_id.in_(chunk)).order_by(LOG.c.id)).mappings()
                for row in rows:
                    changes[row["card_id"]]["logs"].append(log_values.stored(row))
                conn.execute(delete(LOG).where(LOG.c.card_id.in_(chunk)))
        if not changes:
            return OperationResult(None, action, str(argument or ""), (), skipped)
        op_id = conn.execute(insert(OPS).values(
            at=now, source=source, action=action, argument="" if argument is None else str(argument),
            cards=len(changes), changes=json.dumps(changes, ensure_ascii=False), undone=False)
        ).inserted_primary_key[0]
    store._operation_stack.append(op_id)
    return OperationResult(op_id, action, "" if argument is None else str(argument), tuple(changes), skipped)


def _write_sides(conn, changes: Mapping[str, dict], side: str, card_values: _Stored) -> None:
    """Write one side of journaled changes ("after" to apply them, "before" to undo them): the card
    columns (one executemany per set of columns written) and the flags."""
    groups: dict[tuple[str, ...], list[dict]] = {}
    flagged: list[dict] = []
    unflagged: list[dict] = []
    for card_id, change in changes.items():
        if change[side]:
            groups.setdefault(tuple(change[side]), []).append({"_card": card_id, **card_values.loaded(change[side])})
        if "flag" in change:
            flag = change["flag"][0 if side == "before" else 1]
            if flag:
                flagged.append({"card_id": card_id, "flag": flag})
            else:
                unflagged.append({"_card": card_id})
    for rows in groups.values():
        conn.execute(update(CARD).where(CARD.c.card_id == bindparam("_card")), rows)
    if flagged:
        conn.execute(insert(FLAG).prefix_with("OR REPLACE"), flagged)
    if unflagged:
        conn.execute(delete(FLAG).where(FLAG.c.card_id == bindparam("_card")), unflagged)


@dataclass(frozen=True)
class UndoneOperation:
    """An undone operation: what it was and the cards it gave back their values."""

    operation_id: int
    action: str
    argument: str
    cards: tuple[str, ...]
    source: str


def undo(store: Store, operation_id: int) -> UndoneOperation | None:
    """Undo one journaled operation (None if it is gone or already undone); StoreError naming the
    first card changed since, leaving everything as it was."""
    with _write(store) as conn:
        op = conn.execute(select(OPS.c.id, OPS.c.action, OPS.c.argument, OPS.c.changes, OPS.c.undone, OPS.c.source)
                          .where(OPS.c.id == operation_id)).mappings().first()
        if op is None or op["undone"]:
            return None
        changes = json.loads(op["changes"])
        ids = list(changes)
        card_values = _Stored(conn, CARD, CARD_COLUMNS)
        cards = _stored_cards(conn, ids)
        flags = _stored_flags(conn, ids)
        for card_id, change in changes.items():
            card = cards.get(card_id)
            now_values = card_values.stored({k: card[k] for k in change["after"]}) if card is not None else None
            if card is None or now_values != change["after"] or (
                    "flag" in change and flags.get(card_id, 0) != change["flag"][1]):
                raise StoreError(f"{store.path}: cannot undo the {op['action']}: card {card_id!r} was changed since")
            if op["action"] == "reset_history":
                newer = conn.execute(select(LOG.c.id).where(LOG.c.card_id == card_id).limit(1)).first()
                if newer is not None:
                    raise StoreError(f"{store.path}: cannot undo the reset: card {card_id!r} was answered since")
        _write_sides(conn, changes, "before", card_values)
        log_values = _Stored(conn, LOG, LOG_COLUMNS)
        logs = [log_values.loaded({c: log[c] for c in LOG_COLUMNS})
                for change in changes.values() for log in change.get("logs", ())]
        if logs:
            conn.execute(insert(LOG), logs)
        conn.execute(update(OPS).where(OPS.c.id == operation_id).values(undone=True))
    return UndoneOperation(op["id"], op["action"], op["argument"], tuple(ids), op["source"])


def undo_last(store: Store) -> UndoneOperation | None:
    """Undo this Store's newest operation; with none left, the newest not-undone `quizapp cards`
    change (source cli) in the journal, so a command-line change can be taken back from the app."""
    while store._operation_stack:
        done = undo(store, store._operation_stack.pop())
        if done is not None:
            return done
    with store.reading() as conn:
        row = conn.execute(select(OPS.c.id).where(OPS.c.undone == false(), OPS.c.source == "cli")
                           .order_by(OPS.c.id.desc()).limit(1)).first()
    return undo(store, row[0]) if row is not None else None


def flags(store: Store, card_ids: Sequence[str] | None = None) -> dict[str, int]:
    """card_id -> flag (1..4) for flagged cards (of `card_ids`, if given); a missing table reads as none."""
    with store.reading() as conn:
        if not inspect(conn).has_table(FLAG.name):
            return {}
        if card_ids is None:
            return dict(conn.execute(select(FLAG.c.card_id, FLAG.c.flag)).all())
        return _stored_flags(conn, list(card_ids))
