"""Tests that kill surviving mutants of quizapp/store/search.py (benchmarks/mutation.py search), each
naming the mutant it kills. The differential test in test_search_oracle.py kills most; these are the rest.

This file pins the non-parsing half (the index, the Core statement, sorting, `find`), every expected
value read off the fixture store's construction in tests/srs/conftest.py (A..H, NOW) or off the small
bank written below. Mutant names are short: `index_from_bank_3` is
quizapp.store.search.x_index_from_bank__mutmut_3.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest
from sqlalchemy import select
from sqlalchemy.dialects import sqlite

from quizapp.clock import FakeClock
from quizapp.content import load_bank
from quizapp.content.localize import localized
from quizapp.store import SchedulerConfig, Store
from quizapp.store.search import (CARD, ORDER, All, FoundCard, SearchIndex, Term, _both, _flags_present, _glob_match,
                                  _ids, _in_json, _like, _terms, compile_query, find, find_ids, index_from_bank,
                                  interval, parse, retrievability, stored_time)
from tests.srs.conftest import ALL, NOW, A, B, C, D, E, F, G, H
from tests.srs.conftest import fixture_db, fixture_index, fixture_store  # noqa: F401 (the fixture store's fixtures)

UTC = timezone.utc

# --- a small bank: one bilingual question (a follow-up in English only), one plain English one ----

BILINGUAL = """\
id: bi
title:
  en: How big is the KV Cache?
  zh: KV 缓存有多大？
topic: inference
tags: [ZeRO, KV-Cache]
answer:
  en: It is {{kv-b8}}.
  zh: 是 {{kv-b8}}。
followups:
  - id: gqa
    q:
      en: What does GQA change?
      zh: GQA 改变了什么？
    a: {en: It shrinks, zh: 缩小}
  - id: only-en
    q: {en: Only English Here}
    a: {en: "Of course"}
drills:
  - id: kv-b8
    prompt:
      en: "{model} KV cache in GB?"
      zh: "{model} 的 KV cache 多少 GB？"
    setup: {model: llama-2-7b, method: inference, weights: bf16, kv_dtype: bf16, seq: 4096, batch: 8}
    ask: kv_cache
    unit: GB
"""

PLAIN = """\
id: plain
title: Plain Title ABC
topic: training
lang: en
tags: [Mixed-Case]
answer: An answer.
followups:
  - id: f_one
    q: Follow UP one?
    a: Sure.
"""

# what index_from_bank must make of it: title + the card's own prompt, both languages, lower case
BANK_TEXTS = {
    "bi/question/main": "how big is the kv cache?\nkv 缓存有多大？",  # the title: en, newline, zh
    "bi/followup/gqa": "how big is the kv cache?\nkv 缓存有多大？\nwhat does gqa change?\ngqa 改变了什么？",
    "bi/followup/only-en": "how big is the kv cache?\nkv 缓存有多大？\nonly english here",  # zh missing: no blank
    "bi/drill/kv-b8": ("how big is the kv cache?\nkv 缓存有多大？\n{model} kv cache in gb?\n"
                       "{model} 的 kv cache 多少 gb？"),  # the drill's prompt as written, unrendered
    "plain/question/main": "plain title abc",  # a plain-string title as it is, lower-cased
    "plain/followup/f_one": "plain title abc\nfollow up one?",
}
BANK_TAGS = {"bi": ("zero", "kv-cache"), "plain": ("mixed-case",)}  # tags lower-cased, in file order


@pytest.fixture
def small_bank(tmp_path):
    root = tmp_path / "bank"
    for name, text in {"inference/bi.yaml": BILINGUAL, "training/plain.yaml": PLAIN}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    bank = load_bank([root])
    assert not bank.problems, [str(p) for p in bank.problems]
    return bank


def test_both_joins_the_two_languages():
    # kills _both_* (the isinstance test, the "\n" join, the en/zh names, `if t`)
    assert _both("Plain") == "Plain"  # a plain string as it is
    assert _both(SimpleNamespace(en="Eng", zh="中文")) == "Eng\n中文"  # en first, one newline, zh
    assert _both(SimpleNamespace(en="Eng", zh=None)) == "Eng"  # a missing language leaves no empty line
    assert _both(SimpleNamespace(en=None, zh="中文")) == "中文"
    assert _both(SimpleNamespace(zh="中文")) == "中文"  # no `en` attribute at all: getattr's default None
    assert _both(SimpleNamespace(en="Eng")) == "Eng"  # nor `zh` (kills _both_14, getattr(text, "zh") bare)


def test_index_from_bank_holds_title_and_prompt_in_both_languages(small_bank):
    # kills index_from_bank_* (card ids, "\n" separators, lower(), tags, followup q vs drill prompt)
    index = index_from_bank(small_bank)
    assert dict(index.texts) == BANK_TEXTS
    assert dict(index.tags) == BANK_TAGS


def test_a_bank_shown_in_one_language_is_searched_through_its_source(small_bank):
    # kills index_from_bank_1..3 ("source" name / default): the zh-only view still yields both languages
    shown = localized(small_bank, "zh")
    assert shown.questions[0].title == "KV 缓存有多大？"  # the view itself has the Chinese title only
    index = index_from_bank(shown)
    assert dict(index.texts) == BANK_TEXTS and dict(index.tags) == BANK_TAGS


def test_the_bank_index_finds_cards_in_either_language(small_bank, tmp_path):
    store = Store.open(tmp_path / "bank.sqlite3", FakeClock(), SchedulerConfig(tz=UTC))
    try:
        store.sync(small_bank.cards())
        index = index_from_bank(localized(small_bank, "en"))
        # the four bi cards all carry the title, in Chinese too (bank order: main, gqa, only-en, drill)
        assert find_ids(store, "缓存", index) == ["bi/question/main", "bi/followup/gqa", "bi/followup/only-en",
                                                 "bi/drill/kv-b8"]
        assert find_ids(store, "改变", index) == ["bi/followup/gqa"]  # only gqa's zh prompt says it
        assert find_ids(store, "FOLLOW", index) == ["plain/followup/f_one"]  # query and text both lower-cased
        assert find_ids(store, "tag:zero", index) == ["bi/question/main", "bi/followup/gqa", "bi/followup/only-en",
                                                      "bi/drill/kv-b8"]  # ZeRO in the file
        assert find_ids(store, "tag:MIXED-*", index) == ["plain/question/main", "plain/followup/f_one"]
        # no index: free text searches the card ids, LIKE with `_` escaped (kills _leaf_33, _leaf_35: without
        # the ESCAPE clause the backslash before `_` is literal and matches nothing)
        assert find_ids(store, "f_one") == ["plain/followup/f_one"]
    finally:
        store.close()


# --- small helpers ---------------------------------------------------------------------------------


def test_stored_time_is_utc_text_of_fixed_width():
    # kills stored_time_* : 20:00 at +08:00 is 12:00 UTC, written with six-digit microseconds
    assert stored_time(datetime(2026, 11, 29, 20, 0, tzinfo=timezone(timedelta(hours=8)))) == \
        "2026-11-29 12:00:00.000000"
    assert stored_time(NOW + timedelta(microseconds=5)) == "2026-11-29 12:00:00.000005"


def test_like_escapes_the_like_metacharacters_and_turns_star_into_percent():
    # kills _like_* : backslash doubled first, then % and _ escaped, then * -> %
    assert _like("a\\b%c_d*e") == "a\\\\b\\%c\\_d%e"
    assert _like("plain") == "plain"


def test_glob_match_is_a_whole_case_blind_match_with_star():
    # kills _glob_match_* (".*" join, lower(), split on "*", fullmatch, `is not None`)
    assert _glob_match("Serv*", "serving-moe") is True  # prefix + star, case ignored
    assert _glob_match("*MOE", "serving-moe") is True
    assert _glob_match("s*g*e", "serving-moe") is True  # two stars
    assert _glob_match("serving", "SERVING") is True  # value's case ignored too
    assert _glob_match("serv", "serving") is False  # a whole match, not a prefix
    assert _glob_match("a.c", "abc") is False  # everything but * is literal
    assert _glob_match("s*e", "se") is True  # * matches nothing as well


def test_ids_is_sorted_unique_json():
    # kills _ids_* : {"b", "a"} sorted -> ["a", "b"], json.dumps's default ", " separator
    assert _ids(["b", "a", "b"]) == '["a", "b"]'
    assert _ids([]) == "[]"


def test_in_json_selects_the_listed_values(fixture_store):
    # kills _in_json_* ("value" column name, the literal): only A's id of the two listed exists
    with fixture_store.reading() as conn:
        rows = conn.execute(select(CARD.c.card_id).where(_in_json(CARD.c.card_id, f'["{A}", "nope"]'))).scalars()
        assert list(rows) == [A]


def test_terms_walks_every_term_in_order():
    # kills _terms_* : the terms under a Not, an Any_ and an All, depth first, left to right
    tree = parse('topic:a -(tag:b or kind:drill) "x y"')
    assert list(_terms(tree)) == [Term("topic", "a", 1), Term("tag", "b", 11), Term("kind", "drill", 20),
                                  Term("text", "x y", 32)]  # "-" at column 9, "(" 10, "or" 17, ")" 30, '"' 32
    assert list(_terms(All(()))) == []


def test_found_card_is_new_by_reps():
    # kills FoundCard.is_new mutants: new means reps == 0
    card = FoundCard(A, "q1", "question", "main", "serving", 0, 0, 0, None, None, "x", None, False, False, False,
                     None, None, 0)
    assert card.is_new is True
    assert replace(card, reps=1).is_new is False


# --- the Core statement: intervals, retrievability ---------------------------------------------------


def test_interval_is_whole_days_between_last_review_and_due(fixture_store):
    # kills interval_* (the subtraction's sign or order, round). A: due - last review = 20 - (-10) = 30 days;
    # B: -1 - (-5) = 4; D, E: minutes -> 0; F: 50 - (-50) = 100; H: 1 d 1 h - (-9 d) = 10.04 -> 10; C, G new: NULL
    with fixture_store.reading() as conn:
        rows = dict(conn.execute(select(CARD.c.card_id, interval()).where(CARD.c.card_id.in_(ALL))).all())
    assert rows == {A: 30, B: 4, C: None, D: 0, E: 0, F: 100, G: None, H: 10}


def test_retrievability_follows_fsrs6_with_whole_elapsed_days(fixture_store):
    # kills retrievability_* (decay sign, parameters[20], 0.9 ** (1 / decay) - 1, max(0, ...), 1 + f * t / S,
    # the NULL case). Decay 0.5: factor = 0.9 ** -2 - 1 = 0.2345679; A: t = 10, S = 30:
    # (1 + 0.2345679 * 10 / 30) ** -0.5 = 0.9630581; D, E: t = 0 days (minutes ago) -> 1.0 exactly;
    # at NOW + 1 day H has t = 10 = S: R = 0.9 whatever the decay; C, G (no stability) NULL
    parameters = [0.0] * 20 + [0.5]
    with fixture_store.reading() as conn:
        rows = dict(conn.execute(select(CARD.c.card_id, retrievability(parameters, NOW))
                                 .where(CARD.c.card_id.in_(ALL))).all())
        later = dict(conn.execute(select(CARD.c.card_id, retrievability(parameters, NOW + timedelta(days=1)))
                                  .where(CARD.c.card_id == H)).all())
    assert rows[A] == pytest.approx(0.9630581062586693, rel=1e-12)
    assert rows[D] == 1.0 and rows[E] == 1.0
    assert rows[C] is None and rows[G] is None
    assert later[H] == pytest.approx(0.9, rel=1e-12)


def test_retrievability_before_the_last_review_counts_no_negative_days(fixture_store):
    # kills retrievability's max(0, ...) -> max(1, ...) / dropped: two days before NOW, E (last review a
    # minute before NOW) has elapsed int(-2.0) = -2 -> 0 days -> R = 1.0 exactly
    parameters = [0.0] * 20 + [0.5]
    with fixture_store.reading() as conn:
        value = conn.execute(select(retrievability(parameters, NOW - timedelta(days=2)))
                             .where(CARD.c.card_id == E)).scalar_one()
    assert value == 1.0


def test_retrievability_takes_now_in_any_zone(fixture_store):
    # kills _at_2, _at_4 (the moment bound without the datetime columns' type, which converts it to UTC):
    # an hour before NOW A's elapsed time is 9 d 23 h -> 9 whole days: (1 + 0.2345679 * 9 / 30) ** -0.5 =
    # 0.9665692; the same instant written at +08:00 must give the same (as wall-clock text it would read 8 h
    # later: 10 days)
    parameters = [0.0] * 20 + [0.5]
    moment = NOW - timedelta(hours=1)
    with fixture_store.reading() as conn:
        for now in (moment, moment.astimezone(timezone(timedelta(hours=8)))):
            value = conn.execute(select(retrievability(parameters, now)).where(CARD.c.card_id == A)).scalar_one()
            assert value == pytest.approx(0.9665692191267637, rel=1e-12)


# --- find: the browser's columns ----------------------------------------------------------------------

# R with the default parameters (decay 0.1542, factor = 0.9 ** (1 / -0.1542) - 1 = 0.98034649):
# A: t 10, S 30 -> 0.95733580; B: t 5, S 2 -> 0.82613588; F: t 50, S 100 -> 0.94034429; H: t 9, S 10 -> 0.90707367
FOUND = {
    A: FoundCard(A, "q1", "question", "main", "serving", 2, 5, 0, 30.0, 5.0, "2026-12-19 12:00:00.000000",
                 "2026-11-19 12:00:00.000000", False, False, False, 30, 0.9573357955610086, 1),
    B: FoundCard(B, "q1", "followup", "f1", "serving", 2, 3, 2, 2.0, 8.0, "2026-11-28 12:00:00.000000",
                 "2026-11-24 12:00:00.000000", False, False, False, 4, 0.8261358773620447, 0),
    C: FoundCard(C, "q1", "drill", "d1", "serving", 1, 0, 0, None, None, "2026-11-29 12:00:00.000000", None,
                 False, False, False, None, None, 0),  # new: due at sync (NOW), no interval, no R, no flag
    D: FoundCard(D, "q2", "question", "main", "training", 3, 9, 8, 1.5, 9.0, "2026-11-29 12:10:00.000000",
                 "2026-11-29 11:50:00.000000", True, False, True, 0, 1.0, 0),  # suspended leech, t = 0 -> R 1
    E: FoundCard(E, "q2", "drill", "d2", "training", 1, 1, 0, 0.5, 6.0, "2026-11-29 12:09:00.000000",
                 "2026-11-29 11:59:00.000000", False, False, False, 0, 1.0, 0),  # reps 1: it has an interval
    F: FoundCard(F, "q3", "question", "main", "serving-moe", 2, 4, 0, 100.0, 2.0, "2027-01-18 12:00:00.000000",
                 "2026-10-10 12:00:00.000000", False, True, False, 100, 0.9403442888929227, 4),  # buried to 04:00
    G: FoundCard(G, "q4", "question", "main", "training", 1, 0, 0, None, None, "2026-11-29 12:00:00.000000", None,
                 False, False, False, None, None, 0),
    H: FoundCard(H, "q4", "followup", "f2", "training", 2, 2, 1, 10.0, 4.0, "2026-11-30 13:00:00.000000",
                 "2026-11-20 12:00:00.000000", False, False, False, 10, 0.9070736667153885, 1),
}


def test_found_cards_carry_every_column(fixture_store, fixture_index):
    # kills find_* (the selected columns and their order, buried's and_, ivl's reps > 0, `flag or 0`, the
    # orphaned filter): every FoundCard field as the fixture wrote it
    found, total = find(fixture_store, "", fixture_index)
    assert total == 8  # the orphaned q5 card is left out
    by_id = {f.card_id: f for f in found}
    for cid, expected in FOUND.items():
        got = by_id[cid]
        assert got.retrievability == pytest.approx(expected.retrievability, rel=1e-12)
        assert {**got.__dict__, "retrievability": None} == {**expected.__dict__, "retrievability": None}
        assert type(got.buried) is bool and type(got.suspended) is bool  # not NULL / 0 / 1


def test_buried_until_now_is_no_longer_buried(fixture_store, fixture_index):
    # kills find's `buried_until > now` -> `>=` and the is:buried leaf's: at DAY_END (04:00 tomorrow,
    # NOW + 16 h) F's bury ends exactly now
    fixture_store.clock.advance(hours=16)
    found, _ = find(fixture_store, "", fixture_index)
    assert {f.card_id: f.buried for f in found}[F] is False
    assert find_ids(fixture_store, "is:buried", fixture_index) == []
    fixture_store.clock.advance(seconds=-1)  # a second earlier it still is
    assert find_ids(fixture_store, "is:buried", fixture_index) == [F]


def test_find_counts_all_matches_but_returns_at_most_limit(fixture_store, fixture_index):
    # kills find's limit handling and the total's count: card order C, B, A, E, D, F, H, G (card ids)
    found, total = find(fixture_store, "", fixture_index, sort="card", limit=3)
    assert [f.card_id for f in found] == [C, B, A] and total == 8
    found, total = find(fixture_store, "kind:question", fixture_index, sort="card", limit=2)
    assert [f.card_id for f in found] == [A, D] and total == 4  # A D F G are question cards
    found, total = find(fixture_store, "", fixture_index, limit=0)
    assert found == [] and total == 8


def test_find_refuses_an_unknown_sort(fixture_store):
    # kills find's `sort not in ORDER` check and its message
    with pytest.raises(ValueError) as caught:
        find(fixture_store, "", sort="size")
    assert str(caught.value) == ("sort: expected one of bank, due, ivl, s, d, r, lapses, reps, topic, kind, flag, "
                                 "card, got 'size'")


# --- sorting: each ORDER key, both ways -----------------------------------------------------------------
# bank order A B C D E F G H; card-id order C B A E D F H G (q1/drill < q1/followup < q1/question < q2/...).
# New cards (C, G) and cards without the value stay last both ways; ties fall to card id (reversed when
# descending).
SORTS = [
    ("bank", False, [A, B, C, D, E, F, G, H]),
    ("bank", True, [H, G, F, E, D, C, B, A]),
    # due: B -1 d, E +9 min, D +10 min, H +1 d, A +20 d, F +50 d; then the new C, G (reps = 0) by card id
    ("due", False, [B, E, D, H, A, F, C, G]),
    ("due", True, [F, A, H, D, E, B, G, C]),
    # ivl: E 0, D 0 (tie: card id q2/drill < q2/question), B 4, H 10, A 30, F 100; NULL (C, G) last
    ("ivl", False, [E, D, B, H, A, F, C, G]),
    ("ivl", True, [F, A, H, B, D, E, G, C]),
    # s: E 0.5, D 1.5, B 2, H 10, A 30, F 100
    ("s", False, [E, D, B, H, A, F, C, G]),
    ("s", True, [F, A, H, B, D, E, G, C]),
    # d: F 2, H 4, A 5, E 6, B 8, D 9
    ("d", False, [F, H, A, E, B, D, C, G]),
    ("d", True, [D, B, E, A, H, F, G, C]),
    # r: B 0.826, H 0.907, F 0.940, A 0.957, then E and D at 1.0 (card id E < D)
    ("r", False, [B, H, F, A, E, D, C, G]),
    ("r", True, [D, E, A, F, H, B, G, C]),
    # lapses: C A E F G at 0 (card ids C < A < E < F < G), H 1, B 2, D 8; nothing is NULL so no "last"
    ("lapses", False, [C, A, E, F, G, H, B, D]),
    ("lapses", True, [D, B, H, G, F, E, A, C]),
    # reps: C G 0, E 1, H 2, B 3, F 4, A 5, D 9
    ("reps", False, [C, G, E, H, B, F, A, D]),
    ("reps", True, [D, A, F, B, H, E, G, C]),
    # topic: serving (A B C by bank order), serving-moe (F), training (D E G H)
    ("topic", False, [A, B, C, F, D, E, G, H]),
    ("topic", True, [H, G, E, D, F, C, B, A]),
    # kind: drill (C E), followup (B H), question (A D F G), each in bank order
    ("kind", False, [C, E, B, H, A, D, F, G]),
    ("kind", True, [G, F, D, A, H, B, E, C]),
    # flag: A 1, H 1 (card id A < H), F 4; unflagged (NULL) last by card id: C B E D G
    ("flag", False, [A, H, F, C, B, E, D, G]),
    ("flag", True, [F, H, A, G, D, E, B, C]),
    ("card", False, [C, B, A, E, D, F, H, G]),
    ("card", True, [G, H, F, D, E, A, B, C]),
]


@pytest.mark.parametrize(("sort", "descending", "expected"), SORTS,
                         ids=[f"{s}-{'desc' if d else 'asc'}" for s, d, _ in SORTS])
def test_each_sort_orders_the_fixture(fixture_store, fixture_index, sort, descending, expected):
    # kills ORDER's entries (names, their order), _order_by_* (`reps = 0`, " IS " partition, is_(None),
    # desc() only when descending, computed vs card columns) and find's order_by
    found, total = find(fixture_store, "", fixture_index, sort=sort, descending=descending)
    assert [f.card_id for f in found] == expected and total == 8


def test_the_sort_names_are_the_browsers():
    # kills ORDER key mutants: the twelve names the browser and `quizapp cards --sort` offer
    assert list(ORDER) == ["bank", "due", "ivl", "s", "d", "r", "lapses", "reps", "topic", "kind", "flag", "card"]


def _same_bank_order(store) -> None:
    with store.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE card SET bank_order = 0")


TIES = [
    ("bank", False, [C, B, A, E, D, F, H, G]),  # every bank_order 0: card id decides
    ("bank", True, [G, H, F, D, E, A, B, C]),
    ("topic", False, [C, B, A, F, E, D, H, G]),  # serving: C B A by card id; serving-moe F; training E D H G
    ("kind", False, [C, E, B, H, A, D, F, G]),  # drill C E; followup B H; question A D F G (all in card-id order)
    ("kind", True, [G, F, D, A, H, B, E, C]),
]


@pytest.mark.parametrize(("sort", "descending", "expected"), TIES,
                         ids=[f"{s}-{'desc' if d else 'asc'}" for s, d, _ in TIES])
def test_ties_in_bank_order_fall_to_the_card_id(fixture_store, fixture_index, sort, descending, expected):
    # kills the "card_id" tie-breakers of ORDER's bank, topic and kind entries
    _same_bank_order(fixture_store)
    found, _ = find(fixture_store, "", fixture_index, sort=sort, descending=descending)
    assert [f.card_id for f in found] == expected


def test_find_ids_is_in_bank_order_then_card_id(fixture_store, fixture_index):
    # kills find_ids' order_by: bank order A..H; with every bank_order 0, card-id order C B A E D F H G
    assert find_ids(fixture_store, "", fixture_index) == [A, B, C, D, E, F, G, H]
    _same_bank_order(fixture_store)
    assert find_ids(fixture_store, "", fixture_index) == [C, B, A, E, D, F, H, G]


# --- _where: the empty query, negation over groups ------------------------------------------------------


def test_negation_reaches_into_groups(fixture_store, fixture_index):
    # kills _where_* passing `negated` on: C and G have no stability, so prop:s>5 is NULL for them; under a
    # NOT it must read false: -(prop:s>5 kind:drill) keeps every card but a drill with S > 5 (none: C new,
    # E 0.5) -> all 8; -(prop:s>5 or kind:question) drops A F H (S 30, 100, 10) and the question cards
    # A D F G -> B C E
    assert find_ids(fixture_store, "-(prop:s>5 kind:drill)", fixture_index) == [A, B, C, D, E, F, G, H]
    assert find_ids(fixture_store, "-(prop:s>5 or kind:question)", fixture_index) == [B, C, E]
    assert find_ids(fixture_store, "--prop:s>5", fixture_index) == [A, F, H]  # not (not S > 5): NULL is false


def test_the_empty_query_matches_every_card_not_orphaned(fixture_store, fixture_index):
    # kills _where's empty All -> false() and compile_query's orphaned filter
    assert find_ids(fixture_store, "", fixture_index) == [A, B, C, D, E, F, G, H]  # q5 orphaned is left out


# --- compile_query with and without a connection ----------------------------------------------------------


def _run(store, where) -> list[str]:
    with store.reading() as conn:
        return list(conn.execute(select(CARD.c.card_id).where(where).order_by(CARD.c.bank_order)).scalars())


def test_compile_query_without_a_connection(fixture_store, fixture_index):
    # kills compile_query_* (has_flags assumed True without conn, LIKE topics, the `now` argument)
    assert _run(fixture_store, compile_query(fixture_store, "flag:1", fixture_index)) == [A, H]  # flags assumed
    assert _run(fixture_store, compile_query(fixture_store, "topic:serv*", fixture_index)) == [A, B, C, F]  # LIKE
    assert _run(fixture_store, compile_query(fixture_store, "topic:SERVING", fixture_index)) == [A, B, C]
    # LIKE escapes _: "serving_moe" is not "serving-moe"
    assert _run(fixture_store, compile_query(fixture_store, "topic:serving_moe", fixture_index)) == []
    # no flag table: flag:0 is every card, flag:N none
    assert _run(fixture_store, compile_query(fixture_store, "flag:0", None, has_flags=False)) == list(ALL)
    assert _run(fixture_store, compile_query(fixture_store, "flag:1", None, has_flags=False)) == []
    # two days on (Dec 1 12:00, the day ends Dec 2 04:00): B, E and H (due Nov 30 13:00) are due; F's bury
    # (to Nov 30 04:00) is over but it is due in 50 days; D is suspended
    later = NOW + timedelta(days=2)
    assert _run(fixture_store, compile_query(fixture_store, "is:due", None, now=later)) == [B, E, H]
    assert _run(fixture_store, compile_query(fixture_store, "rated:1", None, now=later)) == []  # none answered then
    assert _run(fixture_store, compile_query(fixture_store, "rated:3", None, now=later)) == [C, D, E]  # since Nov 29
    # prop:r takes the store's FSRS parameters (kills compile_query_34): R now is B 0.826, H 0.907, F 0.940,
    # A 0.957, D and E 1.0; new cards have none
    assert _run(fixture_store, compile_query(fixture_store, "prop:r<0.93", None)) == [B, H]


def test_compile_query_with_a_connection_looks_up_topics_and_flags(fixture_store, fixture_index):
    # kills compile_query's topic look-up (the "topic" test over _terms) and its _flags_present call: with a
    # connection, topic:serv* enters as the JSON list of matching topics; after card_flag is dropped, flag:0
    # is every card
    with fixture_store.reading() as conn:
        where = compile_query(fixture_store, "topic:serv*", fixture_index, conn=conn)
        params = where.compile(dialect=sqlite.dialect()).params
        assert sorted(v for v in params.values() if isinstance(v, str) and v.startswith("[")) == \
            ['["serving", "serving-moe"]']  # q1's and q3's topics (q5's serving counts once)
        assert list(conn.execute(select(CARD.c.card_id).where(where).order_by(CARD.c.bank_order)).scalars()) == \
            [A, B, C, F]
        assert _flags_present(conn) is True
    with fixture_store.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE card_flag")
    with fixture_store.reading() as conn:
        assert _flags_present(conn) is False
        where = compile_query(fixture_store, "flag:0", fixture_index, conn=conn)
        assert list(conn.execute(select(CARD.c.card_id).where(where).order_by(CARD.c.bank_order)).scalars()) == \
            list(ALL)


def test_find_without_a_flag_table(fixture_store, fixture_index):
    # kills find's has_flags and the flag column's null(): no card_flag table, every flag 0, flag:1 matches none
    with fixture_store.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE card_flag")
    found, total = find(fixture_store, "", fixture_index, sort="flag")
    assert [f.flag for f in found] == [0] * 8 and total == 8
    assert [f.card_id for f in found] == [C, B, A, E, D, F, H, G]  # every flag NULL: card id decides
    assert find_ids(fixture_store, "flag:1", fixture_index) == []


def test_free_text_without_an_index_searches_card_ids(fixture_store):
    # kills _leaf's text-without-index LIKE (the %...% and escape): "drill" is in C's and E's ids; "d_"
    # would match "dr" and "d1" unescaped, but no id holds an underscore
    assert find_ids(fixture_store, "drill") == [C, E]
    assert find_ids(fixture_store, "d_") == []
    assert find_ids(fixture_store, "tag:zero") == []  # no index: no tags


class _TickingClock:
    """A clock that moves two days on every reading after `start_search` (a search must read it once)."""

    def __init__(self) -> None:
        self.readings = 0
        self.ticking = False

    def now(self) -> datetime:
        if not self.ticking:
            return NOW
        self.readings += 1
        return NOW + timedelta(days=2 * (self.readings - 1))

    def monotonic(self) -> float:
        return 1000.0


def test_find_reads_the_clock_once(fixture_db, fixture_index):
    # kills find_17, find_23 (compile_query not handed find's `now`: it would read the clock again). At the
    # first reading (NOW) is:due is B and E; two days on it would be B, E and H (H due Nov 30 13:00)
    clock = _TickingClock()
    store = Store.open(fixture_db, clock, SchedulerConfig(tz=UTC, bury_siblings=False))
    try:
        clock.ticking = True
        found, total = find(store, "is:due", fixture_index)
        assert [f.card_id for f in found] == [B, E] and total == 2
        assert clock.readings == 1
    finally:
        store.close()


def test_topic_search_with_a_connection_ignores_case_beyond_ascii(fixture_store, fixture_index):
    # kills find_16, find_22 (find not handing compile_query its connection): with one, the topics are
    # matched in Python (str.lower: Ü -> ü), not by SQLite's LIKE (case-blind only for ASCII). F's topic
    # is set to "überblick" here
    with fixture_store.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE card SET topic = 'überblick' WHERE card_id = ?", (F,))
    found, total = find(fixture_store, "topic:ÜBER*", fixture_index)
    assert [f.card_id for f in found] == [F] and total == 1
    assert find_ids(fixture_store, "topic:ÜBERBLICK", fixture_index) == [F]


def test_topic_like_escapes_the_underscore(fixture_store, fixture_index):
    # kills _leaf_18, _leaf_20 (the topic LIKE without its ESCAPE '\'): topics are slugs, so `_` is a real
    # character in them. F's topic is set to "serving_moe" and G's to "servingxmoe" here; without a
    # connection topic:serving_moe is LIKE 'serving\_moe' ESCAPE '\': F only (unescaped `_` would take G too,
    # and without the ESCAPE clause the backslash would be literal and match neither)
    with fixture_store.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE card SET topic = 'serving_moe' WHERE card_id = ?", (F,))
        conn.exec_driver_sql("UPDATE card SET topic = 'servingxmoe' WHERE card_id = ?", (G,))
    assert _run(fixture_store, compile_query(fixture_store, "topic:serving_moe", fixture_index)) == [F]
    assert find_ids(fixture_store, "topic:serving_moe", fixture_index) == [F]  # with a connection: the same


def test_a_card_reviewed_once_with_easy_is_in_review(fixture_store, fixture_index):
    # kills _leaf_114 (is:review's reps > 0 -> > 1): Easy on the new card G moves it straight to Review
    # (state 2) with reps 1, so is:review gains G: A B D F H (the fixture's) + G
    fixture_store.review(G, 4, duration_ms=1000)
    assert find(fixture_store, "", fixture_index, sort="card")[0][-1].state == 2  # G sorts last by card id
    assert find_ids(fixture_store, "is:review", fixture_index) == [A, B, D, F, G, H]


def test_missed_with_a_wildcard_escapes_the_underscore(fixture_store, fixture_index):
    # kills _leaf_203, _leaf_205 (missed:'s LIKE without ESCAPE '\'). Key point ids are slugs, `_` included.
    # Written here: C's cram answers (review_log ids 6 and 7) recorded kv_size covered, then not (the last,
    # id 2, decides: missed); H's answer (id 8) left kvxsize uncovered. missed:kv_* is LIKE 'kv\_%': C only
    with fixture_store.engine.begin() as conn:
        for row in ((1, 6, C, "kv_size", 1), (2, 7, C, "kv_size", 0), (3, 8, H, "kvxsize", 0)):
            conn.exec_driver_sql("INSERT INTO review_point (id, review_id, card_id, point, covered) VALUES (?,?,?,?,?)",
                                 row)
    assert find_ids(fixture_store, "missed:kv_*", fixture_index) == [C]
    assert find_ids(fixture_store, "missed:kv_size", fixture_index) == [C]  # no wildcard: equality
    assert find_ids(fixture_store, "missed:kv*", fixture_index) == [C, H]


def test_mistake_writes_wrong_as_a_literal_for_the_partial_index(fixture_store, fixture_index):
    # kills _leaf_179, _leaf_182, _leaf_185 (literal_execute off): the statement says verdict = 'wrong' in
    # its text, which is what lets SQLite match ix_review_log_wrong (a partial index WHERE verdict = 'wrong');
    # a bound parameter (verdict = ?) never matches a partial index
    with fixture_store.reading() as conn:
        statement = select(CARD.c.card_id).where(compile_query(fixture_store, "mistake:m-kv", fixture_index,
                                                               conn=conn))
        sql = str(statement.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True}))
        assert "WHERE review_log.verdict = 'wrong' GROUP BY review_log.card_id" in sql
        assert list(conn.execute(statement).scalars()) == [C]  # C's last wrong answer was m-kv


def test_prop_due_at_the_very_start_of_a_study_day(fixture_store, fixture_index):
    # kills _leaf_257 (prop:due> as due > after) and _leaf_259 (prop:due<= as due <= after). Set due 1 day
    # puts A at the start of tomorrow's study day, Nov 30 04:00 exactly: it is due on day 1, so "> 0"
    # takes it and "<= 0" does not. Day 0 holds D, E (minutes from now); B is at -1
    from quizapp.store import card_ops

    card_ops.apply(fixture_store, "due", [A], card_ops.DueSpec(1, 1))
    assert find(fixture_store, "", fixture_index)[0][0].due == "2026-11-30 04:00:00.000000"  # A, first in bank order
    assert find_ids(fixture_store, "prop:due=1", fixture_index) == [A, H]  # H: Nov 30 13:00
    assert find_ids(fixture_store, "prop:due>0", fixture_index) == [A, F, H]  # F: in 50 days
    assert find_ids(fixture_store, "prop:due<=0", fixture_index) == [B, D, E]


def test_a_bare_topic_term_is_looked_up_through_the_topic_index(fixture_store):
    # kills _where_1 (negated defaulting to True: every leaf wrapped in coalesce(..., false), which SQLite
    # cannot look up through an index). With a connection topic:serving is `card.topic IN (json_each(...))`,
    # the first step of the plan a search of ix_card_topic
    with fixture_store.reading() as conn:
        statement = select(CARD.c.card_id).where(compile_query(fixture_store, "topic:serving", None, conn=conn))
        compiled = statement.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
        params = tuple(compiled.params[k] for k in compiled.positiontup)
        plan = [row[3] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + str(compiled), params)]
        assert plan[0] == "SEARCH card USING INDEX ix_card_topic (topic=?)"
        assert sorted(conn.execute(statement).scalars()) == sorted([A, B, C])  # q1's cards


def test_terms_side_by_side_each_see_the_search_context(fixture_store, fixture_index):
    # kills _where_4, _where_10, _where_17 (an All's, an Any_'s or a Not's children compiled without the
    # context): is:due needs the day's end and tag: the index. Due now: B, E; of them drills: E. Tagged
    # zero: D, E (q2); of them questions: D. Tagged moe: F (q3)
    assert find_ids(fixture_store, "is:due kind:drill", fixture_index) == [E]
    assert find_ids(fixture_store, "tag:zero kind:question", fixture_index) == [D]
    assert find_ids(fixture_store, "is:due or tag:moe", fixture_index) == [B, E, F]
    assert find_ids(fixture_store, "-tag:zero", fixture_index) == [A, B, C, F, G, H]
