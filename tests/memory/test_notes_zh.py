"""Chinese worked-solution notes: every note code memory gives says in Chinese what it says in English."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from string import Formatter

import pytest

from quizapp.memory import Breakdown, Term, breakdown, setup_from_options
from quizapp.words.calc import TEXT as _TEXT
from quizapp.words.calc import render
from quizapp.words.plural import Plural

CJK = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:\.\d+)?")

TRAINING = [
    dict(model=m, method=method, optimizer=opt, zero=z, gpus=n, offload=off, impl=impl, precision=prec)
    for m, method, opt, (z, n, off), impl, prec in itertools.product(
        ["llama-2-7b", "gpt2", "7B"],
        ["full", "lora", "qlora"],
        ["adamw", "sgd", "sgd-momentum", "adafactor", "adamw-8bit"],
        [(0, 1, "none"), (1, 1, "none"), (2, 8, "optimizer"), (3, 8, "optimizer+params")],
        ["ideal", "hf"],
        ["bf16-mixed", "fp32", "bf16"],
    )
]
INFERENCE = [
    dict(model=m, method="inference", weights=w, kv_dtype=kv, overhead="1 GiB", tp=t)
    for m, w, kv, t in itertools.product(
        ["llama-2-70b", "gpt2", "7B", "mixtral-8x7b", "deepseek-v3", "gemma-2-9b"],
        ["16-bit", "int8", "nf4", "fp8", "gptq-int4", "gguf-q4_0", "gguf-q8_0"], ["16-bit", "fp8"], [1, 4])
]
PARALLEL = [
    dict(model=m, method=method, tp=t, pp=pp, sp=sp, zero=z, gpus=n, ep=ep, microbatches=4, rollout_batch=rb)
    for m, method, (t, pp, sp), (z, n, ep), rb in itertools.product(
        ["llama-2-7b", "qwen3-30b-a3b", "deepseek-v3", "7B"],
        ["full", "ppo", "dpo", "grpo"],
        [(1, 1, False), (2, 2, True), (4, 1, False)],
        [(0, 8, 1), (3, 8, 8), (1, 8, 2)],
        [None, 16],
    )
    if not (ep > 1 and m not in ("qwen3-30b-a3b", "deepseek-v3")) and not (rb and method == "dpo")
]


def _notes(b, lang="en"):
    """The breakdown's convention lines in `lang` (memory gives codes; quizapp.words renders them)."""
    return tuple(render(code, lang) for code in b.codes)


def _breakdowns():
    for options in TRAINING + INFERENCE + PARALLEL:
        try:
            setup = setup_from_options(options)
        except ValueError:
            continue  # combinations the calculator refuses (bare counts with LoRA, fp32 with qlora...)
        yield options, breakdown(setup)


def _numbers(text: str) -> Counter:
    return Counter(NUMBER.findall(text))


def test_every_template_has_the_same_placeholders_in_both_languages():
    def fields(template) -> set[str]:
        forms = (template.one, template.other) if isinstance(template, Plural) else (template,)
        return {name for form in forms for _, name, _, _ in Formatter().parse(form) if name}

    for key, (en, zh) in _TEXT.items():
        assert fields(en) == fields(zh), key
        # a few stay as they are: the optimizer's name, a joiner, tensor names, the empty note
        assert CJK.search(zh) or zh == en, key


def test_chinese_notes_parallel_the_english_ones():
    seen = 0
    for options, b in _breakdowns():
        seen += 1
        assert len(_notes(b, "zh")) == len(_notes(b)), options
        for en, zh in zip(_notes(b), _notes(b, "zh")):
            assert CJK.search(zh) and zh != en, (options, en)
            assert _numbers(zh) == _numbers(en), (options, en, zh)
        for term in b.terms + b.cpu_terms:
            assert render(term.code, "zh") and CJK.search(render(term.code, "zh")), (options, term.name)
            assert _numbers(render(term.code, "zh")) == _numbers(render(term.code)), (options, render(term.code), render(term.code, "zh"))
    assert seen > 100


def test_english_notes_are_unchanged():
    b = breakdown(setup_from_options({"model": "llama-2-7b"}))
    assert _notes(b)[0] == "16 bytes/param: 2 weights + 2 grads + 4 master + 8 Adam (before ZeRO/offload)"
    assert _notes(b, "zh")[0].startswith("每参数 16 字节")
    assert render(b.term("weights").code) == "16-bit weights: 2 bytes/param"


def test_a_plain_string_note_is_shown_as_is_in_both_languages():
    t = Term("overhead", 1, "overhead", "1", "as given")
    assert render(t.code, "zh") == render(t.code, "en") == "as given"
    b = breakdown(setup_from_options({"model": "gpt2"}))
    rebuilt = Breakdown(b.setup, b.params, b.trainable_params, b.terms, b.total, b.model_states, b.cpu, ("plain",))
    assert _notes(rebuilt, "zh") == _notes(rebuilt) == ("plain",)


def test_memory_gives_codes_not_words():
    """issue 10: memory returns codes; the language is chosen where the words are shown."""
    b = breakdown(setup_from_options({"model": "llama-2-7b"}))
    for name in ("note", "note_zh", "note_in"):
        assert not hasattr(b.terms[0], name), name
    for name in ("notes", "notes_zh", "notes_in"):
        assert not hasattr(b, name), name
    assert all(not isinstance(c, str) or c == "" for c in b.codes)  # keys and arguments, not sentences


@pytest.mark.parametrize("zero, gpus, fragment", [(3, 8, "N = 8"), (1, 1, "N = 1")])
def test_zero_notes_in_chinese(zero, gpus, fragment):
    b = breakdown(setup_from_options({"model": "llama-2-7b", "zero": zero, "gpus": gpus}))
    assert fragment in render(b.term("weights").code, "zh") and "ZeRO" in render(b.term("weights").code, "zh")
