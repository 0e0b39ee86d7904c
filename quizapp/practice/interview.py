"""The mock interview: which questions to ask, the plan of steps, grading answers as they are stored,
scoring, the "retry the misses" list, and putting chosen ratings into the schedule.

Everything an interview decides lives here, synchronous and free of Textual and SQL, so it is
unit-tested on a temporary store: drawing (weighted toward weak and overdue cards, reproducible from
a seed), planning (question, its follow-ups, its quick calculations), recording each answer as the
user moves on (a quit or a crash keeps it), scoring, and applying ratings through
`Store.review(..., mode=Mode.MOCK)`. The rows themselves are `quizapp.store.mock`'s.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from quizapp.content import Bank, Question, draw_variant, grade
from quizapp.content.render import render_prose
from quizapp.practice.timers import followup_budget
from quizapp.store import mock as records
from quizapp.store.mock import GradedAnswer, MockSessionSummary, PlannedItem, StoredItem, StoredSession
from quizapp.vocab import MAIN_ITEM, CardId, CardKind, Mode, Rating, Verdict

__all__ = [
    "MockError", "MockOptions", "MockRecord", "MockSessionSummary", "PlannedItem", "StoredItem", "StoredSession",
    "answered_count", "apply_ratings", "card_weakness", "draw_questions", "finish_session", "goes_to_schedule",
    "is_answered", "is_miss", "latest_incomplete", "list_sessions", "load_session", "misses", "plan_steps",
    "question_weight", "rate_item", "record_answer", "remember_options", "remembered_options", "save_draft",
    "score", "set_to_schedule", "start_session", "unreadable_reason", "weakest_topics",
]


class MockError(ValueError):
    """A mock interview cannot be set up or read as asked (one line, names the option)."""


@dataclass(frozen=True)
class MockOptions:
    """What the user chose: `quizapp mock` flags or the setup form."""

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


# --- the setup form's last choices ---------------------------------------------------------------

LAST_OPTIONS = "mock.last_options"
"""The store setting (`Store.set_setting`) that keeps the setup form's last started choices."""


def remember_options(store, options: MockOptions) -> None:
    """Keep the choices of an interview started from the setup form, for the next time it opens. The seed
    is not kept: the same seed would draw the same questions again."""
    store.set_setting(LAST_OPTIONS, {"questions": options.questions, "minutes": options.minutes,
                                     "followups": options.followups, "calcs": options.calcs,
                                     "topics": list(options.topics), "strict": options.strict})


def remembered_options(store, topics: Iterable[str] | None = None) -> MockOptions:
    """The setup form's last started choices, else the defaults. Topics no longer in `topics` (the bank's)
    are dropped; a stored value that is no longer valid falls back to the defaults."""
    stored = store.get_setting(LAST_OPTIONS)
    if not isinstance(stored, dict):
        return MockOptions()
    known = set(topics) if topics is not None else None
    defaults = MockOptions()
    try:
        chosen = tuple(str(t) for t in stored.get("topics") or () if known is None or str(t) in known)
        return MockOptions(questions=int(stored.get("questions", defaults.questions)),
                           minutes=float(stored.get("minutes", defaults.minutes)),
                           followups=int(stored.get("followups", defaults.followups)),
                           calcs=int(stored.get("calcs", defaults.calcs)),
                           topics=chosen, strict=bool(stored.get("strict", defaults.strict)))
    except (TypeError, ValueError):  # MockError is a ValueError
        return defaults


# --- drawing -------------------------------------------------------------------------------------


def card_weakness(card, now: datetime) -> float:
    """How much a card needs practice: 0 for a card never reviewed or well known, larger when weak.

    lapses (0.5 each, up to 4), overdue time relative to the card's stability (up to 3), and
    difficulty above the middle of FSRS's 1..10 scale (up to 1).
    """
    if card is None or getattr(card, "is_new", False) or getattr(card, "last_review", None) is None:
        return 0.0
    lapses = min(int(card.lapses or 0), 4) * 0.5
    overdue = 0.0
    if card.due is not None and card.due < now:
        stability = max(float(card.stability or 1.0), 1.0)
        overdue = min((now - card.due).total_seconds() / 86400.0 / stability, 3.0)
    difficulty = float(card.difficulty or 5.0)
    hard = min(max(difficulty - 5.0, 0.0) / 5.0, 1.0)
    return lapses + overdue + hard


def question_weight(question_id: str, cards: Mapping[str, object], now: datetime) -> float:
    """1 + the weakness of the question's weakest card (its own card, follow-ups or drills)."""
    worst = 0.0
    for card_id, card in cards.items():
        try:
            if CardId.parse(card_id).question_id != question_id:
                continue
        except ValueError:
            continue
        worst = max(worst, card_weakness(card, now))
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


def _step(index: int, question: Question, kind: CardKind, item_id: str, prompt: str, budget: float,
          **drill: object) -> PlannedItem:
    card_id = CardId(question.id, kind, item_id).format()
    return PlannedItem(index, kind, card_id, question.id, item_id, question.topic, prompt, budget, **drill)  # type: ignore[arg-type]


def plan_steps(questions: Sequence[Question], options: MockOptions, rng: random.Random) -> list[PlannedItem]:
    """Per question: the question, its first K follow-ups, then up to N of its numeric drills.

    The N drills are drawn with `rng` (so the seed reproduces them) and asked in the question's order;
    a question with many drills does not turn a short interview into a long calculation session.
    """
    steps: list[PlannedItem] = []
    short = followup_budget(options.question_budget)
    for index, question in enumerate(questions):
        # prompts are stored as shown: rendered by the one renderer, so no `{{drill}}` reaches the screen
        title = render_prose(question, question.title)
        steps.append(_step(index, question, CardKind.QUESTION, MAIN_ITEM, title, options.question_budget))
        for followup in list(question.followups)[: options.followups]:
            steps.append(_step(index, question, CardKind.FOLLOWUP, followup.id,
                               render_prose(question, followup.q), short))
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
            steps.append(_step(index, question, CardKind.DRILL, drill.id, variant.prompt, short, unit=variant.unit,
                               variant_seed=seed, expected=variant.expected,
                               expected_display=variant.expected_display))
    return steps


# --- the record ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MockRecord:
    """A stored session with its items in interview order, and the cards never reviewed."""

    session: StoredSession
    items: tuple[StoredItem, ...]
    new_cards: frozenset[str] = frozenset()  # their ratings are not pre-ticked for the schedule

    def goes_to_schedule(self, item: StoredItem) -> bool:
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

    def question_items(self, question_index: int) -> list[StoredItem]:
        return [i for i in self.items if i.question_index == question_index]

    @property
    def question_count(self) -> int:
        return len({i.question_index for i in self.items})

    def with_item(self, item: StoredItem) -> MockRecord:
        """This record with one item replaced by its newer stored version."""
        items = tuple(item if old.id == item.id else old for old in self.items)
        return MockRecord(self.session, items, self.new_cards)


def start_session(store, bank: Bank, options: MockOptions, cards: Mapping[str, object] | None = None) -> MockRecord:
    """Draw the questions, plan every step and store the session with all its (unanswered) items."""
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    now = store.clock.now()
    if cards is None:
        cards = card_rows(store)
    questions = draw_questions(bank, cards, options, now, rng)
    steps = plan_steps(questions, options, rng)
    session_id = records.create_session(store, started_at=now, question_count=len(questions),
                                        minutes=options.minutes, followups=options.followups,
                                        topics=options.topics, seed=seed, strict=options.strict, items=steps)
    return load_session(store, session_id)


def card_rows(store) -> dict[str, object]:
    """card_id -> the store's card row, for weighting the draw."""
    return {row.card_id: row for row in store.cards()}


def load_session(store, session_id: int) -> MockRecord:
    stored = records.load(store, session_id)
    if stored is None:
        raise MockError(f"no mock session {session_id}")
    return MockRecord(stored.session, stored.items, stored.new_cards)


def save_draft(store, item_id: int, draft: str, elapsed_s: float, session_elapsed_s: float) -> None:
    """Keep a draft in progress (on quit, and every few seconds while typing) without answering it."""
    records.save_draft(store, item_id, draft, elapsed_s, session_elapsed_s)


def _drill_of(bank: Bank | None, item: StoredItem):
    """(question, drill) of a planned calculation, or (None, None) once it left the bank."""
    question = bank.question(item.question_id) if bank is not None else None
    drill = next((d for d in question.drills if d.id == item.item_id), None) if question else None
    return (question, drill) if drill is not None else (None, None)


def unreadable_reason(bank: Bank | None, item: StoredItem, draft: str) -> str | None:
    """Why a typed calculation answer cannot be read (the quantity parser's reason), or None when it can
    be graded or is empty (an empty answer is a deliberate skip). The interview lets the user retype."""
    if item.kind is not CardKind.DRILL or not draft.strip():
        return None
    question, drill = _drill_of(bank, item)
    if drill is None:
        return None
    result = grade(draw_variant(question, drill, item.variant_seed), drill, draft)
    return (result.reason or "?") if result.verdict is Verdict.UNPARSEABLE else None


def grade_answer(bank: Bank | None, item: StoredItem, draft: str) -> GradedAnswer:
    """Grade a quick calculation on the spot. No readable answer (empty, or left unreadable when time ran
    out) is SKIPPED: a miss (Again) like a wrong answer, but shown as "no answer" rather than "could not read"."""
    question, drill = _drill_of(bank, item)
    if drill is None:  # the drill left the bank since the interview was planned
        return GradedAnswer(Verdict.UNPARSEABLE, Rating.Again, expected=item.expected,
                            expected_display=item.expected_display)
    variant = draw_variant(question, drill, item.variant_seed)
    result = grade(variant, drill, draft)
    if result.verdict is Verdict.UNPARSEABLE:
        return GradedAnswer(Verdict.SKIPPED, Rating.Again, expected=result.expected,
                            expected_display=variant.expected_display)
    return GradedAnswer(result.verdict, result.suggested_rating or Rating.Again, value=result.value,
                        expected=result.expected, expected_display=variant.expected_display,
                        mistake_id=result.mistake_id)


def record_answer(store, bank: Bank | None, item_id: int, draft: str, elapsed_s: float, session_elapsed_s: float,
                  *, auto_advanced: bool = False, item: StoredItem | None = None) -> StoredItem:
    """Store one answered step as the user moves on; a calculation is graded here, on the spot.

    `item` is the step as the caller has it (saves a read); the last item answered completes the session.
    """
    if item is None or item.id != item_id:
        item = _find_item(store, item_id)
    graded = grade_answer(bank, item, draft) if item.kind is CardKind.DRILL else None
    checklist = item_checklist(bank, item, draft)
    points = dict(checklist.ticked) if checklist is not None else None
    rating = checklist.suggested if checklist is not None and _strict(store, item.session_id) else None
    stored = records.record_answer(store, item_id, draft=draft, elapsed_s=elapsed_s,
                                   session_elapsed_s=session_elapsed_s, auto_advanced=auto_advanced, graded=graded,
                                   points=points, rating=rating)
    if stored is None:
        raise MockError(f"no mock item {item_id}")
    return stored


def item_checklist(bank: Bank | None, item: StoredItem, draft: str | None = None):
    """The key-point checklist of a self-graded item (None for a drill, or a card without points): the
    ticks stored for it, else what `draft` (default: its stored draft) covers."""
    from quizapp.practice.cards import resolve_card
    from quizapp.practice.checklist import checklist_for

    if bank is None or item.kind is CardKind.DRILL:
        return None
    content = resolve_card(bank, item.card_id)
    if content is None:
        return None
    checklist = checklist_for(content, item.draft if draft is None else draft)
    if checklist is not None and item.points and draft is None:
        checklist.ticked.update({k: v for k, v in item.points.items() if k in checklist.ticked})
    return checklist


def set_points(store, bank: Bank | None, item: StoredItem, ticked: Mapping[str, bool]):
    """The debrief's ticks for `item`; in strict mode its rating follows the coverage's suggestion.
    Returns the checklist as it now is (None when the item has no key points)."""
    checklist = item_checklist(bank, item)
    if checklist is None:
        return None
    checklist.ticked.update({k: bool(v) for k, v in ticked.items() if k in checklist.ticked})
    strict = _strict(store, item.session_id)
    records.set_points(store, item.id, checklist.ticked, checklist.suggested if strict else None)
    return checklist


def _strict(store, session_id: int) -> bool:
    session = records.load_session_row(store, session_id)
    return bool(session is not None and session.strict)


def _find_item(store, item_id: int) -> StoredItem:
    item = records.load_item(store, item_id)
    if item is None:
        raise MockError(f"no mock item {item_id}")
    return item


def finish_session(store, session_id: int, session_elapsed_s: float | None = None) -> None:
    """Mark the session complete even if items were left (the user ended the interview early)."""
    records.finish_session(store, session_id, session_elapsed_s)


def rate_item(store, item_id: int, rating: Rating | int) -> None:
    try:
        rating = Rating(int(rating))
    except (TypeError, ValueError):
        raise MockError(f"rating: expected 1-4, got {rating}") from None
    records.set_rating(store, item_id, rating)


def set_to_schedule(store, item_id: int, chosen: bool) -> None:
    records.set_to_schedule(store, item_id, chosen)


# --- scoring -------------------------------------------------------------------------------------


def is_answered(item: StoredItem) -> bool:
    """Answered with something in it: moved past, and its draft is not empty or only blanks. A step moved
    past with nothing typed (an empty Done, a skipped calculation) was reached but not answered."""
    return item.answered_at is not None and bool(item.draft.strip(records.BLANK))


def answered_count(items: Iterable[StoredItem]) -> int:
    """How many items were answered with something in them (what the debrief and the history show)."""
    return sum(is_answered(item) for item in items)


def is_miss(item: StoredItem) -> bool:
    """Again or Hard (for drills: wrong, unreadable, or only close)."""
    return item.rating is not None and item.rating <= Rating.Hard


def goes_to_schedule(item: StoredItem, new: bool = False) -> bool:
    """The user's choice, else the default: yes for misses of cards already studied.

    A never-reviewed (`new`) card is not ticked by default: its first rating would introduce it and
    spend one of the day's new cards, which the user did not ask for by taking a mock interview.
    """
    if item.rating is None:
        return False
    if item.to_schedule is not None:
        return item.to_schedule
    return is_miss(item) and not new


def score(items: Iterable[StoredItem]) -> float | None:
    """Percent of the rated items' points (Good/Easy 1, Hard 0.5, Again 0); None if nothing is rated."""
    rated = [item for item in items if item.rating is not None]
    if not rated:
        return None
    return 100.0 * sum(records.POINTS[item.rating] for item in rated) / len(rated)


def weakest_topics(items: Iterable[StoredItem], limit: int = 3) -> list[tuple[str, float]]:
    """Topics by score, lowest first (only topics with a rated item)."""
    by_topic: dict[str, list[StoredItem]] = defaultdict(list)
    for item in items:
        if item.rating is not None:
            by_topic[item.topic].append(item)
    ranked = sorted(((topic, score(group)) for topic, group in by_topic.items()), key=lambda p: (p[1], p[0]))
    return ranked[:limit]  # type: ignore[return-value]


def misses(items: Iterable[StoredItem]) -> list[str]:
    """Card ids of the missed items, in interview order, for "retry the misses" (a cram)."""
    seen: list[str] = []
    for item in items:
        if is_miss(item) and item.card_id not in seen:
            seen.append(item.card_id)
    return seen


def apply_ratings(store, session_id: int) -> int:
    """Log the chosen ratings into the schedule (mode mock); each item at most once. Returns the count."""
    record = load_session(store, session_id)
    schedulable = {row.card_id for row in store.cards()}  # cards that left the bank are skipped
    applied = 0
    for item in record.items:
        if item.applied_rating is not None or not record.goes_to_schedule(item) or item.card_id not in schedulable:
            continue
        store.review(item.card_id, item.rating, duration_ms=int(item.elapsed_s * 1000), mode=Mode.MOCK,
                     answer=item.draft or None, verdict=item.verdict, mistake=item.mistake_id, points=item.points,
                     also=records.mark_applied(item.id, item.rating))
        applied += 1
    records.mark_session_applied(store, session_id)
    return applied


# --- history -------------------------------------------------------------------------------------


def list_sessions(store, limit: int | None = None) -> list[MockSessionSummary]:
    """Past mock sessions, newest first."""
    return records.list_sessions(store, limit)


def latest_incomplete(store) -> int | None:
    """The newest session left unfinished (what `quizapp mock --resume` and the setup form offer)."""
    return records.latest_incomplete(store)
