"""User scheduling settings: parsed and checked like Anki's deck options, stored in meta, applied by Store.open."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest
from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler
from store_helpers import bank

from quizapp.store import SchedulerConfig, Store, StoreError
from quizapp.store.config import SETTINGS, SettingError, config_with, parse_setting, parse_steps, show_steps

M = timedelta(minutes=1)


@pytest.mark.parametrize("text, value", [("0.9", 0.9), ("0.99", 0.99), ("0.71", 0.71), ("85%", 0.85), (" 0.8 ", 0.8)])
def test_retention_accepts_the_anki_range(text, value):
    assert parse_setting("desired_retention", text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["0.7", "0.5", "0.991", "1", "1.5", "nan", "inf", "", "high", "-0.9"])
def test_retention_outside_the_range_names_the_key_and_the_range(text):
    with pytest.raises(SettingError) as err:
        parse_setting("desired_retention", text)
    assert err.value.key == "desired_retention"
    assert "0.7" in err.value.message and "0.99" in err.value.message


@pytest.mark.parametrize(
    "text, steps",
    [
        ("1m 10m", (M, 10 * M)),
        ("1m, 10m", (M, 10 * M)),
        ("10", (10 * M,)),  # a bare number is minutes, as in Anki
        ("1.5m 2h 1d", (timedelta(seconds=90), timedelta(hours=2), timedelta(days=1))),
        ("none", ()),  # no steps must be spelled out (issue 15)
    ],
)
def test_steps(text, steps):
    assert parse_steps(text) == steps
    assert parse_steps(show_steps(steps)) == steps  # what is shown reads back the same


@pytest.mark.parametrize("text", ["1x", "10m 0s", "-1m", "1m 400d", "m", "1m 10m abc",
                                  "", "  ", "30s", "2d", "99999999999999999999d", " ".join(["1m"] * 11)])
def test_bad_steps(text):
    with pytest.raises(SettingError, match="learning_steps: expected steps like"):
        parse_setting("learning_steps", text)


@pytest.mark.parametrize(
    "key, good, bad",
    [
        ("rollover_hour", ["0", "23"], ["24", "-1", "4.5", "four"]),
        ("new_per_day", ["0", "9999"], ["-1", "10000", "1e3"]),
        ("reviews_per_day", ["0", "200"], ["-5", "x"]),
        ("maximum_interval", ["1", "365d", "36500"], ["0", "36501"]),
        ("leech_threshold", ["1", "8"], ["0", "100"]),
    ],
)
def test_whole_number_ranges(key, good, bad):
    for text in good:
        parse_setting(key, text)
    for text in bad:
        with pytest.raises(SettingError, match=f"^{key}: expected"):
            parse_setting(key, text)


def test_unknown_key_suggests_one():
    with pytest.raises(SettingError, match="did you mean desired_retention"):
        parse_setting("retention", "0.9")
    assert parse_setting("new-per-day", "5") == 5  # dashes work too


def test_every_default_is_shown_and_read_back_as_itself():
    for spec in SETTINGS.values():
        assert spec.parse(spec.show(spec.default)) == spec.default, spec.key
    assert config_with(SchedulerConfig(), {}) == SchedulerConfig()


def test_open_without_config_uses_the_defaults_on_a_fresh_file(db_path, clock):
    with Store.open(db_path, clock) as store:
        assert store.config == SchedulerConfig()


def _store_settings(db_path, clock, **texts) -> None:
    with Store.open(db_path, clock, SchedulerConfig()) as store:
        for key, text in texts.items():
            store.set_scheduling_setting(key, parse_setting(key, text))


def test_stored_settings_build_the_config_and_an_explicit_config_wins(db_path, clock):
    _store_settings(db_path, clock, desired_retention="0.85", learning_steps="2m 30m", relearning_steps="5m 1h",
                    maximum_interval="365", new_per_day="3", reviews_per_day="50", rollover_hour="6",
                    leech_threshold="4")
    with Store.open(db_path, clock) as store:
        c = store.config
        assert (c.desired_retention, c.maximum_interval, c.new_per_day, c.reviews_per_day, c.rollover_hour,
                c.leech_lapses) == (0.85, 365, 3, 50, 6, 4)
        assert c.learning_steps == (2 * M, 30 * M) and c.relearning_steps == (5 * M, 60 * M)
        assert (c.enable_fuzzing, c.fuzz_seed, c.tz) == (True, None, None)  # not user settings: defaults
    explicit = SchedulerConfig(new_per_day=7)
    with Store.open(db_path, clock, explicit) as store:
        assert store.config == explicit


def test_stored_steps_and_retention_schedule_as_fsrs_does(db_path, clock):
    _store_settings(db_path, clock, desired_retention="0.8", learning_steps="2m 30m")
    with Store.open(db_path, clock) as store:
        store.sync(bank(1, followups=0))
        card_id = store.cards()[0].card_id
        preview = store.preview(card_id)
    direct = Scheduler(desired_retention=0.8, learning_steps=(2 * M, 30 * M), enable_fuzzing=False)
    now = clock.now()
    for rating in Rating:
        after, _ = direct.review_card(FsrsCard(card_id=1), rating, now)
        assert preview[int(rating)] == after.due - now, rating
    default = Scheduler(enable_fuzzing=False)
    assert preview[int(Rating.Easy)] != default.review_card(FsrsCard(card_id=1), Rating.Easy, now)[0].due - now


def test_stored_new_card_limit_applies(db_path, clock):
    _store_settings(db_path, clock, new_per_day="2", learning_steps="none")
    with Store.open(db_path, clock) as store:
        store.sync(bank(5, followups=0))
        shown = []
        while (card := store.next_card()) is not None:
            shown.append(card.card_id)
            store.review(card.card_id, 3, duration_ms=1)
        assert len(shown) == 2 and store.today().new_limit == 2


def test_a_live_store_follows_a_changed_setting_unless_its_config_was_explicit(db_path, clock):
    with Store.open(db_path, clock) as store:
        store.set_scheduling_setting("new_per_day", 4)
        assert store.config.new_per_day == 4
        store.set_scheduling_setting("new_per_day", None)  # back to the default
        assert store.config.new_per_day == SchedulerConfig().new_per_day
        assert "new_per_day" not in store.stored_settings()
    with Store.open(db_path, clock, SchedulerConfig(new_per_day=1)) as store:
        store.set_scheduling_setting("new_per_day", 4)
        assert store.config.new_per_day == 1
    with Store.open(db_path, clock) as store:
        assert store.config.new_per_day == 4


def test_settings_are_json_in_meta_for_users_who_query_the_file(db_path, clock):
    _store_settings(db_path, clock, desired_retention="0.85", learning_steps="1m 10m 1h", rollover_hour="3")
    conn = sqlite3.connect(db_path)
    try:
        rows = dict(conn.execute("SELECT key, value FROM meta WHERE key LIKE 'setting:%'"))
    finally:
        conn.close()
    assert rows == {"setting:desired_retention": "0.85", "setting:learning_steps": '"1m 10m 1h"',
                    "setting:rollover_hour": "3"}


def test_a_bad_stored_value_is_a_one_line_error_naming_the_key(db_path, clock):
    with Store.open(db_path, clock, SchedulerConfig()) as store:
        store.set_setting("desired_retention", 5)  # e.g. edited by hand in sqlite3
    with pytest.raises(StoreError) as err:
        Store.open(db_path, clock)
    message = str(err.value)
    assert message.startswith(str(db_path)) and "\n" not in message
    assert "desired_retention" in message and "quizapp settings desired_retention" in message
    with Store.open(db_path, clock, SchedulerConfig()) as store:  # an explicit config still opens it, to fix it
        store.set_scheduling_setting("desired_retention", None)
    with Store.open(db_path, clock) as store:
        assert store.config.desired_retention == SchedulerConfig().desired_retention


def test_unknown_key_on_the_store_is_refused(db_path, clock):
    with Store.open(db_path, clock) as store, pytest.raises(SettingError):
        store.set_scheduling_setting("fuzz_seed", 1)
