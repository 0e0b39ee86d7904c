"""The mock-interview domain: which questions to ask, what was answered, how it scored, what to retry.

Everything a mock interview decides lives here, below the TUI, so it is unit-tested without Textual:
drawing questions (weighted toward weak and overdue cards, reproducible from a seed), planning the
steps (question, its follow-ups, its quick calculations), writing each answer as the user moves on
(so a quit or a crash keeps it), resuming, scoring, the "retry the misses" list, and putting chosen
ratings into the schedule through `Store.review(..., mode="mock")`.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, select

from quizapp.content import Bank, Question, draw_variant, grade
from quizapp.store.countdown import followup_budget
from quizapp.store.errors import database_error
from quizapp.store.mock_tables import MockItem, MockSession
from quizapp.store.tables import Card

AGAIN, HARD, GOOD, EASY = 1, 2, 3, 4
KINDS = ("question", "followup", "drill")
SKIPPED = "skipped"  # a quick calculation left without a readable answer (empty, or time ran out)


class MockError(ValueError):
    """A mock interview cannot be set up as asked (one line, names the option)."""


@dataclass(frozen=True)
class MockOptions:
    """What the user chose: `quizapp mock` flags or the setup form on Home."""

    questions: int = 3
    minutes: float = 5.0  # per question; fractions allowed (0.5 = 30 s)
    followups: int = 2
    topics: tuple[str, ...] = ()  # empty = every topic
    seed: int | None = None
    strict: bool = False
    calcs: int = 2  # quick calculations per question (at most), chosen with the seed

    def __post_init__(self) -> None:
        if self.questions < 1:
            raise MockError(f"--questions: expected a whole number >= 1, got {self.questions}")
        if not self.minutes > 0 or self.minutes != self.minutes or self.minutes > 24 * 60:
            raise MockError(f"--minutes: expected a number of minutes > 0 (e.g. 5 or 0.5), got {self.minutes}")
        if self.followups < 0:
            raise MockError(f"--followups: expected a whole number >= 0, got {self.followups}")
        if self.calcs < 0:
            raise MockError(f"--calcs: expected a whole number >= 0, got {self.calcs}")

    @property
    def question_budget(self) -> float:
        return self.minutes * 60.0


# --- drawing -------------------------------------------------------------------------------------


def card_weakness(card, now: datetime) -> float:
    """How much a card needs practice: 0 for a card never reviewed or well known, larger when weak.

    lapses (0.5 each, up to 4), overdue time relative to the card's stability (up to 3), and
    difficulty above the middle of FSRS's 1..10 scale (up to 1).
    """
    if card is None or getattr(card, "is_new", False) or getattr(card, "last_review", None) is None:
        return 0.0
    lapses = min(int(getattr(card, "lapses", 0) or 0), 4) * 0.5
    overdue = 0.0
    due = getattr(card, "due", None)
    if due is not None and due < now:
        stability = max(float(getattr(card, "stability", None) or 1.0), 1.0)
        overdue = min((now - due).total_seconds() / 86400.0 / stability, 3.0)
    difficulty = float(getattr(card, "difficulty", None) or 5.0)
    hard = min(max(difficulty - 5.0, 0.0) / 5.0, 1.0)
    return lapses + overdue + hard


def question_weight(question_id: str, cards: Mapping[str, object], now: datetime) -> float:
    """1 + the weakness of the question's weakest card (its own card, follow-ups or drills)."""
    prefix = f"{question_id}/"
    worst = max((card_weakness(c, now) for cid, c in cards.items() if cid.startswith(prefix)), default=0.0)
    return 1.0 + worst


def draw_questions(bank: Bank, cards: Mapping[str, object], options: MockOptions, now: datetime,
                   rng: random.Random) -> list[Question]:
    """Weighted sampling without replacement (Efraimidis-Spirakis keys), in bank order for a fixed seed."""
    wanted = set(options.topics)
    pool = [q for q in bank.questions if not wanted or q.topic in wanted]
    if not bank.questions:
        raise MockError("no questions to ask: the question bank is empty (see `quizapp validate`)")
    if not pool:
        known = ", ".join(bank.topics()) or "none"
        raise MockError(f"--topic: no questions in {', '.join(sorted(wanted))}; topics are: {known}")
    keyed = []
    for question in pool:
        weight = question_weight(question.id, cards, now)
        keyed.append((rng.random() ** (1.0 / weight), question))
    keyed.sort(key=lambda pair: pair[0], reverse=True)
    return [q for _, q in keyed[: options.questions]]


@dataclass(frozen=True)
class PlannedStep:
    """One step of the interview before it is stored."""

    question_index: int
    kind: str
    question_id: str
    item_id: str
    topic: str
    prompt: str
    budget_s: float
    unit: str | None = None
    variant_seed: int | None = None
    expected: float | None = None
    expected_display: str | None = None

    @property
    def card_id(self) -> str:
        return f"{self.question_id}/{self.kind}/{self.item_id}"


def plan_steps(questions: Sequence[Question], options: MockOptions, rng: random.Random) -> list[PlannedStep]:
    """Per question: the question, its first K follow-ups, then up to N of its numeric drills.

    The N drills are drawn with `rng` (so the seed reproduces them) and asked in the question's order;
    a question with many drills does not turn a short interview into a long calculation session.
    """
    steps: list[PlannedStep] = []
    short = followup_budget(options.question_budget)
    for index, question in enumerate(questions):
        steps.append(PlannedStep(index, "question", question.id, "main", question.topic, question.title,
                                 options.question_budget))
        for followup in list(question.followups)[: options.followups]:
            steps.append(PlannedStep(index, "followup", question.id, followup.id, question.topic, followup.q, short))
        drills = list(question.drills)
        if len(drills) > options.calcs:
            chosen = set(rng.sample(range(len(drills)), options.calcs))
            drills = [d for i, d in enumerate(drills) if i in chosen]
        for drill in drills:
            seed = rng.randrange(2**31)
            try:
                variant = draw_variant(question, drill, seed)
            except ValueError:  # a drill the calculator cannot evaluate is left out, not a crash
                continue
            steps.append(PlannedStep(index, "drill", question.id, drill.id, question.topic, variant.prompt, short,
                                     unit=variant.unit, variant_seed=seed, expected=variant.expected,
                                     expected_display=variant.expected_display))
    return steps


# --- records -------------------------------------------------------------------------------------


@dataclass
class MockRecord:
    """A stored session with its items in interview order (detached rows: safe to read anywhere)."""

    session: MockSession
    items: list[MockItem] = field(default_factory=list)
    new_cards: frozenset[str] = frozenset()  # card ids never reviewed (their ratings are not pre-ticked)

    def goes_to_schedule(self, item: MockItem) -> bool:
        return goes_to_schedule(item, new=item.card_id in self.new_cards)

    @property
    def next_index(self) -> int | None:
        """The first item not answered yet (where a resume starts); None when all are answered."""
        for index, item in enumerate(self.items):
            if item.answered_at is None:
                return index
        return None

    @property
    def total_budget(self) -> float:
        return sum(item.budget_s for item in self.items)

    def question_items(self, question_index: int) -> list[MockItem]:
        return [i for i in self.items if i.question_index == question_index]

    @property
    def question_count(self) -> int:
        return len({i.question_index for i in self.items})


@contextmanager
def _session(store, *, write: bool = True) -> Iterator[Session]:
    """A SQLModel session on the store's engine; writes take SQLite's write lock up front (IMMEDIATE).

    Database failures become a one-line StoreError naming the file.
    """
    bind = store.engine.execution_options(immediate=True) if write else store.engine
    try:
        with Session(bind, expire_on_commit=False) as db:
            yield db
    except SQLAlchemyError as exc:
        raise database_error(store.path, exc) from None


def start_session(store, bank: Bank, options: MockOptions, cards: Mapping[str, object] | None = None) -> MockRecord:
    """Draw the questions, plan every step and store the session with all its (unanswered) items."""
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    now = store.clock.now()
    if cards is None:
        cards = card_rows(store)
    questions = draw_questions(bank, cards, options, now, rng)
    steps = plan_steps(questions, options, rng)
    with _session(store) as db:
        row = MockSession(started_at=now, question_count=len(questions), minutes=options.minutes,
                          followups=options.followups, topics="\n".join(options.topics), seed=seed,
                          strict=options.strict)
        db.add(row)
        db.flush()
        items = [
            MockItem(session_id=row.id, position=pos, question_index=s.question_index, kind=s.kind,
                     card_id=s.card_id, question_id=s.question_id, item_id=s.item_id, topic=s.topic,
                     prompt=s.prompt, unit=s.unit, variant_seed=s.variant_seed, budget_s=s.budget_s,
                     expected=s.expected, expected_display=s.expected_display)
            for pos, s in enumerate(steps)
        ]
        db.add_all(items)
        db.commit()
        for obj in (row, *items):
            db.refresh(obj)
        return MockRecord(row, items, _new_cards(db, items))


def _new_cards(db: Session, items: Sequence[MockItem]) -> frozenset[str]:
    """The items' cards that were never reviewed (reps == 0)."""
    ids = {item.card_id for item in items}
    if not ids:
        return frozenset()
    rows = db.exec(select(Card.card_id).where(Card.card_id.in_(ids), Card.reps == 0))  # type: ignore[attr-defined]
    return frozenset(rows)


def card_rows(store) -> dict[str, object]:
    """card_id -> the store's card row, for weighting the draw."""
    return {row.card_id: row for row in store.cards()}


def load_session(store, session_id: int) -> MockRecord:
    with _session(store, write=False) as db:
        row = db.get(MockSession, session_id)
        if row is None:
            raise MockError(f"no mock session {session_id}")
        items = db.exec(select(MockItem).where(MockItem.session_id == session_id).order_by(MockItem.position)).all()
        return MockRecord(row, list(items), _new_cards(db, items))


def save_draft(store, item_id: int, draft: str, elapsed_s: float, session_elapsed_s: float) -> None:
    """Keep a draft in progress (on quit) without marking the item answered."""
    with _session(store) as db:
        item = db.get(MockItem, item_id)
        item.draft = draft
        item.elapsed_s = elapsed_s
        session = db.get(MockSession, item.session_id)
        session.elapsed_s = session_elapsed_s
        db.commit()


def record_answer(store, bank: Bank | None, item_id: int, draft: str, elapsed_s: float, session_elapsed_s: float,
                  *, auto_advanced: bool = False, lang: str = "en") -> MockItem:
    """Store one answered step as the user moves on; a drill is graded here, on the spot.

    The last item answered completes the session.
    """
    now = None
    with _session(store) as db:
        item = db.get(MockItem, item_id)
        if item is None:
            raise MockError(f"no mock item {item_id}")
        item.draft = draft
        item.elapsed_s = elapsed_s
        item.auto_advanced = auto_advanced
        now = store.clock.now()
        item.answered_at = now
        if item.kind == "drill":
            _grade_into(item, bank, draft, lang)
        session = db.get(MockSession, item.session_id)
        session.elapsed_s = session_elapsed_s
        remaining = db.exec(select(MockItem).where(MockItem.session_id == item.session_id,
                                                   MockItem.answered_at.is_(None),  # type: ignore[union-attr]
                                                   MockItem.id != item.id)).first()
        if remaining is None:
            session.completed = True
            session.finished_at = now
        db.commit()
        db.refresh(item)
        return item


def _drill_of(bank: Bank | None, item: MockItem):
    """(question, drill) of a planned calculation, or (None, None) once it left the bank."""
    question = bank.question(item.question_id) if bank is not None else None
    drill = next((d for d in question.drills if d.id == item.item_id), None) if question else None
    return (question, drill) if drill is not None else (None, None)


def unreadable_reason(bank: Bank | None, item: MockItem, draft: str, lang: str = "en") -> str | None:
    """Why a typed calculation answer cannot be read (the quantity parser's reason), or None when it can
    be graded or is empty (an empty answer is a deliberate skip). The interview lets the user retype."""
    if item.kind != "drill" or not draft.strip():
        return None
    question, drill = _drill_of(bank, item)
    if drill is None:
        return None
    result = grade(draw_variant(question, drill, item.variant_seed), drill, draft, lang=lang)
    return (result.reason or "?") if result.verdict == "unparseable" else None


def _grade_into(item: MockItem, bank: Bank | None, draft: str, lang: str) -> None:
    """Grade on the spot. No readable answer (empty, or left unreadable when time ran out) is stored as
    "skipped": a miss (Again) like a wrong answer, but shown as "no answer" rather than "could not read"."""
    question, drill = _drill_of(bank, item)
    if drill is None:  # the drill left the bank since the interview was planned
        item.verdict, item.rating = "unparseable", AGAIN
        return
    variant = draw_variant(question, drill, item.variant_seed)
    result = grade(variant, drill, draft, lang=lang)
    if result.verdict == "unparseable":
        item.verdict, item.value, item.rating = SKIPPED, None, AGAIN
        item.expected, item.expected_display = result.expected, variant.expected_display
        item.mistake_id = item.mistake_label = None
        return
    item.verdict = result.verdict
    item.value = result.value
    item.expected = result.expected
    item.expected_display = variant.expected_display
    item.mistake_id = result.mistake_id
    item.mistake_label = result.mistake_label
    item.rating = result.suggested_rating if result.suggested_rating is not None else AGAIN


def finish_session(store, session_id: int, session_elapsed_s: float | None = None) -> None:
    """Mark the session complete even if items were left (the user ended the interview early)."""
    with _session(store) as db:
        session = db.get(MockSession, session_id)
        if session_elapsed_s is not None:
            session.elapsed_s = session_elapsed_s
        session.completed = True
        session.finished_at = session.finished_at or store.clock.now()
        db.commit()


def rate_item(store, item_id: int, rating: int) -> None:
    if rating not in (AGAIN, HARD, GOOD, EASY):
        raise MockError(f"rating: expected 1-4, got {rating}")
    with _session(store) as db:
        item = db.get(MockItem, item_id)
        item.rating = rating
        db.commit()


def set_to_schedule(store, item_id: int, chosen: bool) -> None:
    with _session(store) as db:
        item = db.get(MockItem, item_id)
        item.to_schedule = chosen
        db.commit()


# --- scoring -------------------------------------------------------------------------------------

_POINTS = {AGAIN: 0.0, HARD: 0.5, GOOD: 1.0, EASY: 1.0}


def is_miss(item: MockItem) -> bool:
    """Again or Hard (for drills: wrong, unreadable, or only close)."""
    return item.rating is not None and item.rating <= HARD


def goes_to_schedule(item: MockItem, new: bool = False) -> bool:
    """The user's choice, else the default: yes for misses of cards already studied.

    A never-reviewed (`new`) card is not ticked by default: its first rating would introduce it and
    spend one of the day's new cards, which the user did not ask for by taking a mock interview.
    """
    if item.rating is None:
        return False
    if item.to_schedule is not None:
        return item.to_schedule
    return is_miss(item) and not new


def score(items: Iterable[MockItem]) -> float | None:
    """Percent of the rated items' points (Good/Easy 1, Hard 0.5, Again 0); None if nothing is rated."""
    rated = [item for item in items if item.rating is not None]
    if not rated:
        return None
    return 100.0 * sum(_POINTS[item.rating] for item in rated) / len(rated)


def weakest_topics(items: Iterable[MockItem], limit: int = 3) -> list[tuple[str, float]]:
    """Topics by score, lowest first (only topics with a rated item)."""
    by_topic: dict[str, list[MockItem]] = defaultdict(list)
    for item in items:
        if item.rating is not None:
            by_topic[item.topic].append(item)
    ranked = sorted(((topic, score(group)) for topic, group in by_topic.items()), key=lambda p: (p[1], p[0]))
    return ranked[:limit]


def misses(items: Iterable[MockItem]) -> list[str]:
    """Card ids of the missed items, in interview order, for "retry the misses" (a cram)."""
    seen: list[str] = []
    for item in items:
        if is_miss(item) and item.card_id not in seen:
            seen.append(item.card_id)
    return seen


def apply_ratings(store, session_id: int) -> int:
    """Log the chosen ratings into the schedule (mode "mock"); each item at most once. Returns the count."""
    record = load_session(store, session_id)
    schedulable = {row.card_id for row in store.cards()}  # cards that left the bank are skipped
    applied = 0
    for item in record.items:
        if item.applied_rating is not None or not record.goes_to_schedule(item) or item.card_id not in schedulable:
            continue
        mark_applied = (
            update(MockItem.__table__)  # type: ignore[attr-defined]
            .where(MockItem.__table__.c.id == item.id)  # type: ignore[attr-defined]
            .values(applied_rating=item.rating)
        )
        store.review(item.card_id, item.rating, duration_ms=int(item.elapsed_s * 1000), mode="mock",
                     answer=item.draft or None, verdict=item.verdict, mistake=item.mistake_id,
                     also=lambda conn, statement=mark_applied: conn.execute(statement))
        applied += 1
    with _session(store) as db:
        row = db.get(MockSession, session_id)
        row.applied = True
        db.commit()
    return applied


# --- history -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MockSessionSummary:
    """One past session as the statistics screen and `quizapp stats` list it."""

    id: int
    date: datetime  # started, UTC
    questions: int
    score: float | None  # percent of rated items, None if nothing rated
    completed: bool
    answered: int  # items answered
    items: int
    elapsed_s: float
    minutes: float


def list_sessions(store, limit: int | None = None) -> list[MockSessionSummary]:
    """Past mock sessions, newest first."""
    with _session(store, write=False) as db:
        query = select(MockSession).order_by(MockSession.started_at.desc(), MockSession.id.desc())  # type: ignore[union-attr]
        if limit is not None:
            query = query.limit(limit)
        sessions = db.exec(query).all()
        ids = [s.id for s in sessions]
        items_by_session: dict[int, list[MockItem]] = defaultdict(list)
        if ids:
            for item in db.exec(select(MockItem).where(MockItem.session_id.in_(ids))):  # type: ignore[union-attr]
                items_by_session[item.session_id].append(item)
        return [
            MockSessionSummary(
                id=s.id, date=s.started_at, questions=s.question_count, score=score(items_by_session[s.id]),
                completed=s.completed, answered=sum(i.answered_at is not None for i in items_by_session[s.id]),
                items=len(items_by_session[s.id]), elapsed_s=s.elapsed_s, minutes=s.minutes,
            )
            for s in sessions
        ]


def latest_incomplete(store) -> int | None:
    """The newest session left unfinished (what `quizapp mock --resume` and Home offer to resume)."""
    with _session(store, write=False) as db:
        row = db.exec(select(MockSession).where(MockSession.completed == False)  # noqa: E712
                      .order_by(MockSession.started_at.desc(), MockSession.id.desc())).first()
        return row.id if row else None
