"""The search language against the fixture database (tests/srs/conftest.py): each query's expected cards
follow from how the fixture was built, and every malformed query names its problem and column."""

from __future__ import annotations

import pytest

from quizapp.store.search import SearchError, find, find_ids, parse
from quizapp.words import say
from tests.srs.conftest import ALL, A, B, C, D, E, F, G, H

QUERIES = [
    ("", set(ALL)),  # everything but the orphaned q5 card
    ("topic:serving", {A, B, C}),
    ("topic:SERVING", {A, B, C}),  # case-insensitive, like Anki
    ("topic:serving*", {A, B, C, F}),
    ("topic:train*", {D, E, G, H}),
    ("tag:kv-cache", {A, B, C}),
    ("tag:z*", {D, E}),
    ("tag:vllm or tag:zero", {A, B, C, D, E}),
    ("kind:drill", {C, E}),
    ("kind:followup", {B, H}),
    ("is:new", {C, G}),
    ("is:learn", {D, E}),  # learning and relearning
    ("is:review", {A, B, D, F, H}),  # review and relearning (lapsed), as in Anki
    ("is:suspended", {D}),
    ("is:buried", {F}),
    ("is:leech", {D}),
    ("is:due", {B, E}),  # D is suspended, F buried, H due tomorrow, A in 20 days
    ("flag:1", {A, H}),
    ("flag:4", {F}),
    ("flag:0", {B, C, D, E, G}),
    ("-flag:0", {A, F, H}),
    ("prop:ivl>=21", {A, F}),
    ("prop:ivl<7", {B, D, E}),  # B: 4 days; D and E: minutes (0 days)
    ("prop:due=1", {H}),
    ("prop:due<0", {B}),  # overdue since yesterday
    ("prop:due=0", {D, E}),
    ("prop:lapses>1", {B, D}),
    ("prop:lapses=1", {H}),
    ("prop:reps>=5", {A, D}),
    ("prop:s>50", {F}),
    ("prop:s<1", {E}),
    # boundaries on exact values (the audit's M5: `<=` and `!=` were never exercised on a property)
    ("prop:ivl<=4", {B, D, E}),  # B's interval is exactly 4 days (due -1 d, last review -5 d)
    ("prop:ivl<4", {D, E}),  # ... so `<` leaves it out
    ("prop:ivl!=0", {A, B, F, H}),  # D and E are 0 days (minutes); new cards have no interval
    ("prop:s<=2", {B, D, E}),  # B's stability is exactly 2.0
    ("prop:lapses<=1", {A, C, E, F, G, H}),  # H has exactly 1; new cards have 0 lapses
    ("prop:lapses!=1", {A, B, C, D, E, F, G}),
    ("prop:reps<=3", {B, C, E, G, H}),  # B has exactly 3; new cards 0 reps
    ("prop:d>0.8", {D}),  # Anki's 0..1 scale: (D - 1) / 9
    ("prop:d<0.2", {F}),
    ("prop:r<0.9", {B}),  # R = 90% exactly when elapsed = S; only B is past its stability
    ("rated:1", {C, D, E}),  # answered since today's 04:00 (cram counts, as Anki's filtered decks do)
    ("rated:1:1", {C, D}),  # C: Again in cram this morning
    ("rated:2", {C, D, E}),
    ("rated:7", {B, C, D, E}),
    ("rated:7:1", {B, C, D, E}),  # E: Again yesterday
    ("rated:30", {A, B, C, D, E, H}),
    ("mistake:m-kv", {C}),  # its last wrong answer; a correct answer since does not clear it
    ("mistake:m-adam", {E}),
    ("mistake:m-other", set()),  # E's last wrong answer was m-adam
    ("paged", {B}),
    ("kv", {A, B, C}),
    ("[brackets]", {A, B, C}),
    ('"kv bytes"', {C}),
    ("kv -kind:drill", {A, B}),
    ("kv and kind:drill", {C}),
    ("(topic:training is:new) or flag:4", {G, F}),
    ("-(topic:serving or topic:training)", {F}),
    ("is:new or is:suspended kind:question", {C, G, D}),  # and binds tighter than or
    ("-is:review", {C, E, G}),
    ("-prop:s>5", {B, C, D, E, G}),  # new cards have no stability: "not more than 5" includes them
    ('topic:"serving"', {A, B, C}),
    ("nothing-matches-this", set()),
]


@pytest.mark.parametrize(("query", "expected"), QUERIES, ids=[q or "(empty)" for q, _ in QUERIES])
def test_query_finds_the_constructed_cards(fixture_store, fixture_index, query, expected):
    assert set(find_ids(fixture_store, query, fixture_index)) == expected
    found, total = find(fixture_store, query, fixture_index)
    assert {f.card_id for f in found} == expected and total == len(expected)


MALFORMED = [
    ("(topic:serving", "search.unclosed_paren", 1),
    ("topic:serving)", "search.unmatched_close", 14),
    ("kv or", "search.or_needs_terms", 4),
    ("or kv", "search.or_needs_terms", 1),
    ("kv or or x", "search.or_needs_terms", 4),
    ("kv and", "search.and_needs_terms", 4),
    ("kv -", "search.dangling_minus", 4),
    ("- kv", "search.dangling_minus", 1),
    ("()", "search.empty_parens", 1),
    ('"kv', "search.unclosed_quote", 1),
    ('topic:"kv', "search.unclosed_quote", 7),
    ('""', "search.empty_text", 1),
    ("deck:serving", "search.unknown_key", 1),
    ("kv topic:", "search.empty_value", 10),
    ("kind:card", "search.bad_choice", 6),
    ("is:fresh", "search.bad_choice", 4),
    ("flag:5", "search.bad_flag", 6),
    ("flag:red", "search.bad_flag", 6),
    ("rated:0", "search.bad_rated_days", 7),
    ("rated:x", "search.bad_rated_days", 7),
    ("rated:3:5", "search.bad_rating", 9),
    ("prop:size>3", "search.unknown_prop", 6),
    ("prop:ivl", "search.prop_operator", 9),
    ("prop:ivl~3", "search.prop_operator", 9),
    ("prop:ivl>big", "search.prop_number", 10),
    ("prop:lapses>1.5", "search.prop_whole", 13),
]


@pytest.mark.parametrize(("query", "code", "column"), MALFORMED, ids=[q for q, _, _ in MALFORMED])
def test_malformed_query_names_the_problem_and_column(fixture_store, query, code, column):
    with pytest.raises(SearchError) as caught:
        find_ids(fixture_store, query)
    assert (caught.value.code, caught.value.column) == (code, column)
    line = say("search.error", "en", column=caught.value.column,
               reason=say(caught.value.code, "en", **caught.value.details))
    assert "\n" not in line and line.startswith(f"search, column {column}: ")
    assert say(caught.value.code, "en", **caught.value.details) != caught.value.code  # the words exist


FRAGMENTS = [  # each fragment is refused with its own reason (a silent accept would fail here)
    ('"', "search.unclosed_quote", 1),
    ("(", "search.unclosed_paren", 1),
    (")", "search.unmatched_close", 1),
    ("-", "search.dangling_minus", 1),
    ("a:", "search.unknown_key", 1),
    ("prop:", "search.empty_value", 6),
    ("rated:1:", "search.bad_rating", 9),
    ("((a)", "search.unclosed_paren", 1),
    ("a ) (", "search.unmatched_close", 3),
    ("- -a", "search.dangling_minus", 1),
    ("or", "search.or_needs_terms", 1),
    ("and", "search.and_needs_terms", 1),
]


@pytest.mark.parametrize(("query", "code", "column"), FRAGMENTS, ids=[q for q, _, _ in FRAGMENTS])
def test_a_fragment_is_refused_with_its_reason(query, code, column):
    with pytest.raises(SearchError) as caught:
        parse(query)
    assert (caught.value.code, caught.value.column) == (code, column)


def test_a_lone_colon_is_plain_text():
    term = parse(":")  # no key before it: searched as text, as Anki does
    assert (term.key, term.value) == ("text", ":")


def test_sorting_and_limit(fixture_store, fixture_index):
    found, total = find(fixture_store, "is:review", fixture_index, sort="s", limit=3)
    assert total == 5 and [f.card_id for f in found] == [D, B, H]  # stabilities 1.5, 2, 10
    found, _ = find(fixture_store, "is:review", fixture_index, sort="s", descending=True)
    assert [f.card_id for f in found] == [F, A, H, B, D]
    found, _ = find(fixture_store, "", fixture_index, sort="flag")
    assert [f.card_id for f in found][:3] == sorted([A, H]) + [F]


def test_found_cards_carry_the_browser_columns(fixture_store, fixture_index):
    found = {f.card_id: f for f in find(fixture_store, "", fixture_index)[0]}
    assert found[A].interval == 30 and found[A].flag == 1 and found[F].buried and found[D].suspended
    assert found[C].interval is None and found[C].retrievability is None and found[C].is_new
    assert found[D].retrievability == pytest.approx(1.0)
    assert found[H].retrievability > 0.9 > found[B].retrievability
