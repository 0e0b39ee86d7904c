"""Parameter counts of the presets (memory-model.md section 2) and the bare-count parser."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, strategies as st

from quizapp.memory import PRESETS, parse_count
from quizapp.memory.models import ModelSpec, llama_ffn

# The spec's list, copied from memory-model.md section 2 (published parameter counts).
SPEC_COUNTS = {
    "gpt2": 124_439_808,
    "gpt2-xl": 1_557_611_200,
    "llama-2-7b": 6_738_415_616,
    "llama-2-13b": 13_015_864_320,
    "llama-2-70b": 68_976_648_192,
    "llama-3-8b": 8_030_261_248,
    "llama-3-70b": 70_553_706_496,
    "mistral-7b": 7_241_732_096,
    "qwen2.5-7b": 7_615_616_512,
    "llama-3.2-1b": 1_235_814_400,
    "llama-3.2-3b": 3_212_749_824,
    "qwen2.5-0.5b": 494_032_768,
    "qwen2.5-1.5b": 1_543_714_304,
    "qwen2.5-14b": 14_770_033_664,
    "llama-3.1-405b": 405_853_388_800,
    "gpt3-175b": 174_604_259_328,
}


@pytest.mark.parametrize("name", sorted(SPEC_COUNTS))
def test_every_preset_count_is_exact(name):
    assert PRESETS[name].params == SPEC_COUNTS[name]


def test_every_spec_model_is_a_preset():
    assert set(SPEC_COUNTS) <= set(PRESETS)


@pytest.mark.parametrize("name", sorted(SPEC_COUNTS))
def test_tensor_list_adds_up_to_the_count(name):
    model = PRESETS[name]
    assert sum(rows * (cols or 1) * n for rows, cols, n in model.tensors()) == model.params


def test_gpt2_count_by_hand():
    # GPT-2 small: wte 50257·768 + wpe 1024·768 + 12 blocks of (4h² + 4h + 8h² + 4h + h + 4h... ) + ln_f.
    h, f, V, P, L = 768, 3072, 50257, 1024, 12
    block = (3 * h * h + 3 * h) + (h * h + h) + (h * f + f) + (f * h + h) + 2 * (2 * h)
    assert PRESETS["gpt2"].params == V * h + P * h + L * block + 2 * h


def test_presets_are_read_only():
    with pytest.raises(TypeError):
        PRESETS["x"] = PRESETS["gpt2"]  # type: ignore[index]


def test_llama_ffn_rule_gives_llama_2_7b_width():
    assert llama_ffn(4096) == 11008


@pytest.mark.parametrize(
    "text, count",
    [
        ("7B", 7_000_000_000),
        ("7e9", 7_000_000_000),
        ("70亿", 7_000_000_000),
        ("6.7 billion", 6_700_000_000),
        ("６.７B", 6_700_000_000),
        ("7,000,000,000", 7_000_000_000),
        ("1.5T", 1_500_000_000_000),
        ("350M", 350_000_000),
        ("1.5万", 15_000),
        ("7B params", 7_000_000_000),
        (7e9, 7_000_000_000),
    ],
)
def test_parse_count(text, count):
    assert parse_count(text) == count


@pytest.mark.parametrize("text", ["", "abc", "7 parsecs", "-7B", "1e400", "0", "7BB", True])
def test_parse_count_rejects_junk(text):
    with pytest.raises(ValueError):
        parse_count(text)


@given(st.integers(1, 999_999), st.sampled_from([("", 1), ("K", 10**3), ("M", 10**6), ("B", 10**9), ("T", 10**12)]))
def test_parse_count_reads_every_suffix(n, suffix):
    # a generated count always parses (the old property fed random text, which almost always failed)
    letter, scale = suffix
    assume(n * scale <= 10**16)  # the documented range: 1 to 10^16 parameters
    assert parse_count(f"{n}{letter}") == n * scale
    assert parse_count(f"{n}{letter.lower()}") == n * scale


@given(st.text(max_size=20))
def test_parse_count_raises_only_value_error(text):
    try:
        count = parse_count(text)
    except ValueError as refused:
        assert str(refused)  # the refusal says why
    else:
        assert isinstance(count, int) and count >= 1


def test_heads_must_divide_hidden():
    with pytest.raises(ValueError):
        ModelSpec("bad", 2, 100, 3, 3, 400, 1000)
