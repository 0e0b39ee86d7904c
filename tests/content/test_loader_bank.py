"""Loading: good files become questions and cards, bad ones become problems, never exceptions."""

from __future__ import annotations

import json
from pathlib import Path

from quizapp.content import Bank, Problem, Question, load_bank, load_question_file
from quizapp.content.schema import question_json_schema

GOOD_DIR = Path(__file__).parent / "fixtures" / "good"
GOOD_FILE = GOOD_DIR / "llm-training" / "mini-adamw.yaml"


def test_good_file_loads_with_no_problems():
    question, problems = load_question_file(GOOD_FILE)
    assert problems == []
    assert isinstance(question, Question)
    assert question.id == "mini-adamw" and question.source_path == GOOD_FILE
    assert [d.id for d in question.drills][:2] == ["states", "states-8bit"]
    assert question.drill("states").tolerance == "10%"  # the default
    assert question.title.endswith("[brackets] {braces}")


def test_cards_question_followups_and_drills():
    bank = load_bank([GOOD_DIR])
    cards = bank.cards()
    question = bank.questions[0]
    expected = (
        [("question", "main")]
        + [("followup", f.id) for f in question.followups]
        + [("drill", d.id) for d in question.drills]
    )
    assert [(c.kind, c.item_id) for c in cards] == expected
    assert cards[0].card_id == "mini-adamw/question/main"
    assert cards[-1].card_id == f"mini-adamw/drill/{question.drills[-1].id}"
    assert [c.order for c in cards] == list(range(len(cards)))
    assert {c.topic for c in cards} == {"llm-training"} and bank.topics() == ["llm-training"]
    assert bank.question("mini-adamw") is question and bank.question("nope") is None


def test_one_bad_file_never_stops_the_good_ones(write_question):
    good = write_question("llm-training/mini-adamw.yaml", GOOD_FILE.read_text(encoding="utf-8"))
    write_question("llm-training/broken.yaml", "id: broken\ntitle: [unclosed\n")
    write_question("llm-training/binary.yaml", b"\xff\xfe\x00garbage")
    bank = load_bank([good.parent.parent])
    assert [q.id for q in bank.questions] == ["mini-adamw"]
    assert {p.file.name for p in bank.problems} == {"broken.yaml", "binary.yaml"}


def test_problem_string_form(tmp_path):
    problem = Problem(tmp_path / "q.yaml", 3, 7, "drills[0].ask", "unknown ask 'x'")
    assert str(problem) == f"{tmp_path / 'q.yaml'}:3:7: drills[0].ask: unknown ask 'x'"


def test_missing_content_folder_is_a_problem(tmp_path):
    bank = load_bank([tmp_path / "nope"])
    assert bank == Bank((), bank.problems) and len(bank.problems) == 1


def test_hidden_and_non_yaml_files_are_ignored(write_question):
    good = write_question("t/mini-adamw.yaml", GOOD_FILE.read_text(encoding="utf-8"))
    write_question("t/.draft.yaml", "junk: [")
    write_question(".git/x.yaml", "junk: [")
    write_question("t/notes.md", "# notes")
    bank = load_bank([good.parent.parent])
    assert len(bank.questions) == 1 and bank.problems == ()


def test_two_problems_in_one_file_are_both_reported(write_question):
    text = GOOD_FILE.read_text(encoding="utf-8").replace("difficulty: 2", "difficulty: 0").replace("lang: zh", "lang: fr")
    path = write_question("t/mini-adamw.yaml", text)
    question, problems = load_question_file(path)
    assert question is None
    assert [p.path for p in problems] == ["difficulty", "lang"]


def test_misspelt_required_key_is_one_problem_not_two(write_question):
    path = write_question("t/q.yaml", "id: q\ntitle: t\ntopic: t\nanswr: a\n")
    _, problems = load_question_file(path)
    assert [(p.line, p.col, p.message) for p in problems] == [(4, 1, "unknown key 'answr'; did you mean 'answer'?")]


def test_unquoted_colon_in_a_list_item_gets_a_hint(write_question):
    path = write_question("t/q.yaml", "id: q\ntitle: t\ntopic: t\nanswer: a\nreading:\n  - Smith et al., 《ZeRO: Memory》\n")
    _, problems = load_question_file(path)
    assert len(problems) == 1 and problems[0].line == 6 and "quotes" in problems[0].message


def test_json_schema_is_valid_json_and_forbids_unknown_keys():
    schema = json.loads(json.dumps(question_json_schema()))
    assert schema["additionalProperties"] is False
    assert {"id", "title", "topic", "answer", "drills", "followups", "errata"} <= set(schema["properties"])
    assert "source_path" not in schema["properties"]
    assert "answer" in schema["required"]
    drill = schema["$defs"]["Drill"]
    assert drill["additionalProperties"] is False and {"prompt", "setup", "ask", "unit"} <= set(drill["required"])


def test_merge_keys_are_applied(write_question):
    text = (
        "id: merged\ntitle: t\ntopic: t\nanswer: '{{b}}'\n"
        "drills:\n"
        "  - &base {id: a, prompt: p, setup: {model: 7B, method: inference}, ask: weights, unit: GB}\n"
        "  - <<: *base\n    id: b\n"
    )
    path = write_question("t/merged.yaml", text)
    question, problems = load_question_file(path)
    assert problems == []
    assert [d.id for d in question.drills] == ["a", "b"] and question.drills[1].ask == "weights"


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_YAMLISH = st.text(alphabet="ab:- \n\t[]{}!&*'\"#|>%@`,?\\xé中", max_size=120)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(_YAMLISH.map(str.encode), st.binary(max_size=120)))
def test_no_file_content_makes_loading_raise(tmp_path, data):
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(b"id: fuzz\ntitle: t\ntopic: t\nanswer: a\n" + data)
    question, problems = load_question_file(path)
    assert (question is None) == bool(problems)
    for problem in problems:
        assert problem.line >= 1 and problem.col >= 1 and "\n" not in problem.message
