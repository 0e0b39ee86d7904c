"""The validator's key-point and convention checks on broken fixtures (each reported at its line), and
none of them on the bundled bank."""

from __future__ import annotations

from quizapp.content.loader import load_question_with_index
from tests.bilingual.conftest import write_question
from tests.bilingual.fixture_files import KV_POINTS


def _errors(tmp_path, text, complete=True):
    question, problems, _ = load_question_with_index(write_question(tmp_path, text), complete=complete)
    return question, [p for p in problems if p.severity == "error"], [p for p in problems if p.severity == "warning"]


def test_an_alias_that_does_not_compile_is_reported_at_the_alias(tmp_path):
    text = KV_POINTS.replace("      en: ['linear(ly)?']", "      en: ['linear(ly']")
    question, errors, _ = _errors(tmp_path, text)
    assert question is None
    assert [p.path for p in errors] == ["key_points[1].match.en[0]"]
    assert "not a valid regular expression" in errors[0].message
    assert errors[0].line == text.splitlines().index("      en: ['linear(ly']") + 1


def test_too_few_key_points_in_the_bundled_bank(tmp_path):
    text = KV_POINTS.replace("""      - id: same-flops
        text: {en: The attention FLOPs stay the same, zh: 注意力计算量不变}
        match: {en: ['flops stay the same', 'same flops'], zh: ['计算量不变']}
""", "")
    _, errors, _ = _errors(tmp_path, text)
    assert [p.path for p in errors] == ["followups[0].key_points"]
    assert "1 key points; a follow-up of the bundled bank has 2-4" in errors[0].message
    question, errors, _ = _errors(tmp_path, text, complete=False)  # a user's question: any number
    assert question is not None and errors == []


def test_a_standard_answer_that_misses_its_points_is_reported_in_its_language(tmp_path):
    text = KV_POINTS.replace("    It counts the KV heads, not the query heads.\n", "").replace(
        "    The KV cache is 2·L·a_kv·d·s·b·p bytes: it grows linearly", "    The KV cache grows linearly")
    _, errors, _ = _errors(tmp_path, text)
    assert [p.path for p in errors] == ["answer.en"]
    assert "covers 2 of its 4 key points (50%" in errors[0].message
    assert "formula (must)" in errors[0].message and "kv-heads" in errors[0].message


def test_a_point_no_alias_reaches_is_a_warning_when_the_rest_is_covered(tmp_path):
    extra = """  - id: bytes-per-token
    text: {en: Per token it is 2·L·a_kv·d·p bytes, zh: 每个 token 2·L·a_kv·d·p 字节}
    match: {en: ['per token'], zh: ['每个 ?token']}
"""
    text = KV_POINTS.replace("followups:\n", extra + "followups:\n", 1)
    question, errors, warnings = _errors(tmp_path, text)
    assert question is not None and errors == []  # 4 of 5 (80 %) in each language
    assert {(w.path, "bytes-per-token" in w.message) for w in warnings} == {("answer.en", True), ("answer.zh", True)}


def test_a_number_point_must_name_a_drill(tmp_path):
    text = KV_POINTS.replace("    number: {drill: kv-batch8}", "    number: {drill: kv-batch9}")
    _, errors, _ = _errors(tmp_path, text)
    assert [p.path for p in errors] == ["key_points[3].number.drill"]
    assert "did you mean 'kv-batch8'" in errors[0].message


TRAINING_DRILL = """  - id: step
    prompt:
      en: "{model}, batch {batch} x {seq} tokens on one {gpu} at MFU 0.4: how many seconds per step?"
      zh: "{model}，batch {batch} x {seq} token，单张 {gpu}，MFU 0.4：每步多少秒？"
    setup: {model: llama-2-7b, method: full, precision: bf16-mixed, optimizer: adamw, batch: 4, seq: 8192, gpu: h100-80g}
    ask: step_time
    unit: s
"""


def test_a_prompt_that_leaves_a_convention_open_is_reported_in_each_language(tmp_path):
    _, errors, _ = _errors(tmp_path, KV_POINTS + TRAINING_DRILL)
    open_ones = sorted((p.path, p.message.split(" convention")[0].split()[-1]) for p in errors)
    # at 8K tokens the causal mask and 6N both move a 7B step beyond 10 %; the prompt states neither
    assert open_ones == [("drills[1].prompt.en", "6n"), ("drills[1].prompt.en", "causal"),
                         ("drills[1].prompt.zh", "6n"), ("drills[1].prompt.zh", "causal")]
    stated = TRAINING_DRILL.replace("at MFU 0.4:", "at MFU 0.4, 6N + attention, no causal halving:").replace(
        "MFU 0.4：", "MFU 0.4，6N + 注意力项，不做因果减半：")
    question, errors, _ = _errors(tmp_path, KV_POINTS + stated)
    assert question is not None and errors == []
    accepted = TRAINING_DRILL + "    accept: [causal, 6n]\n"
    question, errors, _ = _errors(tmp_path, KV_POINTS + accepted)
    assert question is not None and errors == []


def test_a_convention_inside_the_band_but_far_from_the_answer_is_reported(tmp_path):
    # at 2K tokens 6N moves the step about 7 %: inside 10 %, more than half of it
    drill = TRAINING_DRILL.replace("seq: 8192", "seq: 2048").replace(
        "at MFU 0.4:", "at MFU 0.4, full attention, no causal halving:").replace("MFU 0.4：", "MFU 0.4，不做因果减半：")
    _, errors, _ = _errors(tmp_path, KV_POINTS + drill)
    assert [p.path for p in errors] == ["drills[1]"]
    assert "under the 6n convention" in errors[0].message and "more than half of it away" in errors[0].message


def test_an_accepted_convention_that_changes_nothing_and_a_mistake_it_would_swallow(tmp_path):
    no_op = KV_POINTS.replace("    unit: GB\n", "    unit: GB\n    accept: [causal]\n")
    _, errors, _ = _errors(tmp_path, no_op)
    assert [p.path for p in errors] == ["drills[0].accept[0]"] and "changes nothing" in errors[0].message
    swallowed = TRAINING_DRILL + """    accept: [6n]
    extra_mistakes:
      - label: {en: Left out the attention term, zh: 漏了注意力项}
        setup: {attention_flops: none}
"""
    _, errors, _ = _errors(tmp_path, KV_POINTS + swallowed)
    assert any(p.path == "drills[1].extra_mistakes[0].setup" and "accepted 6n convention" in p.message for p in errors)


def test_the_bundled_bank_has_none_of_these_problems(bundled):
    assert bundled.problems == () and bundled.warnings == ()
