"""The card browser's search language (Anki's where the idea is the same), parsed and run as one SQL query.

    topic:T  tag:T  kind:question|followup|drill  is:due|new|learn|review|suspended|buried|leech
    flag:N  prop:ivl>N  prop:due<N  prop:lapses>N  prop:reps>N  prop:s>N  prop:d>N  prop:r<N
    rated:N[:RATING]  mistake:ID  missed:POINT  free text  "a phrase"  -negation  or  (grouping)

Terms side by side must all match (and); `or` binds looser than and. `*` in topic: and tag: values
is a wildcard. Free text and tags live in the question bank, not the database: the caller passes a
SearchIndex (built from the bank with `index_from_bank`), whose matches enter the query as one JSON
parameter. The query compiles to one SQLAlchemy Core statement over the card table (review_log
and card_flag conditions as subqueries). Bad syntax raises SearchError with a code (quizapp.words
renders it) and the 1-based column where the problem starts.
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from sqlalchemy import (Boolean, Float, Integer, String, and_, case, cast, false, func, inspect, literal, not_,
                        null, or_, select, true, type_coerce)
from sqlalchemy.dialects import sqlite
from sqlalchemy.sql import operators
from sqlalchemy.sql.elements import ColumnElement, UnaryExpression

from quizapp.store.srs_tables import CardFlag
from quizapp.store.tables import Card, ReviewLog

if TYPE_CHECKING:
    from quizapp.store.store import Store

KEYS = ("topic", "tag", "kind", "is", "flag", "prop", "rated", "mistake", "missed")
KINDS = ("question", "followup", "drill")
IS_VALUES = ("due", "new", "learn", "review", "suspended", "buried", "leech")
PROPS = ("ivl", "due", "lapses", "reps", "s", "d", "r")
OPERATORS = (">=", "<=", "!=", ">", "<", "=")
MAX_RATED_DAYS = 36500
FLAGS = range(0, 5)  # 0 = no flag; 1 red, 2 orange, 3 green, 4 blue (Anki's first four)


class SearchError(ValueError):
    """A query that does not parse: `code` (a quizapp.words key), `column` (1-based), `details`."""

    def __init__(self, code: str, column: int, **details: object) -> None:
        self.code = code
        self.column = column
        self.details = details
        super().__init__(f"col {column}: {code} {details}" if details else f"col {column}: {code}")


@dataclass(frozen=True)
class SearchIndex:
    """What the bank knows and the database does not: each card's searchable text, each question's tags.

    texts: card_id -> lower-case text (the question's title and the card's own prompt);
    tags: question_id -> lower-case tags.
    """

    texts: Mapping[str, str] = field(default_factory=dict)
    tags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def _both(text) -> str:
    """A text field as searched: a plain string, or both languages of an {en, zh} one."""
    if isinstance(text, str):
        return text
    return "\n".join(t for t in (getattr(text, "en", None), getattr(text, "zh", None)) if t)


def index_from_bank(bank) -> SearchIndex:
    """A SearchIndex from a quizapp.content Bank (title + the card's own prompt; topic and tags). Free
    text finds a card in either language: a bank shown in one language is searched through its source."""
    bank = getattr(bank, "source", bank)
    texts: dict[str, str] = {}
    tags: dict[str, tuple[str, ...]] = {}
    for q in bank.questions:
        title = _both(q.title)
        tags[q.id] = tuple(t.lower() for t in q.tags)
        texts[f"{q.id}/question/main"] = title.lower()
        for f in q.followups:
            texts[f"{q.id}/followup/{f.id}"] = f"{title}\n{_both(f.q)}".lower()
        for d in q.drills:
            texts[f"{q.id}/drill/{d.id}"] = f"{title}\n{_both(d.prompt)}".lower()
    return SearchIndex(texts, tags)


# --- the syntax tree -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    key: str  # a KEYS entry, or "text"
    value: object
    column: int


@dataclass(frozen=True)
class Not:
    node: object


@dataclass(frozen=True)
class All:
    nodes: tuple


@dataclass(frozen=True)
class Any_:
    nodes: tuple


@dataclass(frozen=True)
class _Token:
    kind: str  # word | phrase | lparen | rparen | or | and | neg
    text: str
    column: int


def _tokens(query: str) -> list[_Token]:
    out: list[_Token] = []
    i, n = 0, len(query)
    while i < n:
        ch = query[i]
        if ch.isspace():
            i += 1
        elif ch in "()":
            out.append(_Token("lparen" if ch == "(" else "rparen", ch, i + 1))
            i += 1
        elif ch == "-":
            if i + 1 >= n or query[i + 1].isspace() or query[i + 1] == ")":
                raise SearchError("search.dangling_minus", i + 1)
            out.append(_Token("neg", "-", i + 1))
            i += 1
        elif ch == '"':
            end = query.find('"', i + 1)
            if end < 0:
                raise SearchError("search.unclosed_quote", i + 1)
            out.append(_Token("phrase", query[i + 1:end], i + 1))
            i = end + 1
        else:
            start, text = i, []
            while i < n and not query[i].isspace() and query[i] not in "()":
                if query[i] == '"':  # a quoted value: topic:"llm training"
                    end = query.find('"', i + 1)
                    if end < 0:
                        raise SearchError("search.unclosed_quote", i + 1)
                    text.append(query[i + 1:end])
                    i = end + 1
                else:
                    text.append(query[i])
                    i += 1
            word = "".join(text)
            lowered = word.lower()
            kind = lowered if lowered in ("or", "and") and query[start] != '"' else "word"
            out.append(_Token(kind, word, start + 1))
    return out


class _Parser:
    def __init__(self, query: str) -> None:
        self.query = query
        self.tokens = _tokens(query)
        self.i = 0

    def peek(self) -> _Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def parse(self):
        if not self.tokens:
            return All(())
        node = self.either()
        extra = self.peek()
        if extra is not None:  # only an unmatched ")" stops `either` early
            raise SearchError("search.unmatched_close", extra.column)
        return node

    def either(self):
        nodes = [self.both()]
        while (token := self.peek()) is not None and token.kind == "or":
            self.take()
            following = self.peek()
            if following is None or following.kind in ("or", "and", "rparen"):
                raise SearchError("search.or_needs_terms", token.column)
            nodes.append(self.both())
        return nodes[0] if len(nodes) == 1 else Any_(tuple(nodes))

    def both(self):
        token = self.peek()
        if token is not None and token.kind in ("or", "and"):
            raise SearchError("search.or_needs_terms" if token.kind == "or" else "search.and_needs_terms", token.column)
        nodes = [self.negated()]
        while (token := self.peek()) is not None and token.kind not in ("or", "rparen"):
            if token.kind == "and":
                self.take()
                following = self.peek()
                if following is None or following.kind in ("or", "and", "rparen"):
                    raise SearchError("search.and_needs_terms", token.column)
            nodes.append(self.negated())
        return nodes[0] if len(nodes) == 1 else All(tuple(nodes))

    def negated(self):
        token = self.peek()
        if token is not None and token.kind == "neg":
            self.take()
            following = self.peek()
            if following is None or following.kind in ("or", "and", "rparen"):
                raise SearchError("search.dangling_minus", token.column)
            return Not(self.negated())
        return self.atom()

    def atom(self):
        token = self.peek()
        if token is None:  # callers check, but keep the error honest
            raise SearchError("search.missing_term", len(self.query) + 1)
        if token.kind == "rparen":
            raise SearchError("search.unmatched_close", token.column)
        if token.kind in ("or", "and"):
            raise SearchError("search.or_needs_terms" if token.kind == "or" else "search.and_needs_terms", token.column)
        self.take()
        if token.kind == "lparen":
            inner = self.peek()
            if inner is None:
                raise SearchError("search.unclosed_paren", token.column)
            if inner.kind == "rparen":
                raise SearchError("search.empty_parens", token.column)
            node = self.either()
            close = self.peek()
            if close is None or close.kind != "rparen":
                raise SearchError("search.unclosed_paren", token.column)
            self.take()
            return node
        if token.kind == "phrase":
            if not token.text.strip():
                raise SearchError("search.empty_text", token.column)
            return Term("text", token.text.lower(), token.column)
        return _term(token)


_KEY = re.compile(r"([A-Za-z_]+):(.*)", re.S)
_PROP = re.compile(r"([A-Za-z_]+)(>=|<=|!=|>|<|=)(.*)", re.S)
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def _term(token: _Token) -> Term:
    match = _KEY.fullmatch(token.text)
    if match is None:
        return Term("text", token.text.lower(), token.column)
    key, value = match.group(1).lower(), match.group(2)
    at = token.column + len(match.group(1)) + 1  # where the value starts
    if key not in KEYS:
        raise SearchError("search.unknown_key", token.column, key=match.group(1), keys=", ".join(KEYS))
    if not value:
        raise SearchError("search.empty_value", at, key=key)
    if key in ("topic", "tag", "mistake", "missed"):
        return Term(key, value, token.column)
    if key == "kind":
        if value.lower() not in KINDS:
            raise SearchError("search.bad_choice", at, key=key, value=value, choices=" | ".join(KINDS))
        return Term(key, value.lower(), token.column)
    if key == "is":
        if value.lower() not in IS_VALUES:
            raise SearchError("search.bad_choice", at, key=key, value=value, choices=" | ".join(IS_VALUES))
        return Term(key, value.lower(), token.column)
    if key == "flag":
        if not value.isdigit() or int(value) not in FLAGS:
            raise SearchError("search.bad_flag", at, value=value)
        return Term(key, int(value), token.column)
    if key == "rated":
        days, _, rating = value.partition(":")
        if not days.isdigit() or not 1 <= int(days) <= MAX_RATED_DAYS:
            raise SearchError("search.bad_rated_days", at, value=days, most=MAX_RATED_DAYS)
        if _ and (not rating.isdigit() or not 1 <= int(rating) <= 4):
            raise SearchError("search.bad_rating", at + len(days) + 1, value=rating)
        return Term(key, (int(days), int(rating) if rating else None), token.column)
    # prop:NAMEopNUMBER
    prop = _PROP.fullmatch(value)
    if prop is None:
        name = re.match(r"[A-Za-z_]*", value).group(0)
        if name.lower() not in PROPS:
            raise SearchError("search.unknown_prop", at, name=name or value, props=", ".join(PROPS))
        raise SearchError("search.prop_operator", at + len(name), name=name, ops=" ".join(OPERATORS))
    name, op, number = prop.group(1).lower(), prop.group(2), prop.group(3)
    if name not in PROPS:
        raise SearchError("search.unknown_prop", at, name=prop.group(1), props=", ".join(PROPS))
    number_at = at + len(name) + len(op)
    if not _NUMBER.fullmatch(number):
        raise SearchError("search.prop_number", number_at, name=name, value=number)
    if name in ("due", "lapses", "reps") and "." in number:
        raise SearchError("search.prop_whole", number_at, name=name, value=number)
    return Term("prop", (name, op, float(number)), token.column)


def parse(query: str):
    """The syntax tree of `query`; SearchError (code, 1-based column) if it does not parse."""
    return _Parser(query).parse()


# --- the Core statement ---------------------------------------------------------------------------

CARD = Card.__table__
LOG = ReviewLog.__table__
FLAG = CardFlag.__table__
_TIME = CARD.c.due.type  # SQLModel's UTCDateTime: it binds aware datetimes as the stored UTC text
_SQLITE = sqlite.dialect()
_TO_STORED = _TIME.dialect_impl(_SQLITE).bind_processor(_SQLITE)


def stored_time(moment: datetime) -> str:
    """A datetime as the tables store it (UTC text, fixed width), by the datetime columns' own type.

    For tests and tools that write rows or compare stored text: the store's queries bind datetimes
    and let the column type convert them."""
    return _TO_STORED(moment.astimezone(timezone.utc))


def _at(moment: datetime) -> ColumnElement:
    """A datetime parameter, converted by the datetime columns' type."""
    return literal(moment, _TIME)


def _unindexed(column) -> ColumnElement:
    """`+column`: SQLite then leaves the column's index out of the plan (most cards match; a scan is faster)."""
    return UnaryExpression(column, operator=operators.custom_op("+"), type_=column.type)


def _julianday(expr) -> ColumnElement:
    return func.julianday(expr, type_=Float)


def interval() -> ColumnElement:
    """The card's current interval in whole days (due - last review), NULL for a new card."""
    return cast(func.round(_julianday(CARD.c.due) - _julianday(CARD.c.last_review)), Integer)


def retrievability(parameters, now: datetime) -> ColumnElement:
    """FSRS-6 retrievability at `now` (py-fsrs's formula: whole elapsed days), NULL for a new card."""
    decay = -float(parameters[20])
    factor = 0.9 ** (1 / decay) - 1
    elapsed = func.max(0, cast(_julianday(_at(now)) - _julianday(CARD.c.last_review), Integer))
    return case((or_(CARD.c.stability.is_(None), CARD.c.last_review.is_(None)), null()),
                else_=func.pow(1 + literal(factor, Float) * elapsed / CARD.c.stability, literal(decay, Float),
                               type_=Float))


@dataclass
class _Context:
    now: datetime
    day_start: datetime
    day_end: datetime
    day_start_at: Callable[[int], datetime]  # the start of the study day N days from today (calendar days)
    index: SearchIndex | None
    parameters: tuple
    has_flags: bool
    topics: tuple[str, ...] | None = None  # every topic in the card table (None: match with LIKE)


_COMPARE = {">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le, "=": operator.eq,
            "!=": operator.ne}


def _like(pattern: str) -> str:
    escaped = pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%")


def _glob_match(pattern: str, value: str) -> bool:
    regex = ".*".join(re.escape(part) for part in pattern.lower().split("*"))
    return re.fullmatch(regex, value.lower()) is not None


def _ids(ids: Iterable[str]) -> str:
    return json.dumps(sorted(set(ids)))


def _in_json(column, values: str) -> ColumnElement:
    """`column IN (SELECT value FROM json_each(:values))`: one parameter, however many values."""
    each = func.json_each(literal(values, String)).table_valued("value")
    return column.in_(select(each.c.value))


def _where(node, ctx: _Context, negated: bool = False) -> ColumnElement:
    if isinstance(node, All):
        if not node.nodes:
            return true()
        return and_(*(_where(n, ctx, negated) for n in node.nodes))
    if isinstance(node, Any_):
        return or_(*(_where(n, ctx, negated) for n in node.nodes))
    if isinstance(node, Not):
        return not_(_where(node.node, ctx, True))
    leaf = _leaf(node, ctx)
    # Under a NOT a NULL (no stability yet, say) must read as false, or NOT NULL would drop the card;
    # elsewhere the bare comparison keeps the column's index usable.
    return func.coalesce(leaf, false(), type_=Boolean) if negated else leaf


def _leaf(term: Term, ctx: _Context) -> ColumnElement:
    c = CARD.c
    key, value = term.key, term.value
    if key == "topic":
        if ctx.topics is not None:  # the matching topics, looked up first: the topic index does the rest
            return _in_json(c.topic, json.dumps([t for t in ctx.topics if _glob_match(str(value), t)]))
        return c.topic.like(_like(str(value)), escape="\\")
    if key == "kind":
        return c.kind == value
    if key == "text":
        if ctx.index is None:  # no bank: the card id is all there is
            return c.card_id.like(f"%{_like(str(value))}%", escape="\\")
        return _in_json(c.card_id, _ids(cid for cid, text in ctx.index.texts.items() if value in text))
    if key == "tag":
        tags = ctx.index.tags if ctx.index is not None else {}
        return _in_json(c.question_id,
                        _ids(qid for qid, names in tags.items() if any(_glob_match(str(value), t) for t in names)))
    if key == "is":
        if value == "due":
            return and_(_unindexed(c.reps) > 0, c.suspended == false(),
                        or_(c.buried_until.is_(None), c.buried_until <= ctx.now), c.due < ctx.day_end)
        if value == "new":
            return c.reps == 0
        if value == "learn":
            return and_(_unindexed(c.reps) > 0, c.state.in_((1, 3)))
        if value == "review":
            return and_(_unindexed(c.reps) > 0, c.state.in_((2, 3)))
        if value == "suspended":
            return c.suspended == true()
        if value == "buried":
            return and_(c.buried_until.is_not(None), c.buried_until > ctx.now)
        return c.leech == true()
    if key == "flag":
        if not ctx.has_flags:
            return true() if value == 0 else false()
        if value == 0:
            return c.card_id.not_in(select(FLAG.c.card_id))
        return c.card_id.in_(select(FLAG.c.card_id).where(FLAG.c.flag == value))
    if key == "rated":
        days, rating = value
        answered = select(LOG.c.card_id).where(LOG.c.reviewed_at >= ctx.day_start_at(1 - days))
        if rating is not None:
            answered = answered.where(LOG.c.rating == rating)
        return c.card_id.in_(answered)
    if key == "mistake":
        # each card's last wrong answer (SQLite gives a bare column the values of the max(id) row); the
        # literal 'wrong' lets SQLite use the partial index of wrong answers (ix_review_log_wrong)
        last_wrong = (select(LOG.c.card_id, LOG.c.mistake, func.max(LOG.c.id))
                      .where(LOG.c.verdict == literal("wrong", String, literal_execute=True))
                      .group_by(LOG.c.card_id).subquery())
        # mistake ids are lower-case slugs: matching ignores case, as every other term's does
        return c.card_id.in_(select(last_wrong.c.card_id).where(func.lower(last_wrong.c.mistake) == value.lower()))
    if key == "missed":
        # cards whose last answer that recorded key point POINT left it uncovered (`*` a wildcard)
        from quizapp.store.tables import ReviewPoint

        points = ReviewPoint.__table__
        pattern = value.lower()
        chosen = points.c.point.like(_like(pattern), escape="\\") if "*" in pattern else points.c.point == pattern
        last = (select(points.c.card_id, points.c.point, points.c.covered, func.max(points.c.id))
                .where(chosen).group_by(points.c.card_id, points.c.point).subquery())
        return c.card_id.in_(select(last.c.card_id).where(last.c.covered.is_(False)))
    name, op, number = value
    if name == "due":  # the study day the card is due on, counted from today: 0 = due today, -1 yesterday
        n = int(number)
        starts, after = _at(ctx.day_start_at(n)), _at(ctx.day_start_at(n + 1))  # calendar days (DST-safe)
        within = and_(c.due >= starts, c.due < after)
        rule = {"<": c.due < starts, ">=": c.due >= starts, ">": c.due >= after, "<=": c.due < after,
                "=": within, "!=": not_(within)}[op]
        return and_(_unindexed(c.reps) > 0, rule)
    if name == "ivl":
        expr = case((_unindexed(c.reps) > 0, interval()))
    elif name == "lapses":
        expr = c.lapses
    elif name == "reps":
        expr = c.reps
    elif name == "s":
        expr = c.stability
    elif name == "d":
        expr = (c.difficulty - 1) / 9.0
    else:
        expr = retrievability(ctx.parameters, ctx.now)
    return _COMPARE[op](expr, literal(number, Float))


# Each sort: its ORDER BY terms, by name (see _order_by). Descending reverses every term but the
# `IS NULL` and `reps = 0` ones: new cards, or cards without the value, stay last.
ORDER = {
    "bank": ("bank_order", "card_id"),
    "due": ("reps = 0", "due", "card_id"),
    "ivl": ("ivl IS NULL", "ivl", "card_id"),
    "s": ("stability IS NULL", "stability", "card_id"),
    "d": ("difficulty IS NULL", "difficulty", "card_id"),
    "r": ("r IS NULL", "r", "card_id"),
    "lapses": ("lapses", "card_id"),
    "reps": ("reps", "card_id"),
    "topic": ("topic", "bank_order", "card_id"),
    "kind": ("kind", "bank_order", "card_id"),
    "flag": ("flag IS NULL", "flag", "card_id"),
    "card": ("card_id",),
}


def _order_by(sort: str, descending: bool, computed: Mapping[str, ColumnElement]) -> list[ColumnElement]:
    """The ORDER BY terms of `sort`; `computed`: the labelled ivl, r and flag columns of the select."""
    out = []
    for name in ORDER[sort]:
        if name == "reps = 0":
            out.append(CARD.c.reps == 0)
            continue
        base, _, test = name.partition(" IS ")
        expr = computed[base] if base in computed else CARD.c[base]
        if test:
            out.append((expr.element if base in computed else expr).is_(None))
        else:
            out.append(expr.desc() if descending else expr)
    return out


@dataclass(frozen=True)
class FoundCard:
    """A card as the browser lists it: the card row's values plus interval (days), R now and flag."""

    card_id: str
    question_id: str
    kind: str
    item_id: str
    topic: str
    state: int
    reps: int
    lapses: int
    stability: float | None
    difficulty: float | None
    due: str  # stored UTC text
    last_review: str | None
    suspended: bool
    buried: bool
    leech: bool
    interval: int | None
    retrievability: float | None
    flag: int

    @property
    def is_new(self) -> bool:
        return self.reps == 0


def _flags_present(conn) -> bool:
    return inspect(conn).has_table(FLAG.name)


def _terms(node):
    if isinstance(node, Term):
        yield node
    elif isinstance(node, Not):
        yield from _terms(node.node)
    elif isinstance(node, (All, Any_)):
        for child in node.nodes:
            yield from _terms(child)


def compile_query(store: Store, query: str, index: SearchIndex | None, *, conn=None, now: datetime | None = None,
                  has_flags: bool | None = None) -> ColumnElement:
    """The WHERE clause over the card table for `query`, a Core expression; SearchError if it does not parse.

    conn: a connection to look up the topics and whether card_flag exists (without one: topics match
    with LIKE and flags are assumed); now: the time to search at (the store's clock)."""
    tree = parse(query)
    now = (now or store.clock.now()).astimezone(timezone.utc)
    start, end = store.day_bounds(now)
    if has_flags is None:
        has_flags = True if conn is None else _flags_present(conn)
    topics = None
    if conn is not None and any(isinstance(t, Term) and t.key == "topic" for t in _terms(tree)):
        topics = tuple(conn.execute(select(CARD.c.topic).distinct()).scalars())
    ctx = _Context(now, start, end, lambda days: store.study_day_start(days, now), index,
                   tuple(store.config.parameters), has_flags, topics)
    return and_(CARD.c.orphaned == false(), _where(tree, ctx))


def find(store: Store, query: str, index: SearchIndex | None = None, *, sort: str = "bank",
         descending: bool = False, limit: int | None = None) -> tuple[list[FoundCard], int]:
    """The cards matching `query` (not orphaned), sorted, at most `limit`; and how many matched in all."""
    if sort not in ORDER:
        raise ValueError(f"sort: expected one of {', '.join(ORDER)}, got {sort!r}")
    with store.reading() as conn:
        now = store.clock.now().astimezone(timezone.utc)
        has_flags = _flags_present(conn)
        where = compile_query(store, query, index, conn=conn, now=now, has_flags=has_flags)
        c = CARD.c
        computed = {
            "ivl": case((c.reps > 0, interval())).label("ivl"),
            "r": retrievability(store.config.parameters, now).label("r"),
            "flag": (select(FLAG.c.flag).where(FLAG.c.card_id == c.card_id).scalar_subquery()
                     if has_flags else null()).label("flag"),
        }
        # due and last_review as the stored text (FoundCard's form); the booleans by their column types
        statement = (select(c.card_id, c.question_id, c.kind, c.item_id, c.topic, c.state, c.reps, c.lapses,
                            c.stability, c.difficulty, type_coerce(c.due, String).label("due"),
                            type_coerce(c.last_review, String).label("last_review"), c.suspended,
                            and_(c.buried_until.is_not(None), c.buried_until > now).label("buried"), c.leech,
                            computed["ivl"], computed["r"], computed["flag"])
                     .where(where).order_by(*_order_by(sort, descending, computed)))
        if limit is not None:
            statement = statement.limit(int(limit))
        total = conn.execute(select(func.count()).select_from(CARD).where(where)).scalar_one()
        # the columns are FoundCard's fields, in order (flag: NULL for none)
        found = [FoundCard(*row[:17], row[17] or 0) for row in conn.execute(statement)]
    return found, total


def find_ids(store: Store, query: str, index: SearchIndex | None = None) -> list[str]:
    """Only the ids of the matching cards, in bank order (the cheapest form: the benchmark's query)."""
    with store.reading() as conn:
        where = compile_query(store, query, index, conn=conn)
        statement = select(CARD.c.card_id).where(where).order_by(CARD.c.bank_order, CARD.c.card_id)
        return list(conn.execute(statement).scalars())
