"""The bundled bank covers the whole interview (issue 12): its size, its topics and drills where numbers live."""

from __future__ import annotations

from collections import Counter

import pytest

from quizapp.content import load_bank
from quizapp.locations import bundled_content_dir

# topic folder -> the fewest questions it must hold: issue 12's topics keep their counts, issue 19 adds
# gpu, kernels, attention, engines, numerics and data and grows rlhf to 8
TOPIC_MINIMUMS = {"compute": 4, "fine-tuning": 4, "inference": 3, "llm-training": 10, "serving": 8, "quantization": 5,
                  "parallelism": 7, "moe": 4, "rlhf": 8, "scaling": 4, "systems": 8,
                  "gpu": 6, "kernels": 6, "attention": 6, "engines": 8, "numerics": 5, "data": 4}
# topics whose every question has a number the calculator can compute, so at least one drill
NUMERIC_TOPICS = ("serving", "quantization", "parallelism", "moe", "rlhf", "scaling", "gpu", "kernels", "attention",
                  "numerics")
# topics where at least one question drills a number (engines and data also hold design questions)
SOME_DRILLS = ("engines", "data")


@pytest.fixture(scope="module")
def bank():
    return load_bank([bundled_content_dir()])


def test_the_bank_validates_with_at_least_130_questions_and_650_drills(bank):
    assert bank.problems == ()
    assert len(bank.questions) >= 130
    assert sum(len(q.drills) for q in bank.questions) >= 650


@pytest.mark.parametrize("topic", SOME_DRILLS)
def test_a_drill_in_every_numeric_topic(bank, topic):
    assert any(q.drills for q in bank.questions if q.topic == topic)


@pytest.mark.parametrize("topic", sorted(TOPIC_MINIMUMS))
def test_every_topic_row_holds_its_count(bank, topic):
    counts = Counter(q.topic for q in bank.questions)
    assert counts[topic] >= TOPIC_MINIMUMS[topic]


@pytest.mark.parametrize("topic", NUMERIC_TOPICS)
def test_no_question_of_a_numeric_topic_lacks_a_drill(bank, topic):
    bare = [q.id for q in bank.questions if q.topic == topic and not q.drills]
    assert not bare


def test_difficulty_means_something(bank):
    levels = Counter(q.difficulty for q in bank.questions)
    assert set(levels) <= {1, 2, 3, 4, 5}
    assert len(levels) >= 4  # warm-ups to staff-level, not one level for everything
