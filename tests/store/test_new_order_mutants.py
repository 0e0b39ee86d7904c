"""store/new_order.py's rule pinned with hand-derived orders (docs/database.md, "New cards"), for the
mutation run of new-order (benchmarks/mutation.py new-order); each test names the mutants it kills."""

from __future__ import annotations

import pytest

from quizapp.store.new_order import OrderCard, _unit, mixed_ranks, question_sequence


def test_the_phase_is_crc32_over_two_to_the_32():
    # kills x__unit__mutmut_1, 6, 7, 8 (the scale). CRC-32's standard check value: "123456789" ->
    # 0xCBF43926 = 3,421,780,262, and 3,421,780,262 / 2^32 = 0.7966953
    assert _unit("123456789") == pytest.approx(3_421_780_262 / 4_294_967_296, rel=1e-12)
    assert _unit("123456789") == pytest.approx(0.7966953, abs=1e-7)
    assert 0 <= _unit("") < 1 and _unit("") == 0.0  # CRC-32 of nothing is 0


def _question(qid: str = "q") -> list[OrderCard]:
    # bank order deliberately unlike card-id order: f-z comes before f-a, d-y before d-b
    return [OrderCard(f"{qid}/followup/f-a", qid, "followup", 4), OrderCard(f"{qid}/drill/d-b", qid, "drill", 3),
            OrderCard(f"{qid}/question/main", qid, "question", 0), OrderCard(f"{qid}/followup/f-z", qid, "followup", 1),
            OrderCard(f"{qid}/drill/d-y", qid, "drill", 2)]


def _items(cards):
    return [c.card_id.split("/", 1)[1] for c in cards]


def test_a_question_opening_with_a_drill_interleaves_by_position():
    # kills x_question_sequence__mutmut_4, 6 (sorted by card id, not bank order) and 9, 10, 11, 14 (the
    # drill test). Drills lead: d-y at 0/2, d-b at 1/2; the others at (j + 1/2)/3: main 1/6, f-z 1/2,
    # f-a 5/6; a tie (1/2) goes to the leading group
    assert _items(question_sequence(_question())) == ["drill/d-y", "question/main", "drill/d-b",
                                                      "followup/f-z", "followup/f-a"]


def test_a_question_opening_with_its_question_card():
    # the others lead: main 0, f-z 1/3, f-a 2/3; drills at (j + 1/2)/2: d-y 1/4, d-b 3/4
    assert _items(question_sequence(_question(), drill_first=False)) == ["question/main", "drill/d-y",
                                                                         "followup/f-z", "followup/f-a",
                                                                         "drill/d-b"]


def test_a_question_without_drills_opens_with_its_question_card():
    cards = [c for c in _question() if c.kind != "drill"]
    assert _items(question_sequence(cards)) == ["question/main", "followup/f-z", "followup/f-a"]
    only_drills = [c for c in _question() if c.kind == "drill"]
    assert _items(question_sequence(only_drills, drill_first=False)) == ["drill/d-y", "drill/d-b"]


def test_mixed_ranks_spread_each_question_by_its_phase():
    cards = _question("alpha") + _question("beta")
    ranks = mixed_ranks(cards)
    phase = {"alpha": _unit("alpha"), "beta": _unit("beta")}
    first = min(phase, key=lambda q: phase[q] / 5)  # the question whose first card ranks first
    sequence = question_sequence(_question(first), drill_first=True)  # position 0 opens with a drill
    assert [ranks[c.card_id][0] for c in sequence] == pytest.approx([(i + phase[first]) / 5 for i in range(5)])
    assert all(ranks[c.card_id][1] == c.card_id for c in cards)


def test_the_question_card_leads_the_others_whatever_its_bank_order():
    # kills x_question_sequence__mutmut_19, 20: the question card sorts before the follow-ups even
    # when a follow-up comes first in the file
    cards = [OrderCard("q/followup/f1", "q", "followup", 1), OrderCard("q/question/main", "q", "question", 9),
             OrderCard("q/followup/f2", "q", "followup", 4)]
    assert _items(question_sequence(cards, drill_first=False)) == ["question/main", "followup/f1", "followup/f2"]


def test_questions_open_by_their_first_card_s_rank_two_in_three_with_a_drill():
    # kills x_mixed_ranks__mutmut_8, 10, 12 (the order of the questions by phase / size) and 20, 21
    # (every third question, positions 2, 5, 8, opens with its question card)
    questions = {f"topic-{i}": 2 + i % 3 for i in range(9)}  # question id -> its number of follow-ups
    cards = []
    for qid, followups in questions.items():
        cards += [OrderCard(f"{qid}/question/main", qid, "question", 0), OrderCard(f"{qid}/drill/d", qid, "drill", 1)]
        cards += [OrderCard(f"{qid}/followup/f{j}", qid, "followup", 2 + j) for j in range(followups)]
    ranks = mixed_ranks(cards)
    size = {qid: 2 + n for qid, n in questions.items()}
    by_first = sorted(questions, key=lambda qid: (_unit(qid) / size[qid], qid))
    assert by_first != sorted(questions)  # the phases reorder them: a sort by id would differ
    for position, qid in enumerate(by_first):
        opening = min((c for c in cards if c.question_id == qid), key=lambda c: ranks[c.card_id])
        assert ranks[opening.card_id][0] == pytest.approx(_unit(qid) / size[qid])
        assert opening.kind == ("question" if position % 3 == 2 else "drill"), (position, qid)
