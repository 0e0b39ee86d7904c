"""The card browser's search language (Anki's where the idea is the same), parsed and run as one SQL query.

    topic:T  tag:T  kind:question|followup|drill  is:due|new|learn|review|suspended|buried|leech
    flag:N  prop:ivl>N  prop:due<N  prop:lapses>N  prop:reps>N  prop:s>N  prop:d>N  prop:r<N
    rated:N[:RATING]  mistake:ID  free text  "a phrase"  -negation  or  (grouping)

Terms side by side must all match (and); `or` binds looser than and. `*` in topic: and tag: values
is a wildcard. Free text and tags live in the question bank, not the database: the caller passes a
SearchIndex (built from the bank with `index_from_bank`), whose matches enter the query as one JSON
parameter. Bad syntax raises SearchError with a code (quizapp.words renders it) and the 1-based
column where the problem starts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quizapp.store.store import Store

KEYS = ("topic", "tag", "kind", "is", "flag", "prop", "rated", "mistake")
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


def index_from_bank(bank) -> SearchIndex:
    """A SearchIndex from a quizapp.content Bank (title + the card's own prompt; topic and tags)."""
    texts: dict[str, str] = {}
    tags: dict[str, tuple[str, ...]] = {}
    for q in bank.questions:
        tags[q.id] = tuple(t.lower() for t in q.tags)
        texts[f"{q.id}/question/main"] = q.title.lower()
        for f in q.followups:
            texts[f"{q.id}/followup/{f.id}"] = f"{q.title}\n{f.q}".lower()
        for d in q.drills:
            texts[f"{q.id}/drill/{d.id}"] = f"{q.title}\n{d.prompt}".lower()
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
    if key in ("topic", "tag", "mistake"):
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


# --- SQL ---------------------------------------------------------------------------------------------


def stored_time(moment: datetime) -> str:
    """A datetime as the tables store it (UTC text, fixed width), for comparisons in SQL."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")


def _like(pattern: str) -> str:
    escaped = pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%")


def _glob_match(pattern: str, value: str) -> bool:
    regex = ".*".join(re.escape(part) for part in pattern.lower().split("*"))
    return re.fullmatch(regex, value.lower()) is not None


def interval_sql() -> str:
    """The card's current interval in whole days (due - last review), NULL for a new card."""
    return "CAST(round(julianday(c.due) - julianday(c.last_review)) AS INTEGER)"


def retrievability_sql(parameters) -> tuple[str, list]:
    """FSRS-6 retrievability now (py-fsrs's formula: whole elapsed days), NULL for a new card."""
    decay = -float(parameters[20])
    factor = 0.9 ** (1 / decay) - 1
    sql = ("(CASE WHEN c.stability IS NULL OR c.last_review IS NULL THEN NULL ELSE "
           "pow(1 + ? * max(0, CAST(julianday(?) - julianday(c.last_review) AS INTEGER)) / c.stability, ?) END)")
    return sql, [factor, None, decay]  # the None is the current time, filled by the compiler


@dataclass
class _Context:
    now: datetime
    day_start: datetime
    day_end: datetime
    index: SearchIndex | None
    parameters: tuple
    has_flags: bool
    topics: tuple[str, ...] | None = None  # every topic in the card table (None: match with LIKE)


def _compare(expr: str, op: str) -> str:
    return f"{expr} {'<>' if op == '!=' else op} ?"


def _sql(node, ctx: _Context, params: list, negated: bool = False) -> str:
    if isinstance(node, All):
        if not node.nodes:
            return "1"
        return "(" + " AND ".join(_sql(n, ctx, params, negated) for n in node.nodes) + ")"
    if isinstance(node, Any_):
        return "(" + " OR ".join(_sql(n, ctx, params, negated) for n in node.nodes) + ")"
    if isinstance(node, Not):
        return f"(NOT {_sql(node.node, ctx, params, True)})"
    leaf = _leaf(node, ctx, params)
    # Under a NOT a NULL (no stability yet, say) must read as false, or NOT NULL would drop the card;
    # elsewhere the bare comparison keeps the column's index usable.
    return f"coalesce({leaf}, 0)" if negated else leaf


def _ids(ids: Iterable[str]) -> str:
    return json.dumps(sorted(set(ids)))


def _leaf(term: Term, ctx: _Context, params: list) -> str:
    # `+c.reps > 0` keeps SQLite off the reps index: most cards match it, and a scan is faster.
    now = stored_time(ctx.now)
    key, value = term.key, term.value
    if key == "topic":
        if ctx.topics is not None:  # the matching topics, looked up first: the topic index does the rest
            params.append(json.dumps([t for t in ctx.topics if _glob_match(str(value), t)]))
            return "(c.topic IN (SELECT value FROM json_each(?)))"
        params.append(_like(str(value)))
        return "(c.topic LIKE ? ESCAPE '\\')"
    if key == "kind":
        params.append(value)
        return "(c.kind = ?)"
    if key == "text":
        if ctx.index is None:  # no bank: the card id is all there is
            params.append(f"%{_like(str(value))}%")
            return "(c.card_id LIKE ? ESCAPE '\\')"
        params.append(_ids(cid for cid, text in ctx.index.texts.items() if value in text))
        return "(c.card_id IN (SELECT value FROM json_each(?)))"
    if key == "tag":
        tags = ctx.index.tags if ctx.index is not None else {}
        params.append(_ids(qid for qid, names in tags.items() if any(_glob_match(str(value), t) for t in names)))
        return "(c.question_id IN (SELECT value FROM json_each(?)))"
    if key == "is":
        if value == "due":
            params += [now, stored_time(ctx.day_end)]
            return ("(+c.reps > 0 AND c.suspended = 0 AND (c.buried_until IS NULL OR c.buried_until <= ?)"
                    " AND c.due < ?)")
        if value == "new":
            return "(c.reps = 0)"
        if value == "learn":
            return "(+c.reps > 0 AND c.state IN (1, 3))"
        if value == "review":
            return "(+c.reps > 0 AND c.state IN (2, 3))"
        if value == "suspended":
            return "(c.suspended = 1)"
        if value == "buried":
            params.append(now)
            return "(c.buried_until IS NOT NULL AND c.buried_until > ?)"
        return "(c.leech = 1)"
    if key == "flag":
        if not ctx.has_flags:
            return "1" if value == 0 else "0"
        if value == 0:
            return "(c.card_id NOT IN (SELECT card_id FROM card_flag))"
        params.append(value)
        return "(c.card_id IN (SELECT card_id FROM card_flag WHERE flag = ?))"
    if key == "rated":
        days, rating = value
        since = ctx.day_start - timedelta(days=days - 1)
        params.append(stored_time(since))
        if rating is None:
            return "(c.card_id IN (SELECT card_id FROM review_log WHERE reviewed_at >= ?))"
        params.append(rating)
        return "(c.card_id IN (SELECT card_id FROM review_log WHERE reviewed_at >= ? AND rating = ?))"
    if key == "mistake":
        params.append(value)
        # each card's last wrong answer (SQLite gives a bare column the values of the max(id) row)
        return ("(c.card_id IN (SELECT card_id FROM (SELECT card_id, mistake, max(id) FROM review_log"
                " WHERE verdict = 'wrong' GROUP BY card_id) WHERE mistake = ?))")
    name, op, number = value
    if name == "due":  # whole days from today's start to the due time: 0 = due today
        n = int(number)
        offset = "(julianday(c.due) - julianday(?))"
        day = stored_time(ctx.day_start)
        within = f"({offset} >= {n} AND {offset} < {n + 1})"
        rules = {"<": (f"{offset} < {n}", 1), ">=": (f"{offset} >= {n}", 1), ">": (f"{offset} >= {n + 1}", 1),
                 "<=": (f"{offset} < {n + 1}", 1), "=": (within, 2), "!=": (f"NOT {within}", 2)}
        rule, uses = rules[op]
        params += [day] * uses
        return f"(+c.reps > 0 AND {rule})"
    if name == "ivl":
        expr = f"(CASE WHEN +c.reps > 0 THEN {interval_sql()} END)"
    elif name == "lapses":
        expr = "c.lapses"
    elif name == "reps":
        expr = "c.reps"
    elif name == "s":
        expr = "c.stability"
    elif name == "d":
        expr = "((c.difficulty - 1) / 9.0)"
    else:
        sql, extra = retrievability_sql(ctx.parameters)
        params += [extra[0], now, extra[2]]
        expr = sql
    params.append(number)
    return f"({_compare(expr, op)})"


ORDER = {
    "bank": "c.bank_order, c.card_id",
    "due": "c.reps = 0, c.due, c.card_id",
    "ivl": "ivl IS NULL, ivl, c.card_id",
    "s": "c.stability IS NULL, c.stability, c.card_id",
    "d": "c.difficulty IS NULL, c.difficulty, c.card_id",
    "r": "r IS NULL, r, c.card_id",
    "lapses": "c.lapses, c.card_id",
    "reps": "c.reps, c.card_id",
    "topic": "c.topic, c.bank_order, c.card_id",
    "kind": "c.kind, c.bank_order, c.card_id",
    "flag": "flag IS NULL, flag, c.card_id",
    "card": "c.card_id",
}


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
    return conn.exec_driver_sql(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'card_flag'").first() is not None


def _terms(node):
    if isinstance(node, Term):
        yield node
    elif isinstance(node, Not):
        yield from _terms(node.node)
    elif isinstance(node, (All, Any_)):
        for child in node.nodes:
            yield from _terms(child)


def compile_query(store: Store, query: str, index: SearchIndex | None, *, conn=None) -> tuple[str, list]:
    """(WHERE clause over `card c`, its parameters) for `query`; SearchError if it does not parse."""
    tree = parse(query)
    now = store.clock.now().astimezone(timezone.utc)
    start, end = store.day_bounds(now)
    has_flags = True if conn is None else _flags_present(conn)
    topics = None
    if conn is not None and any(isinstance(t, Term) and t.key == "topic" for t in _terms(tree)):
        topics = tuple(r[0] for r in conn.exec_driver_sql("SELECT DISTINCT topic FROM card"))
    ctx = _Context(now, start, end, index, tuple(store.config.parameters), has_flags, topics)
    params: list = []
    where = _sql(tree, ctx, params)
    return f"c.orphaned = 0 AND {where}", params


def find(store: Store, query: str, index: SearchIndex | None = None, *, sort: str = "bank",
         descending: bool = False, limit: int | None = None) -> tuple[list[FoundCard], int]:
    """The cards matching `query` (not orphaned), sorted, at most `limit`; and how many matched in all."""
    if sort not in ORDER:
        raise ValueError(f"sort: expected one of {', '.join(ORDER)}, got {sort!r}")
    with store.reading() as conn:
        where, params = compile_query(store, query, index, conn=conn)
        has_flags = _flags_present(conn)
        r_sql, r_extra = retrievability_sql(store.config.parameters)
        flag = "(SELECT f.flag FROM card_flag f WHERE f.card_id = c.card_id)" if has_flags else "NULL"
        order = ORDER[sort]
        if descending:
            order = ", ".join(part if part.endswith("IS NULL") or part.startswith("c.reps = 0") else f"{part} DESC"
                              for part in (p.strip() for p in order.split(",")))
        select = (f"SELECT c.card_id, c.question_id, c.kind, c.item_id, c.topic, c.state, c.reps, c.lapses, "
                  f"c.stability, c.difficulty, c.due, c.last_review, c.suspended, "
                  f"(c.buried_until IS NOT NULL AND c.buried_until > ?) AS buried, c.leech, "
                  f"CASE WHEN c.reps > 0 THEN {interval_sql()} END AS ivl, {r_sql} AS r, {flag} AS flag "
                  f"FROM card c WHERE {where} ORDER BY {order}")
        now = stored_time(store.clock.now())
        head = [now, r_extra[0], now, r_extra[2]]
        cursor = conn.connection.driver_connection.cursor()
        try:
            total = cursor.execute(f"SELECT count(*) FROM card c WHERE {where}", params).fetchone()[0]
            rows = cursor.execute(select + (f" LIMIT {int(limit)}" if limit is not None else ""),
                                  head + params).fetchall()
        finally:
            cursor.close()
    found = [FoundCard(card_id=r[0], question_id=r[1], kind=r[2], item_id=r[3], topic=r[4], state=r[5],
                       reps=r[6], lapses=r[7], stability=r[8], difficulty=r[9], due=r[10], last_review=r[11],
                       suspended=bool(r[12]), buried=bool(r[13]), leech=bool(r[14]), interval=r[15],
                       retrievability=r[16], flag=r[17] or 0) for r in rows]
    return found, total


def find_ids(store: Store, query: str, index: SearchIndex | None = None) -> list[str]:
    """Only the ids of the matching cards, in bank order (the cheapest form: the benchmark's query)."""
    with store.reading() as conn:
        where, params = compile_query(store, query, index, conn=conn)
        cursor = conn.connection.driver_connection.cursor()
        try:
            return [r[0] for r in cursor.execute(
                f"SELECT c.card_id FROM card c WHERE {where} ORDER BY c.bank_order, c.card_id", params)]
        finally:
            cursor.close()
