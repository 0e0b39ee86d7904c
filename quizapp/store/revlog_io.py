"""The review history as the CSV that fsrs-optimizer and srs-benchmark read, both ways.

Columns: card_id (an integer), review_time (ms since the epoch, UTC), review_rating (1..4),
review_state (0 New, 1 Learning, 2 Review, 3 Relearning: the card's state before the answer),
review_duration (ms). Export writes the scheduled answers (review and mock modes; cram moved no
schedule); quizapp's text card ids become stable integers (the first 6 bytes of their BLAKE2b hash).
Import reads another tool's history into imported_review, used by the optimizer only: it schedules
nothing. A malformed file is refused whole, naming its line and column, and nothing is written.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import func, insert, select
from sqlalchemy.exc import SQLAlchemyError

from quizapp.store.errors import StoreError, database_error
from quizapp.store.srs_tables import ImportedReview
from quizapp.store.tables import ReviewLog

if TYPE_CHECKING:
    from quizapp.store.store import Store

COLUMNS = ("card_id", "review_time", "review_rating", "review_state", "review_duration")
MAX_IMPORT_BYTES = 512 * 2**20  # a revlog of ~10 million reviews
MAX_CARD_ID = 2**63 - 1
SCHEDULED = ("review", "mock")
LOG, IMPORTED = ReviewLog.__table__, ImportedReview.__table__
_BATCH = 50_000  # imported rows per executemany


class RevlogError(ValueError):
    """A malformed revlog: `code` (quizapp.words key "revlog.<code>"), 1-based line and column, details."""

    def __init__(self, code: str, line: int, column: int, **details: object) -> None:
        super().__init__(f"line {line}, column {column}: {code} {details}")
        self.code = code
        self.line = line
        self.column = column
        self.details = details


def numeric_card_id(card_id: str) -> int:
    """A stable integer for a quizapp card id (what the CSV's card_id column holds)."""
    return int.from_bytes(hashlib.blake2b(card_id.encode(), digest_size=6).digest(), "big")


@dataclass(frozen=True)
class ExportReport:
    reviews: int
    cards: int


def export_revlog(store: Store, path: Path) -> ExportReport:
    """Write the scheduled history to `path` (a new file; written beside it and renamed into place)."""
    path = Path(path)
    with store.reading() as conn:
        rows = conn.execute(select(LOG.c.card_id, LOG.c.reviewed_at, LOG.c.rating, LOG.c.prev_state, LOG.c.prev_reps,
                                   LOG.c.duration_ms).where(LOG.c.mode.in_(SCHEDULED))
                            .order_by(LOG.c.card_id, LOG.c.id)).all()
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    ids: dict[str, int] = {}
    for card_id, at, rating, prev_state, prev_reps, duration in rows:
        number = ids.setdefault(card_id, numeric_card_id(card_id))
        writer.writerow((number, int(round(at.timestamp() * 1000)), rating, 0 if prev_reps == 0 else prev_state,
                         duration))
    _write_new(path, buffer.getvalue())
    return ExportReport(reviews=len(rows), cards=len(ids))


def _write_new(path: Path, text: str) -> None:
    """Create `path` with `text`, never replacing an existing file (FileExistsError)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "x", encoding="utf-8", newline="") as handle:
        handle.write(text)
    try:
        os.link(tmp, path)  # fails if `path` appeared meanwhile: nothing is overwritten
    finally:
        tmp.unlink()


@dataclass(frozen=True)
class ImportReport:
    reviews: int
    cards: int
    already: bool  # this exact file was imported before: nothing was added


def _int(text: str, low: int, high: int) -> int | None:
    text = text.strip()
    if not text or not (text.isdigit() or (text[0] in "+-" and text[1:].isdigit())) or len(text) > 20:
        return None
    value = int(text)
    return value if low <= value <= high else None


def _columns(raw: str, fields: list[str]) -> list[int]:
    """1-based character column of each field of a CSV line (exact for unquoted lines)."""
    if '"' in raw:
        out, at = [], 1
        for f in fields:
            out.append(at)
            at += len(f) + 1
        return out
    out, at = [], 1
    for part in raw.rstrip("\r\n").split(","):
        out.append(at)
        at += len(part) + 1
    return out


def read_revlog(data: bytes) -> list[tuple[int, int, int, int, int]]:
    """Parse a revlog CSV: rows of (card_id, review_time, rating, state, duration); RevlogError if malformed."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise RevlogError("not_utf8", line, column) from None
    lines = text.splitlines(keepends=True)
    if not lines or not lines[0].strip():
        raise RevlogError("empty", 1, 1)
    header = next(csv.reader([lines[0]]))
    names = [h.strip() for h in header]
    missing = [c for c in COLUMNS if c not in names]
    if missing:
        raise RevlogError("missing_columns", 1, 1, columns=", ".join(missing), found=", ".join(names))
    where = {c: names.index(c) for c in COLUMNS}
    header_cols = _columns(lines[0], header)
    rules = {
        "card_id": (0, MAX_CARD_ID, "revlog.expect.card_id"),
        "review_time": (1, 4102444800000, "revlog.expect.time"),  # up to 2100-01-01
        "review_rating": (1, 4, "revlog.expect.rating"),
        "review_state": (0, 3, "revlog.expect.state"),
        "review_duration": (0, 86_400_000, "revlog.expect.duration"),
    }
    rows: list[tuple[int, int, int, int, int]] = []
    for number, raw in enumerate(lines[1:], start=2):
        if not raw.strip():
            continue
        try:
            fields = next(csv.reader([raw]))
        except csv.Error:
            raise RevlogError("bad_csv", number, 1) from None
        if len(fields) != len(names):
            raise RevlogError("field_count", number, 1, expected=len(names), got=len(fields))
        cols = _columns(raw, fields)
        values = []
        for column in COLUMNS:
            low, high, expected = rules[column]
            i = where[column]
            text = fields[i]
            if column == "review_duration" and not text.strip():
                value: int | None = 0
            else:
                value = _int(text, low, high)
            if value is None:
                raise RevlogError("bad_value", number, cols[i] if i < len(cols) else header_cols[i],
                                  field=column, expected=expected, value=text[:40])
            values.append(value)
        rows.append(tuple(values))  # type: ignore[arg-type]
    if not rows:
        raise RevlogError("no_rows", 2, 1)
    return rows


def import_revlog(store: Store, path: Path) -> ImportReport:
    """Add the reviews of the revlog at `path` to imported_review in one transaction.

    RevlogError (nothing written) for a malformed file; StoreError if it cannot be read. A file whose
    exact bytes were imported before is not added twice.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_IMPORT_BYTES:
            raise StoreError(f"{path}: too large to import ({size:,} bytes; the limit is {MAX_IMPORT_BYTES:,})")
        data = path.read_bytes()
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror or exc}") from None
    rows = read_revlog(data)
    source = f"{path.name} sha256:{hashlib.sha256(data).hexdigest()[:16]}"
    if getattr(store, "read_only", False):
        raise StoreError(f"{store.path}: opened read-only; nothing was changed")
    try:
        with store.engine.execution_options(immediate=True).begin() as conn:
            found = conn.execute(select(func.count()).select_from(IMPORTED).where(IMPORTED.c.source == source)).scalar()
            if found:
                return ImportReport(reviews=int(found), cards=0, already=True)
            add = insert(IMPORTED)
            for start in range(0, len(rows), _BATCH):
                conn.execute(add, [dict(zip(COLUMNS, row), source=source) for row in rows[start:start + _BATCH]])
    except SQLAlchemyError as exc:
        raise database_error(store.path, exc) from None
    return ImportReport(reviews=len(rows), cards=len({r[0] for r in rows}), already=False)
