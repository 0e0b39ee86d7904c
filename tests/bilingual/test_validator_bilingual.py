"""The validator's bilingual checks on fixtures: a field in one language only (an error in the bundled
bank, fine in a user's folder), references and placeholders that differ between the languages."""

from __future__ import annotations

from quizapp.content.loader import load_question_with_index
from tests.bilingual.conftest import write_question
from tests.bilingual.fixture_files import KV_POINTS


def _problems(path, complete):
    question, problems, _ = load_question_with_index(path, complete=complete)
    return question, [p for p in problems if p.severity == "error"], [p for p in problems if p.severity == "warning"]


def _line_of(text: str, needle: str) -> int:
    return text.splitlines().index(needle) + 1


def test_the_fixture_is_clean_under_the_bundled_rules(tmp_path):
    question, errors, warnings = _problems(write_question(tmp_path, KV_POINTS), complete=True)
    assert question is not None and errors == [] and warnings == []


def test_a_field_in_one_language_is_an_error_in_the_bundled_bank_at_its_line(tmp_path):
    text = KV_POINTS.replace("  en: How big is the KV cache of llama-2-7b, and what does it scale with?\n", "")
    path = write_question(tmp_path, text)
    question, errors, _ = _problems(path, complete=True)
    assert question is None
    assert [(p.line, p.path) for p in errors] == [(_line_of(text, "  zh: llama-2-7b 的 KV cache 有多大，和什么成正比？"), "title")]
    assert "only Chinese given" in errors[0].message and "English" in errors[0].message


def test_a_question_in_one_language_loads_from_a_users_folder(tmp_path):
    text = """\
id: my-own
title: 我自己的题
topic: inference
answer: |
  只有中文。
"""
    path = write_question(tmp_path, text, "my-own")
    question, errors, warnings = _problems(path, complete=False)
    assert question is not None and errors == []
    assert [w.path for w in warnings] == ["key_points"]  # self-rated without a checklist: said, not refused
    from quizapp.content.localize import localize

    shown = localize(question, "en")
    assert shown.title == "我自己的题" and shown.lang == "zh" and "title" in shown.fallback


def test_references_that_differ_between_the_languages_are_reported_at_the_field(tmp_path):
    text = KV_POINTS.replace("    For llama-2-7b at 4096 tokens and batch 8 in bf16 that is {{kv-batch8}}.\n",
                             "    For llama-2-7b at 4096 tokens and batch 8 in bf16 that is large.\n")
    question, errors, _ = _problems(write_question(tmp_path, text), complete=False)
    assert question is None
    answer_en = _line_of(text, "answer:") + 1  # the English block, where the reference is missing
    assert [(p.path, p.line) for p in errors] == [("answer.en", answer_en)]
    assert "{{kv-batch8}} is in the Chinese but not in the English" in errors[0].message


def test_placeholders_that_differ_between_the_languages_are_reported(tmp_path):
    text = KV_POINTS.replace('serves {batch} sequences of {seq} tokens', 'serves {batch} sequences')
    question, errors, _ = _problems(write_question(tmp_path, text), complete=False)
    assert question is None
    assert [p.path for p in errors] == ["drills[0].prompt.en"]
    assert "placeholder {seq} is in the Chinese but not in the English" in errors[0].message


def test_an_empty_language_mapping_is_refused_with_one_line(tmp_path):
    text = KV_POINTS.replace("intent:\n  en: Whether you can size the KV cache from the shape.\n  zh: 能否从模型形状算出 KV cache。\n",
                             "intent: {}\n")
    question, errors, _ = _problems(write_question(tmp_path, text), complete=False)
    assert question is None and len(errors) == 1 and errors[0].path.startswith("intent")
