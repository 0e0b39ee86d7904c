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
    parameters: tuple[float, ...] = field(default=tuple(DEFAULT_PARAMETERS))

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
        if self.leech_lapses < 1:
            raise ValueError(f"leech_lapses: expected a whole number >= 1, got {self.leech_lapses}")


# --- user settings -------------------------------------------------------------------------------
# The Anki "deck options" a user may change with `quizapp settings KEY VALUE`. Each is stored in the
# database's meta table as "setting:<key>" (JSON) and read by Store.open when no config is passed.

_STEP_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_STEP = timedelta(days=365)


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


def parse_steps(text: str) -> tuple[timedelta, ...]:
    """Anki's step syntax: "1m 10m", "10m 1h 1d"; a bare number is minutes; "" or "none" = no steps."""
    tokens = [t for t in re.split(r"[\s,]+", text.strip().lower()) if t]
    if tokens in ([], ["none"]):
        return ()
    steps = []
    for token in tokens:
        match = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)([smhd]?)", token)
        if not match:
            raise ValueError(token)
        seconds = float(match.group(1)) * _STEP_UNITS[match.group(2) or "m"]
        step = timedelta(seconds=round(seconds))
        if not timedelta(seconds=1) <= step <= MAX_STEP:
            raise ValueError(token)
        steps.append(step)
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


SETTINGS: Mapping[str, Setting] = MappingProxyType({s.key: s for s in (
    Setting("desired_retention", "desired_retention", "a probability above 0.7 and at most 0.99, e.g. 0.9 or 90%",
            "the chance of recalling a card when it comes due; higher = more reviews",
            _retention, lambda v: f"{v:g}"),
    Setting("learning_steps", "learning_steps", 'steps like "1m 10m" (s, m, h, d; a bare number is minutes; none)',
            "waits between a new card's first answers before FSRS takes over",
            parse_steps, show_steps, show_steps),
    Setting("relearning_steps", "relearning_steps", 'steps like "10m" (s, m, h, d; a bare number is minutes; none)',
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
)})


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
