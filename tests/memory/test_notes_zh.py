"""Chinese worked-solution notes: Term.note_zh and Breakdown.notes_zh say what the English ones say."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from string import Formatter

import pytest

from quizapp.memory import Breakdown, Term, breakdown, setup_from_options
from quizapp.memory.breakdown import _TEXT

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
    dict(model=m, method="inference", weights_dtype=w, kv_dtype=kv, overhead="1 GiB")
    for m, w, kv in itertools.product(["llama-2-70b", "gpt2", "7B"], ["16-bit", "int8", "nf4"], ["16-bit", "fp8"])
]


def _breakdowns():
    for options in TRAINING + INFERENCE:
        try:
            setup = setup_from_options(options)
        except ValueError:
            continue  # combinations the calculator refuses (bare counts with LoRA, fp32 with qlora...)
        yield options, breakdown(setup)


def _numbers(text: str) -> Counter:
    return Counter(NUMBER.findall(text))


def test_every_template_has_the_same_placeholders_in_both_languages():
    def fields(template: str) -> set[str]:
        return {name for _, name, _, _ in Formatter().parse(template) if name}

    for key, (en, zh) in _TEXT.items():
        assert fields(en) == fields(zh), key
        assert CJK.search(zh) or zh == en == "{n} {name}", key  # only the optimizer's name stays as is


def test_chinese_notes_parallel_the_english_ones():
    seen = 0
    for options, b in _breakdowns():
        seen += 1
        assert len(b.notes_zh) == len(b.notes), options
        for en, zh in zip(b.notes, b.notes_zh):
            assert CJK.search(zh) and zh != en, (options, en)
            assert _numbers(zh) == _numbers(en), (options, en, zh)
        for term in b.terms + b.cpu_terms:
            assert term.note_zh and CJK.search(term.note_zh), (options, term.name)
            assert _numbers(term.note_zh) == _numbers(term.note), (options, term.note, term.note_zh)
    assert seen > 100


def test_english_notes_are_unchanged():
    b = breakdown(setup_from_options({"model": "llama-2-7b"}))
    assert b.notes[0] == "16 bytes/param: 2 weights + 2 grads + 4 master + 8 Adam (before ZeRO/offload)"
    assert b.notes_zh[0].startswith("每参数 16 字节")
    assert b.term("weights").note == "16-bit weights: 2 bytes/param"


def test_defaults_fall_back_to_english():
    t = Term("overhead", 1, "overhead", "1", "as given")
    assert t.note_zh == "as given"
    b = breakdown(setup_from_options({"model": "gpt2"}))
    rebuilt = Breakdown(b.setup, b.params, b.trainable_params, b.terms, b.total, b.model_states, b.cpu, b.notes)
    assert rebuilt.notes_zh == rebuilt.notes


@pytest.mark.parametrize("zero, gpus, fragment", [(3, 8, "N = 8"), (1, 1, "N = 1")])
def test_zero_notes_in_chinese(zero, gpus, fragment):
    b = breakdown(setup_from_options({"model": "llama-2-7b", "zero": zero, "gpus": gpus}))
    assert fragment in b.term("weights").note_zh and "ZeRO" in b.term("weights").note_zh
