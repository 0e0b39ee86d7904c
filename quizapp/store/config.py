"""Scheduling choices in one immutable value: FSRS settings plus the Anki-style daily rules.

Also the table of the choices a user may change (SETTINGS, Anki's deck options): how each is read,
shown and checked, so `quizapp settings` and Store.open agree on every value.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta, tzinfo
from types import MappingProxyType

from fsrs.scheduler import DEFAULT_PARAMETERS


NEW_ORDERS = ("mixed", "bank")  # mixed: kinds and topics interleaved (the default); bank: file order


@dataclass(frozen=True)
class SchedulerConfig:
    """How cards are scheduled. Defaults follow Anki and py-fsrs.

    fuzz_seed: None draws interval fuzz from OS entropy; an int makes it reproducible (tests).
    tz: the zone whose local `rollover_hour` starts a new day; None = the system's local time.
    learn_ahead: when nothing else is left, a learning card due within this window is shown early
    (Anki's "learn ahead limit").
    """

    desired_retention: float = 0.9
    learning_steps: tuple[timedelta, ...] = (timedelta(minutes=1), timedelta(minutes=10))
    relearning_steps: tuple[timedelta, ...] = (timedelta(minutes=10),)
    maximum_interval: int = 36500  # days
    new_per_day: int = 10
    reviews_per_day: int = 200
    rollover_hour: int = 4
    enable_fuzzing: bool = True
    fuzz_seed: int | None = None
    tz: tzinfo | None = None
    leech_lapses: int = 8
    bury_siblings: bool = True
    learn_ahead: timedelta = timedelta(minutes=20)
    new_order: str = "mixed"  # NEW_ORDERS: how new cards are introduced (docs/database.md, "New cards")
    type_answers: bool = False  # review: the answer box takes the focus first (a presentation choice
    # kept with the deck options so it travels with the database; scheduling ignores it)
    parameters: tuple[float, ...] = field(default=tuple(DEFAULT_PARAMETERS))
    # desired retention per topic, over desired_retention (SRS: `quizapp settings retention_by_topic`)
    topic_retention: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        if not 0 < self.desired_retention < 1:
            raise ValueError(f"desired_retention: expected a number between 0 and 1, got {self.desired_retention}")
        if not 0 <= self.rollover_hour <= 23:
            raise ValueError(f"rollover_hour: expected an hour 0..23, got {self.rollover_hour}")
        for name in ("new_per_day", "reviews_per_day"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}: expected a whole number >= 0, got {getattr(self, name)}")
        if self.maximum_interval < 1:
            raise ValueError(f"maximum_interval: expected a number of days >= 1, got {self.maximum_interval}")
        if self.new_order not in NEW_ORDERS:
            raise ValueError(f"new_order: expected one of {', '.join(NEW_ORDERS)}, got {self.new_order!r}")
        if self.leech_lapses < 1:
            raise ValueError(f"leech_lapses: expected a whole number >= 1, got {self.leech_lapses}")
        for topic, retention in self.topic_retention:
            if not 0 < retention < 1:
                raise ValueError(f"topic_retention: expected a number between 0 and 1 for {topic}, got {retention}")

    def retention_for(self, topic: str | None) -> float:
        """The desired retention of `topic`: its own setting if it has one, else desired_retention."""
        return dict(self.topic_retention).get(topic or "", self.desired_retention)


# --- user settings -------------------------------------------------------------------------------
# The Anki "deck options" a user may change with `quizapp settings KEY VALUE`. Each is stored in the
# database's meta table as "setting:<key>" (JSON) and read by Store.open when no config is passed.

_STEP_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MIN_STEP = timedelta(minutes=1)  # learning and relearning steps: documented ranges (docs/database.md)
MAX_STEP = timedelta(days=1)
MAX_STEPS = 10


class SettingError(ValueError):
    """A bad setting name or value: `key` names the setting, `message` says what was expected."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message


@dataclass(frozen=True)
class Setting:
    """One user-settable scheduling option: its SchedulerConfig field, how to read and show a value."""

    key: str
    field: str
    expected: str  # what a value must look like, for errors and `quizapp settings KEY`
    description: str
    parse: Callable[[str], object]  # text -> value; raises ValueError when it is not `expected`
    show: Callable[[object], str]  # value -> the text `parse` reads back
    stored: Callable[[object], object] = lambda value: value  # value -> what is stored as JSON

    @property
    def default(self) -> object:
        return getattr(SchedulerConfig(), self.field)


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _retention(text: str) -> float:
    text = text.strip()
    value = _number(text[:-1]) / 100 if text.endswith("%") else _number(text)
    if not 0.7 < value <= 0.99:
        raise ValueError(text)
    return value


def _whole(low: int, high: int, suffix: str = "") -> Callable[[str], int]:
    def parse(text: str) -> int:
        text = text.strip().lower()
        if suffix and text.endswith(suffix):
            text = text[: -len(suffix)].strip()
        if not re.fullmatch(r"[0-9]+", text):
            raise ValueError(text)
        value = int(text)
        if not low <= value <= high:
            raise ValueError(text)
        return value

    return parse


def _choice(*choices: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        value = text.strip().lower()
        if value not in choices:
            raise ValueError(text)
        return value

    return parse


_TRUE = ("on", "true", "yes", "1")
_FALSE = ("off", "false", "no", "0")


def _switch(text: str) -> bool:
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(text)


def _show_switch(value: object) -> str:
    return "on" if value else "off"


def parse_steps(text: str) -> tuple[timedelta, ...]:
    """Anki's step syntax: "1m 10m", "10m 1h 1d"; a bare number is minutes.

    1 to MAX_STEPS steps, each MIN_STEP to MAX_STEP; `none`, spelled out, means no steps. An empty
    value is an error (an empty shell variable must not remove every step). ValueError otherwise.
    """
    tokens = [t for t in re.split(r"[\s,]+", text.strip().lower()) if t]
    if not tokens:
        raise ValueError("an empty value")
    if tokens == ["none"]:
        return ()
    if len(tokens) > MAX_STEPS:
        raise ValueError(f"{len(tokens)} steps")
    steps = []
    for token in tokens:
        match = re.fullmatch(r"([0-9]{1,9}(?:\.[0-9]{1,9})?)([smhd]?)", token)  # digits bounded: no overflow
        if not match:
            raise ValueError(token)
        seconds = float(match.group(1)) * _STEP_UNITS[match.group(2) or "m"]
        if not MIN_STEP.total_seconds() <= seconds <= MAX_STEP.total_seconds():
            raise ValueError(token)
        steps.append(timedelta(seconds=round(seconds)))
    return tuple(steps)


def show_steps(steps) -> str:
    """Steps in Anki's syntax, each in the largest unit that divides it: (60 s, 600 s) -> "1m 10m"."""
    if not steps:
        return "none"
    out = []
    for step in steps:
        seconds = round(step.total_seconds())
        unit = next(u for u in ("d", "h", "m", "s") if seconds % _STEP_UNITS[u] == 0)
        out.append(f"{seconds // _STEP_UNITS[unit]}{unit}")
    return " ".join(out)


STEPS_EXPECTED = ('steps like "{example}": 1 to 10 steps, each 1 minute to 1 day (s, m, h, d; a bare number '
                  'is minutes), or none for no steps')

SETTINGS: Mapping[str, Setting] = MappingProxyType({s.key: s for s in (
    Setting("desired_retention", "desired_retention", "a probability above 0.7 and at most 0.99, e.g. 0.9 or 90%",
            "the chance of recalling a card when it comes due; higher = more reviews",
            _retention, lambda v: f"{v:g}"),
    Setting("learning_steps", "learning_steps", STEPS_EXPECTED.format(example="1m 10m"),
            "waits between a new card's first answers before FSRS takes over",
            parse_steps, show_steps, show_steps),
    Setting("relearning_steps", "relearning_steps", STEPS_EXPECTED.format(example="10m"),
            "waits after a lapse (Again on a review card) before it returns to review",
            parse_steps, show_steps, show_steps),
    Setting("maximum_interval", "maximum_interval", "a whole number of days from 1 to 36500",
            "the longest interval FSRS may give, in days",
            _whole(1, 36500, "d"), str),
    Setting("new_per_day", "new_per_day", "a whole number from 0 to 9999",
            "new cards introduced per study day",
            _whole(0, 9999), str),
    Setting("reviews_per_day", "reviews_per_day", "a whole number from 0 to 9999",
            "reviews shown per study day (learning cards are not limited)",
            _whole(0, 9999), str),
    Setting("rollover_hour", "rollover_hour", "an hour from 0 to 23 (local time)",
            "the local hour a new study day starts (Anki's 'next day starts at')",
            _whole(0, 23), str),
    Setting("leech_threshold", "leech_lapses", "a whole number of lapses from 1 to 99",
            "lapses after which a card is tagged leech and suspended",
            _whole(1, 99), str),
    Setting("new_order", "new_order", "mixed or bank",
            "how new cards are introduced: mixed interleaves kinds and topics, bank follows the files",
            _choice(*NEW_ORDERS), str),
    Setting("type_answers", "type_answers", "on or off",
            "review: the answer box takes the focus first (off: Space reveals, `a` focuses the box)",
            _switch, _show_switch, _show_switch),
    Setting("retention_by_topic", "topic_retention", 'topic=retention pairs, e.g. "serving=0.85 moe=0.92" (none: no override)',
            "desired retention per topic, over desired_retention (quizapp.store.retention)",
            lambda text: parse_topic_retention(text), lambda v: show_topic_retention(v),
            lambda v: show_topic_retention(v)),
    Setting("fsrs_parameters", "parameters", "21 FSRS-6 numbers separated by spaces (`quizapp optimize` sets them)",
            "the FSRS memory model's weights; default = py-fsrs's, fitted ones come from `quizapp optimize`",
            lambda text: parse_parameters(text), lambda v: show_parameters(v), lambda v: show_parameters(v)),
)})


def parse_topic_retention(text: str) -> tuple[tuple[str, float], ...]:
    """"serving=0.85 moe=92%" -> (("moe", 0.92), ("serving", 0.85)); "none" or "" -> ()."""
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    if tokens in ([], ["none"]):
        return ()
    pairs: dict[str, float] = {}
    for token in tokens:
        topic, sep, value = token.partition("=")
        if not sep or not topic:
            raise ValueError(token)
        pairs[topic] = _retention(value)
    return tuple(sorted(pairs.items()))


def show_topic_retention(value) -> str:
    return " ".join(f"{topic}={retention:g}" for topic, retention in value) or "none"


def parse_parameters(text: str) -> tuple[float, ...]:
    """21 FSRS-6 weights (spaces or commas between), checked against py-fsrs's bounds."""
    from fsrs import Scheduler

    values = tuple(_number(t) for t in re.split(r"[\s,\[\]]+", text.strip()) if t)
    if len(values) != len(DEFAULT_PARAMETERS):
        raise ValueError(text)
    Scheduler(parameters=values)  # raises ValueError for a weight outside FSRS's bounds
    return values


def show_parameters(value) -> str:
    return " ".join(f"{w:.6g}" for w in value)


def setting(key: str) -> Setting:
    """The setting named `key` (dashes work as underscores); SettingError with a did-you-mean if unknown."""
    name = key.strip().lower().replace("-", "_")
    if name in SETTINGS:
        return SETTINGS[name]
    close = difflib.get_close_matches(name, list(SETTINGS), n=1, cutoff=0.5)
    close = close or [k for k in SETTINGS if name and name in k][:1]
    hint = f"; did you mean {close[0]}?" if close else ""
    raise SettingError(key, f"unknown setting; expected one of {', '.join(SETTINGS)}{hint}")


def parse_setting(key: str, text: str) -> object:
    """The value `text` means for setting `key`; SettingError naming the key and what is expected."""
    spec = setting(key)
    try:
        return spec.parse(str(text))
    except ValueError:
        raise SettingError(spec.key, f"expected {spec.expected}, got {text!r}") from None


def setting_from_stored(key: str, raw: object) -> object:
    """A value read back from the database (JSON), checked like typed input."""
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise SettingError(key, f"expected {SETTINGS[key].expected}, got {raw!r}")
    return parse_setting(key, raw if isinstance(raw, str) else repr(raw))


def config_with(base: SchedulerConfig, values: Mapping[str, object]) -> SchedulerConfig:
    """`base` with the user settings in `values` (setting key -> parsed value) applied."""
    try:
        return replace(base, **{SETTINGS[key].field: value for key, value in values.items()})
    except ValueError as exc:  # SchedulerConfig's own checks (a combination it refuses)
        raise SettingError(next(iter(values), "settings"), str(exc)) from None
