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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError

from quizapp.store.errors import StoreError, database_error
from quizapp.store.search import stored_time

if TYPE_CHECKING:
    from quizapp.store.store import Store

ACTIONS = ("suspend", "unsuspend", "bury", "reset", "reset_history", "due", "flag")
CARD_COLUMNS = ("state", "step", "stability", "difficulty", "due", "last_review", "suspended", "buried_until",
                "leech", "lapses", "reps")
LOG_COLUMNS = ("id", "card_id", "rating", "reviewed_at", "duration_ms", "mode", "answer", "verdict", "mistake",
               "prev_state", "prev_reps", "card_before", "buried_siblings")
_CHUNK = 500  # ids per IN (...) list: far below SQLite's variable limit


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


def _stored_cards(conn, ids: Sequence[str]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        rows = conn.exec_driver_sql(
            f"SELECT card_id, orphaned, {', '.join(CARD_COLUMNS)} FROM card WHERE card_id IN ({marks})",
            tuple(chunk)).mappings().all()
        out.update({r["card_id"]: dict(r) for r in rows})
    return out


def _stored_flags(conn, ids: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        out.update(dict(conn.exec_driver_sql(
            f"SELECT card_id, flag FROM card_flag WHERE card_id IN ({marks})", tuple(chunk)).all()))
    return out


def _new_values(action: str, card: dict, store: Store, now: datetime, argument, day_end: datetime,
                day_start: datetime) -> dict | str:
    """The card columns `action` writes, or a skip reason code."""
    if action == "suspend":
        return "already" if card["suspended"] else {"suspended": 1}
    if action == "unsuspend":
        return {"suspended": 0} if card["suspended"] else "already"
    if action == "bury":
        end = stored_time(day_end)
        if card["buried_until"] is not None and card["buried_until"] >= end:
            return "already"
        return {"buried_until": end}
    if action in ("reset", "reset_history"):
        if card["reps"] == 0 and card["lapses"] == 0 and action == "reset":
            return "already"
        return {"state": 1, "step": 0, "stability": None, "difficulty": None, "due": stored_time(now),
                "last_review": None, "reps": 0, "lapses": 0, "leech": 0, "buried_until": None}
    if action == "due":
        if card["reps"] == 0:
            return "new"  # a new card has no memory state to schedule from: answer it first
        spec: DueSpec = argument
        days = random.Random(f"{card['card_id']}/{stored_time(now)}").randint(spec.low, spec.high)
        # due at the start of that study day, so it is due the whole day (and `0` means now)
        due = max(day_start + timedelta(days=days), now if days == 0 else day_start)
        return {"due": stored_time(due), "buried_until": None}
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
    day_start, day_end = store.day_bounds(now)
    changes: dict[str, dict] = {}
    skipped: dict[str, str] = {}
    with _write(store) as conn:
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
            values = _new_values(action, card, store, now, argument, day_end, day_start)
            if isinstance(values, str):
                skipped[card_id] = values
                continue
            changes[card_id] = {"before": {k: card[k] for k in values}, "after": values}
        for card_id, change in changes.items():
            _write_side(conn, card_id, change, "after")
        if action == "reset_history":
            for card_id, change in changes.items():
                rows = conn.exec_driver_sql(
                    f"SELECT {', '.join(LOG_COLUMNS)} FROM review_log WHERE card_id = ? ORDER BY id",
                    (card_id,)).mappings().all()
                change["logs"] = [dict(r) for r in rows]
                conn.exec_driver_sql("DELETE FROM review_log WHERE card_id = ?", (card_id,))
        if not changes:
            return OperationResult(None, action, str(argument or ""), (), skipped)
        op_id = conn.exec_driver_sql(
            "INSERT INTO card_operation (at, source, action, argument, cards, changes, undone) "
            "VALUES (?, ?, ?, ?, ?, ?, 0)",
            (stored_time(now), source, action, "" if argument is None else str(argument), len(changes),
             json.dumps(changes, ensure_ascii=False))).lastrowid
    store._operation_stack.append(op_id)
    return OperationResult(op_id, action, "" if argument is None else str(argument), tuple(changes), skipped)


def _write_side(conn, card_id: str, change: dict, side: str) -> None:
    """Write one side of a journaled change ("after" to apply it, "before" to undo it): card columns, flag."""
    if change[side]:
        assignments = ", ".join(f"{col} = ?" for col in change[side])
        conn.exec_driver_sql(f"UPDATE card SET {assignments} WHERE card_id = ?", (*change[side].values(), card_id))
    if "flag" in change:
        _write_flag(conn, card_id, change["flag"][0 if side == "before" else 1])


def _write_flag(conn, card_id: str, flag: int) -> None:
    if flag:
        conn.exec_driver_sql("INSERT OR REPLACE INTO card_flag (card_id, flag) VALUES (?, ?)", (card_id, flag))
    else:
        conn.exec_driver_sql("DELETE FROM card_flag WHERE card_id = ?", (card_id,))


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
        op = conn.exec_driver_sql(
            "SELECT id, action, argument, changes, undone, source FROM card_operation WHERE id = ?",
            (operation_id,)).mappings().first()
        if op is None or op["undone"]:
            return None
        changes = json.loads(op["changes"])
        ids = list(changes)
        cards = _stored_cards(conn, ids)
        flags = _stored_flags(conn, ids)
        for card_id, change in changes.items():
            card = cards.get(card_id)
            now_values = {k: card[k] for k in change["after"]} if card is not None else None
            if card is None or now_values != change["after"] or (
                    "flag" in change and flags.get(card_id, 0) != change["flag"][1]):
                raise StoreError(f"{store.path}: cannot undo the {op['action']}: card {card_id!r} was changed since")
            if op["action"] == "reset_history":
                newer = conn.exec_driver_sql("SELECT 1 FROM review_log WHERE card_id = ? LIMIT 1", (card_id,)).first()
                if newer is not None:
                    raise StoreError(f"{store.path}: cannot undo the reset: card {card_id!r} was answered since")
        for card_id, change in changes.items():
            _write_side(conn, card_id, change, "before")
            for log in change.get("logs", ()):
                conn.exec_driver_sql(
                    f"INSERT INTO review_log ({', '.join(LOG_COLUMNS)}) VALUES ({','.join('?' * len(LOG_COLUMNS))})",
                    tuple(log[c] for c in LOG_COLUMNS))
        conn.exec_driver_sql("UPDATE card_operation SET undone = 1 WHERE id = ?", (operation_id,))
    return UndoneOperation(op["id"], op["action"], op["argument"], tuple(ids), op["source"])


def undo_last(store: Store) -> UndoneOperation | None:
    """Undo this Store's newest operation; with none left, the newest not-undone `quizapp cards`
    change (source cli) in the journal, so a command-line change can be taken back from the app."""
    while store._operation_stack:
        done = undo(store, store._operation_stack.pop())
        if done is not None:
            return done
    with store.reading() as conn:
        row = conn.exec_driver_sql(
            "SELECT id FROM card_operation WHERE undone = 0 AND source = 'cli' ORDER BY id DESC LIMIT 1").first()
    return undo(store, row[0]) if row is not None else None


def flags(store: Store, card_ids: Sequence[str] | None = None) -> dict[str, int]:
    """card_id -> flag (1..4) for flagged cards (of `card_ids`, if given); a missing table reads as none."""
    with store.reading() as conn:
        present = conn.exec_driver_sql(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'card_flag'").first()
        if present is None:
            return {}
        if card_ids is None:
            return dict(conn.exec_driver_sql("SELECT card_id, flag FROM card_flag").all())
        return _stored_flags(conn, list(card_ids))
