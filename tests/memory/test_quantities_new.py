"""Answers in the units of issue 11 (FLOPs, tokens/s, ms/us, GB/s, tokens and GPUs, fractions) parse."""

from __future__ import annotations

import pytest

from quizapp.memory import QuantityError, format_quantity, parse_quantity
from quizapp.memory.quantities import sensible_unit


@pytest.mark.parametrize(
    ("text", "unit", "value", "kind"),
    [
        ("46.9 GFLOPs", "GFLOPs", 46.9e9, "flops"),
        ("4.7e10 FLOPs", "GFLOPs", 4.7e10, "flops"),
        ("3.2 PFLOP", "PFLOPs", 3.2e15, "flops"),
        ("5.9e23 FLOPs", "EFLOPs", 5.9e23, "flops"),
        ("46.9", "GFLOPs", 46.9e9, "flops"),  # a bare number is read in the drill's unit
        ("150 tokens/s", "tokens/s", 150, "rate"),
        ("150 tok/s", "tokens/s", 150, "rate"),
        ("1.5K tok/s", "tokens/s", 1500, "rate"),
        ("6.7 ms", "ms", 6.7e-3, "seconds"),
        ("6.7 ms", "s", 6.7e-3, "seconds"),
        ("120 us", "ms", 120e-6, "seconds"),
        ("120 µs", "ms", 120e-6, "seconds"),
        ("300 GB/s", "GB/s", 300e9, "bandwidth"),
        ("3.35 TB/s", "GB/s", 3.35e12, "bandwidth"),
        ("8 GPUs", "GPUs", 8, "count"),
        ("16", "GPUs", 16, "count"),
        ("8张卡", "GPUs", 8, "count"),
        ("1.4T tokens", "tokens", 1.4e12, "count"),
        ("2万亿", "tokens", 2e12, "count"),
        ("2万亿 tokens", "tokens", 2e12, "count"),
        ("140B tokens", "B", 140e9, "count"),
        ("37.5%", "%", 0.375, "ratio"),
        ("3/8", "%", 0.375, "ratio"),
        ("3 / 16", "%", 0.1875, "ratio"),
    ],
)
def test_new_units_parse(text, unit, value, kind):
    q = parse_quantity(text, unit)
    assert q.value == pytest.approx(value, rel=1e-12) and q.kind == kind


@pytest.mark.parametrize(
    ("text", "unit", "reason"),
    [
        ("300 Gb/s", "GB/s", "gigabits"),
        ("3/8", "GB", "fraction"),
        ("3/0", "%", "zero"),
        ("150 tokens/s", "GB", "rate"),
        ("46.9 GFLOPs", "s", "FLOPs"),
        ("300 GB/s", "GB", "bandwidth"),
    ],
)
def test_wrong_kinds_are_refused_with_a_reason(text, unit, reason):
    with pytest.raises(QuantityError, match=reason):
        parse_quantity(text, unit)


def test_format_new_units():
    assert format_quantity(46.9e9, "GFLOPs") == "46.90 GFLOPs"
    assert format_quantity(150, "tokens/s") == "150.00 tokens/s"
    assert format_quantity(300e9, "GB/s") == "300.00 GB/s"
    assert format_quantity(8, "GPUs") == "8 GPUs"
    assert format_quantity(1.4e12, "tokens") == "1,400,000,000,000 tokens"
    assert format_quantity(0.375, "%") == "37.50%"


def test_sensible_units_for_new_kinds():
    assert sensible_unit(5.88e23, "flops") == "EFLOPs"
    assert sensible_unit(4.7e10, "flops") == "GFLOPs"
    assert sensible_unit(150, "rate") == "tokens/s"
    assert sensible_unit(3e11, "bandwidth") == "GB/s"
    assert sensible_unit(6.7e-3, "seconds") == "ms"
    assert sensible_unit(1.2e-5, "seconds") == "us"
