"""content/render.py, pinned by hand-written literals: every field of a rendered question as the reader
sees it, in English and in Chinese (references filled in, CJK breaks joined, a number written with its
unit only in Chinese), a drill on its base setup, and what a broken field or drill falls back to.
Written for the mutation run of render.py (benchmarks/mutation/render.survivors.txt); each test names
the mutants it kills.

Values by hand: mixed-precision AdamW keeps 2 + 2 + 4 + 8 = 16 bytes per parameter, so a 7B model's
model states are 16 x 7e9 = 112.00 GB, of which the optimizer states are 8 x 7e9 = 56.00 GB; 8-bit AdamW
keeps 2 + 2 + 4 + 2 = 10 bytes (70 GB) plus one fp32 scale per 256-value block of each of its two
states (2 x 4 x 7e9 / 256 = 0.21875 GB): 70.22 GB."""

from __future__ import annotations

import pytest

from quizapp.content import load_bank
from quizapp.content.localize import localize
from quizapp.content.render import (
    RenderedDrill,
    RenderedErratum,
    RenderedFollowup,
    RenderedMistake,
    RenderedQuestion,
    render_prose,
    render_question,
    typeset,
)


# A question written in both languages (plain strings: `points` and `tags`), whose `resume` is written
# in Chinese only: shown in English it falls back to the Chinese text.
BILINGUAL = """\
id: bi-states
title:
  en: How big are the model states of a 7 B model?
  zh: 7 B 模型的模型状态有多大？
topic: llm-training
points: [模型状态 16 bytes, optimizer]
tags: [adamw, memory]
difficulty: 4
lang: en
intent:
  en: Where the 16 bytes per parameter come from.
  zh: 考察每参数 16 bytes 的由来。
answer:
  en: "Model states: {{states}}, optimizer states {{states.optimizer_states}}."
  zh: "模型状态共 {{states}}，\\n其中优化器状态 {{states.optimizer_states}}。"
template:
  en: 2 + 2 + 4 + 8 = 16 bytes.
  zh: 2 + 2 + 4 + 8 = 16 bytes。
followups:
  - id: eight-bit
    q: {en: And with 8-bit AdamW?, zh: 换成 8-bit AdamW 呢？}
    a: {en: "About {{states-vary}}.", zh: "约 {{states-vary}}。"}
  - id: pure-bf16
    q: {en: And pure bf16?, zh: 纯 bf16 呢？}
    a: {en: 8 bytes per parameter., zh: 每参数 8 bytes。}
mistakes:
  - id: forget-master
    wrong: {en: Only 2 + 2 + 8 bytes, zh: 只算 2+2+8 字节}
    right: {en: Add 4 bytes of fp32 master weights, zh: 还要 4 字节 fp32 主权重}
    why: {en: The update runs in fp32, zh: 混合精度更新在 fp32 上做}
resume:
  zh: 我在项目里按 {{states}} 估算过。
reading:
  - {en: "ZeRO paper, section 3", zh: "ZeRO 论文\\n第 3 节"}
errata:
  - claim: {en: A blog says 14 GB, zh: 某博客说 14 GB}
    correct: {en: "{{states}}", zh: "应为 {{states}}"}
    why: {en: It counts the bf16 weights only, zh: 它只算了 bf16 权重}
drills:
  - id: states
    prompt:
      en: "Model states of {model} at 16 bytes per parameter, in GB?"
      zh: "{model} 参数按 16 bytes 每参数计，模型状态多少 GB？"
    setup: {model: 7B, method: full, precision: bf16-mixed, optimizer: adamw}
    ask: model_states
    unit: GB
    tolerance: 5%
  - id: states-vary
    prompt: {en: "Model states of {model} with {optimizer}, in GB?", zh: "{model} 用 {optimizer}，模型状态多少 GB？"}
    setup: {method: full, precision: bf16-mixed}
    vary: {optimizer: [adamw-8bit, adamw], model: [7B, 13B]}
    ask: model_states
    unit: GB
"""


@pytest.fixture(scope="module")
def bilingual(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bank") / "llm-training"
    folder.mkdir()
    (folder / "bi-states.yaml").write_text(BILINGUAL, encoding="utf-8")
    bank = load_bank([folder.parent])
    assert bank.problems == ()
    return bank.questions[0]


def _with_drill(question, drill_id, **update):
    """`question` with one drill changed, as a file that failed validation would give it (no checks)."""
    drills = [d.model_copy(update=update) if d.id == drill_id else d for d in question.drills]
    return question.model_copy(update={"drills": drills})


def test_typeset_of_no_text_is_empty():
    # kills x_typeset__mutmut_4 (None given back as None) and 5 (nothing shown as "XXXX")
    assert typeset(None) == ""
    assert typeset("") == ""
    assert typeset(None, "en") == ""
    assert typeset("", "en") == ""


def test_a_prose_field_is_typeset_in_its_question_s_language(good, bilingual):
    # kills x_render_prose__mutmut_2 (no language: Chinese keeps "112.00 GB" apart) and 4 (the default
    # zh: English text glued to "112.00GB")
    assert good.lang == "zh"
    assert render_prose(good, "共 {{states}}，\n即 16 bytes 每参数") == "共 112.00GB，即 16bytes 每参数"
    english = localize(bilingual, "en")
    assert english.lang == "en"
    assert render_prose(english, "In all {{states}}, that is 16 bytes each") == "In all 112.00 GB, that is 16 bytes each"


def test_a_field_that_cannot_be_rendered_is_shown_as_written(good):
    # kills x_render_prose__mutmut_9: a reference to a drill whose setup cannot even be built (an empty
    # `vary` list, which only a file that failed validation has) makes rendering raise; the field is then
    # shown exactly as written, not blanked
    broken = _with_drill(good, "states-vary", vary={"model": []})
    assert render_prose(broken, "约 {{states-vary}}。") == "约 {{states-vary}}。"
    assert render_prose(broken, "共 {{states}}") == "共 112.00GB"  # the other drills still render


class _NoLanguage:
    """Not a loaded question: its language cannot be read (render_prose promises never to raise)."""

    drills = ()

    @property
    def lang(self):
        raise AttributeError("lang")


def test_an_empty_field_stays_empty_even_when_rendering_fails():
    # kills x_render_prose__mutmut_10 (the fallback for no text shown as "XXXX")
    assert render_prose(_NoLanguage(), "") == ""
    assert render_prose(_NoLanguage(), None) == ""
    assert render_prose(_NoLanguage(), "as written") == "as written"


def test_a_bilingual_question_rendered_in_english(bilingual):
    # kills x_render_question__mutmut_4 (every prose field blank), 7, 9, 10, 11, 13 (id, topic, lang,
    # difficulty, tags lost), 23 and 40 (the fallback lost: `resume` is shown from the Chinese), 41, 43,
    # 45, 46, 47 (title, points, intent, answer, template blank), 55, 56 (a follow-up's q, a), 66, 67, 68
    # (a mistake's wrong, right, why), 69, 71 (resume, reading), 79, 80, 81 (an erratum's claim, correct,
    # why); and x__drill__mutmut_1, 30 (the prompt blank), 8..13 (the expected value lost), 16, 18..22
    # (a drill's id, ask, unit, tolerance, expected, varies lost), 32 (the language shown as the prompt)
    # and 33 (English prompt typeset as Chinese: "16bytes")
    assert render_question(bilingual) == RenderedQuestion(  # as loaded: shown in its own `lang`, en
        id="bi-states",
        title="How big are the model states of a 7 B model?",
        topic="llm-training",
        lang="en",
        difficulty=4,
        points=("模型状态 16 bytes", "optimizer"),
        tags=("adamw", "memory"),
        intent="Where the 16 bytes per parameter come from.",
        answer="Model states: 112.00 GB, optimizer states 56.00 GB.",
        template="2 + 2 + 4 + 8 = 16 bytes.",
        followups=(RenderedFollowup("eight-bit", "And with 8-bit AdamW?", "About 70.22 GB."),
                   RenderedFollowup("pure-bf16", "And pure bf16?", "8 bytes per parameter.")),
        mistakes=(RenderedMistake("forget-master", "Only 2 + 2 + 8 bytes", "Add 4 bytes of fp32 master weights",
                                  "The update runs in fp32"),),
        resume="我在项目里按 112.00 GB 估算过。",  # Chinese text in an English view: spaces kept
        reading=("ZeRO paper, section 3",),
        errata=(RenderedErratum("A blog says 14 GB", "112.00 GB", "It counts the bf16 weights only"),),
        drills=(RenderedDrill("states", "Model states of 7B at 16 bytes per parameter, in GB?", "model_states", "GB",
                              "5%", "112.00 GB", ()),
                RenderedDrill("states-vary", "Model states of 7B with adamw-8bit, in GB?", "model_states", "GB",
                              "10%", "70.22 GB", ("model", "optimizer"))),
        fallback=("resume",),
    )


def test_a_bilingual_question_rendered_in_chinese(bilingual):
    # kills the same x_render_question mutants in Chinese (4, 7, 9, 10, 11, 13, 23, 41, 43, 45, 46, 47,
    # 55, 56, 66..69, 71, 79..81), and x__drill__mutmut_31 (no language: "16 bytes" kept apart in a
    # Chinese prompt); a line break between Chinese characters is joined, a number meets its unit
    assert render_question(localize(bilingual, "zh")) == RenderedQuestion(
        id="bi-states",
        title="7B 模型的模型状态有多大？",
        topic="llm-training",
        lang="zh",
        difficulty=4,
        points=("模型状态 16bytes", "optimizer"),
        tags=("adamw", "memory"),
        intent="考察每参数 16bytes 的由来。",
        answer="模型状态共 112.00GB，其中优化器状态 56.00GB。",
        template="2 + 2 + 4 + 8 = 16bytes。",
        followups=(RenderedFollowup("eight-bit", "换成 8-bit AdamW 呢？", "约 70.22GB。"),
                   RenderedFollowup("pure-bf16", "纯 bf16 呢？", "每参数 8bytes。")),
        mistakes=(RenderedMistake("forget-master", "只算 2+2+8 字节", "还要 4 字节 fp32 主权重", "混合精度更新在 fp32 上做"),),
        resume="我在项目里按 112.00GB 估算过。",
        reading=("ZeRO 论文第 3 节",),
        errata=(RenderedErratum("某博客说 14GB", "应为 112.00GB", "它只算了 bf16 权重"),),
        drills=(RenderedDrill("states", "7B 参数按 16bytes 每参数计，模型状态多少 GB？", "model_states", "GB",
                              "5%", "112.00 GB", ()),
                RenderedDrill("states-vary", "7B 用 adamw-8bit，模型状态多少 GB？", "model_states", "GB",
                              "10%", "70.22 GB", ("model", "optimizer"))),
        fallback=(),
    )


def test_a_single_language_chinese_question_renders_every_field(good):
    # kills x_render_question__mutmut_4, 41, 45, 46, 47, 55, 56, 66, 67, 68 on a plain-string file, and
    # x__drill__mutmut_8..13 (expected), 16, 18..22 (the drill's fields)
    shown = render_question(good)
    assert shown.title == "7B 模型全量训练的模型状态有多大？ [brackets] {braces}"
    assert shown.intent == "考察 16 bytes/param 的由来。\n"  # "bytes/param" is no unit: kept apart
    assert shown.answer == "模型状态共 112.00GB，其中优化器状态 56.00GB，参数量 7.00B params。\n"
    assert shown.template == "2+2+4+8 = 16 bytes/param。"
    assert shown.followups == (RenderedFollowup("eight-bit", "换成 8-bit AdamW 呢？", "约 70.22GB。"),
                               RenderedFollowup("pure-bf16", "纯 bf16 呢？", "每参数 8 字节。"))
    assert shown.mistakes == (
        RenderedMistake("forget-master", "只算 2+2+8", "还要 4 字节 fp32 主权重", "混合精度更新在 fp32 上做"),
        RenderedMistake("zero-single", "单卡 ZeRO-3 省显存", "单卡任何 ZeRO stage 都不省", "无可切分"),
    )
    assert (shown.resume, shown.reading, shown.errata, shown.fallback) == ("", (), (), ())
    assert shown.drills == (
        RenderedDrill("states", "7B 参数，bf16 混合精度 + AdamW，模型状态多少 GB？", "model_states", "GB", "10%",
                      "112.00 GB", ()),
        RenderedDrill("states-8bit", "7B 参数用 8-bit AdamW，模型状态多少 GB？", "model_states", "GB", "10%",
                      "70.22 GB", ()),
        RenderedDrill("states-vary", "7B 参数，bf16 混合精度 + AdamW，模型状态多少 GB？", "model_states", "GB", "5%",
                      "112.00 GB", ("model",)),  # vary's first choice, 7B
        RenderedDrill("params-count", "7B 是多少个参数？", "params", "B", "10%", "7.00B params", ()),
        RenderedDrill("bytes-per-param", "混合精度 AdamW 每个参数多少字节？", "bytes_per_param", "x", "0.5 x", "16", ()),
    )


def test_a_drill_that_cannot_be_filled_or_computed_is_shown_as_written_without_a_value(good):
    # kills x__drill__mutmut_7 (a prompt that cannot be filled shown blank) and 14, 15 (a value that
    # cannot be computed shown as None or "XXXX" instead of nothing)
    unknown_field = _with_drill(good, "states", prompt="{model} 参数，{batch} 条序列，\n模型状态多少 GB？")
    assert render_question(unknown_field).drill("states") == RenderedDrill(
        "states", "{model} 参数，{batch} 条序列，模型状态多少 GB？", "model_states", "GB", "10%", "112.00 GB", ())
    no_choices = _with_drill(good, "states-vary", vary={"model": []})
    assert render_question(no_choices).drill("states-vary") == RenderedDrill(
        "states-vary", "{model} 参数，bf16 混合精度 + AdamW，模型状态多少 GB？", "model_states", "GB", "5%", "", ("model",))
    unknown_model = _with_drill(good, "params-count", setup={"model": "nope"})
    assert render_question(unknown_model).drill("params-count") == RenderedDrill(
        "params-count", "nope 是多少个参数？", "params", "B", "10%", "", ())


def test_a_rendered_follow_up_and_drill_are_found_by_id(good):
    # kills xǁRenderedQuestionǁfollowup__mutmut_1, 2 (no search: TypeError), 3 (a missing id raises
    # StopIteration instead of None), 4 (the first other follow-up returned), and
    # xǁRenderedQuestionǁdrill__mutmut_1..4 likewise
    shown = render_question(good)
    assert shown.followup("pure-bf16") == RenderedFollowup("pure-bf16", "纯 bf16 呢？", "每参数 8 字节。")
    assert shown.followup("eight-bit") == RenderedFollowup("eight-bit", "换成 8-bit AdamW 呢？", "约 70.22GB。")
    assert shown.followup("no-such-followup") is None
    assert shown.drill("params-count") == RenderedDrill("params-count", "7B 是多少个参数？", "params", "B", "10%",
                                                        "7.00B params", ())
    assert shown.drill("states").expected == "112.00 GB"
    assert shown.drill("no-such-drill") is None
