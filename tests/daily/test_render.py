"""Every prose field of every bundled question goes through one renderer and comes out with no `{{`."""

from __future__ import annotations

import dataclasses

import pytest
import yaml

from quizapp.content.render import render_prose, render_question, typeset

# Fields of the question model that are not prose (ids, codes, the drills' calculator inputs).
NOT_PROSE = {"id", "topic", "lang", "tags", "difficulty"}


def _strings(value, path=()):
    """(path, text) for every string inside a model_dump()/asdict() value."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _strings(item, (*path, i))


def _at(value, path):
    for key in path:
        value = value[key]
    return value


def test_every_field_of_every_bundled_question_is_rendered_without_braces(bundled_bank):
    assert bundled_bank.questions
    walked = 0
    for question in bundled_bank.questions:
        raw = question.model_dump()
        rendered = dataclasses.asdict(render_question(question))
        for path, text in _strings(raw):
            if path[0] in NOT_PROSE or "key_points" in path or (path[0] == "drills" and path[2] != "prompt"):
                continue
            shown = _at(rendered, path)  # the renderer keeps the model's shape: a missing field fails here
            assert isinstance(shown, str)
            walked += 1
            assert "{{" not in shown, f"{question.id}: {'.'.join(map(str, path))}: {shown!r}"
            if "{{" in text:
                assert shown != text
        for path, shown in _strings(rendered):
            assert "{{" not in shown, f"{question.id}: {'.'.join(map(str, path))}"
    assert walked > 100


def test_the_seed_questions_raw_references_are_filled_in_mistakes_errata_and_followups(bundled_bank):
    with_refs = [(q, path) for q in bundled_bank.questions for path, text in _strings(q.model_dump())
                 if "{{" in text and path[0] in ("mistakes", "errata", "followups")]
    assert with_refs  # the bank does reference drills from these sections
    for question, path in with_refs:
        assert "{{" not in _at(dataclasses.asdict(render_question(question)), path)


def test_folded_yaml_lines_between_chinese_characters_join_without_a_space(bundled_bank):
    question = bundled_bank.questions[0]
    folded = yaml.safe_load("text: >\n  推理时的显存按字节计算，\n  从不把权重和激活混为一谈。\n  Then English\n  words stay apart.\n")["text"]
    assert "计算， 从不" in folded  # what YAML itself gives
    shown = render_prose(question, folded)
    assert "计算，从不把" in shown
    assert "Then English words stay apart." in shown
    literal = "推理时的显存按字节计算，\n从不把权重\n\n新的段落\n- 列表项\n"
    assert typeset(literal) == "推理时的显存按字节计算，从不把权重\n\n新的段落\n- 列表项\n"


@pytest.mark.parametrize("width", range(8, 41))
def test_a_number_and_its_unit_never_split_across_lines(width):
    from textual.content import Content  # what the Markdown widget wraps with

    text = typeset("模型状态为 112.00 GB，优化器状态为 84 GB，占比 75 %，解码 150 tokens/s，用时 3.5 s，共 6.7 B 参数。"
                   " The 7 B model needs 112 GB on 8 GPUs at 1,000 MB/s.")
    lines = [line.plain for line in Content(text).wrap(width)]
    for before, after in zip(lines, lines[1:]):
        tail, head = before.rstrip(), after.lstrip()
        ends_with_number = bool(tail) and tail[-1].isdigit()
        starts_with_unit = any(head.startswith(u) for u in ("GB", "MB", "%", "tokens", "s", "B", "GPUs"))
        assert not (ends_with_number and starts_with_unit), (width, lines)


def test_code_is_left_as_written():
    text = "Run `quizapp calc --batch 8 GB` or\n```\n112 GB\n计算，\n从\n```\n"
    assert typeset(text) == text


def test_a_break_next_to_emphasis_between_chinese_characters_is_joined_too():
    assert typeset("工程取舍 + 量化分析**\n类型") == "工程取舍 + 量化分析**类型"
    assert typeset("刁钻点在于\n**重点**在") == "刁钻点在于**重点**在"
    assert typeset("使用\nZeRO 训练") == "使用\nZeRO 训练"  # Chinese next to Latin: the soft break stays


def test_english_text_keeps_the_space_between_a_number_and_its_unit():
    assert typeset("Mixed AdamW keeps 16 bytes per parameter, 112.00 GB for 7B.", "en") == (
        "Mixed AdamW keeps 16 bytes per parameter, 112.00 GB for 7B.")
    assert typeset("混合精度 AdamW 每参数 16 bytes。", "zh") == "混合精度 AdamW 每参数 16bytes。"
