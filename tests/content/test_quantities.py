"""The quantity parser: every form the issue lists, the rejections with reasons, and no crash on any string."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizapp.memory.quantities import (
    UNITS,
    Quantity,
    QuantityError,
    format_bytes,
    format_quantity,
    parse_quantity,
)

GB, GIB, MB, TB = 10**9, 2**30, 10**6, 10**12  # spec section 1: GB = 10^9, GiB = 2^30


@pytest.mark.parametrize(
    ("text", "unit", "value", "kind"),
    [
        ("112", "GB", 112 * GB, "bytes"),  # unitless takes the expected unit
        ("112", "GiB", 112 * GIB, "bytes"),
        ("112GB", "GB", 112 * GB, "bytes"),
        ("112 GiB", "GB", 112 * GIB, "bytes"),
        ("1.12e11 bytes", "GB", 1.12e11, "bytes"),
        ("0.11 TB", "GB", 0.11 * TB, "bytes"),
        ("112G", "GB", 112 * GB, "bytes"),
        ("112,000 MB", "GB", 112_000 * MB, "bytes"),
        ("１１２ＧＢ", "GB", 112 * GB, "bytes"),  # full-width digits and letters
        ("約112GB", "GB", 112 * GB, "bytes"),  # traditional 約
        ("约112GB", "GB", 112 * GB, "bytes"),
        ("~112 GB", "GB", 112 * GB, "bytes"),
        ("≈ 112 GB", "GB", 112 * GB, "bytes"),
        ("大约 112 GB 左右", "GB", 112 * GB, "bytes"),
        ("112 gb", "GB", 112 * GB, "bytes"),
        ("1.12×10^11 bytes", "GB", 1.12e11, "bytes"),
        ("2 GiB", "MB", 2 * GIB, "bytes"),
        ("67亿", "B", 67e8, "count"),  # 亿 = 10^8
        ("6.7B", "B", 6.7e9, "count"),  # B = billions, a count
        ("6.7B", "params", 6.7e9, "count"),
        ("7 billion params", "B", 7e9, "count"),
        ("67亿参数", "B", 67e8, "count"),
        ("1.5万亿", "B", 1.5e12, "count"),  # 万亿 = 10^12
        ("70", "亿", 70e8, "count"),
        ("3万", "params", 3e4, "count"),
        ("6,738,415,616", "params", 6_738_415_616, "count"),
        ("7G", "B", 7e9, "count"),
        ("3.5 s", "s", 3.5, "seconds"),
        ("2 h", "s", 7200, "seconds"),
        ("2 hours", "h", 7200, "seconds"),
        ("90 min", "h", 5400, "seconds"),
        ("1.5天", "h", 1.5 * 86400, "seconds"),
        ("250 ms", "s", 0.25, "seconds"),
        ("30%", "%", 0.30, "ratio"),
        ("３０％", "%", 0.30, "ratio"),
        ("16", "x", 16, "number"),
        ("16 bytes/param", "x", 16, "number"),
        ("0", "GB", 0, "bytes"),
        ("+5 GB", "GB", 5 * GB, "bytes"),
    ],
)
def test_accepted_forms(text, unit, value, kind):
    quantity = parse_quantity(text, unit)
    assert quantity.kind == kind
    assert math.isclose(quantity.value, value, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("text", "unit", "reason"),
    [
        ("", "GB", "empty"),
        ("   ", "GB", "empty"),
        ("abc", "GB", "not a number"),
        ("1e400", "GB", "too large"),
        ("1e300 TB", "GB", "too large"),
        ("-5 GB", "GB", "negative"),
        ("−5 GB", "GB", "negative"),  # U+2212 minus sign
        ("12 parsecs", "GB", "unknown unit 'parsecs'"),
        ("100-120 GB", "GB", "range"),
        ("100~120GB", "GB", "range"),
        ("100 to 120 GB", "GB", "range"),
        ("100到120", "GB", "range"),
        ("3.5 s", "GB", "time"),  # a unit of the wrong kind
        ("112B", "GB", "billions"),  # B is a count, not bytes
        ("30%", "GB", "percentage"),
        ("112 GB", "s", "size in bytes"),
        ("112 GB 2", "GB", "more than one number"),
        ("112,5 GB", "GB", "more than one number"),
        ("nan", "GB", "not a number"),
        ("inf GB", "GB", "not a number"),
        ("7B GB", "GB", "more than one unit"),
        ("1" * 500, "GB", "too long"),
    ],
)
def test_rejected_with_reason(text, unit, reason):
    with pytest.raises(QuantityError) as caught:
        parse_quantity(text, unit)
    assert reason in str(caught.value)
    assert "\n" not in str(caught.value)


def test_unit_required_when_no_expected_unit():
    assert parse_quantity("0.5 GB", None) == Quantity(0.5 * GB, "bytes")
    with pytest.raises(QuantityError, match="needs a unit"):
        parse_quantity("0.5", None)


def test_unknown_expected_unit_names_the_choices():
    with pytest.raises(QuantityError, match="expected one of"):
        parse_quantity("1", "parsec")


def test_units_table_follows_the_spec():
    assert UNITS["GB"].scale == GB and UNITS["GiB"].scale == GIB
    assert UNITS["亿"].scale == 1e8 and UNITS["万"].scale == 1e4 and UNITS["B"].scale == 1e9
    # issue 11's contract adds FLOPs, throughput and bandwidth kinds beside the spec's original five
    assert {u.kind for u in UNITS.values()} == {
        "bytes", "count", "seconds", "ratio", "number", "flops", "rate", "bandwidth",
    }
    assert UNITS["GFLOPs"].scale == 1e9 and UNITS["EFLOPs"].scale == 1e18 and UNITS["FLOPs"].kind == "flops"
    assert UNITS["TB/s"].scale == 1e12 and UNITS["GB/s"].kind == "bandwidth"
    assert UNITS["tokens/s"].kind == "rate" and UNITS["ms"].scale == 1e-3 and UNITS["GPUs"].kind == "count"


@pytest.mark.parametrize("unit", list(UNITS))
def test_format_then_parse_round_trips(unit):
    value = 123.456 * UNITS[unit].scale
    shown = format_quantity(value, unit, digits=3)
    assert math.isclose(parse_quantity(shown, unit).value, value, rel_tol=1e-3)


def test_format_examples():
    assert format_quantity(112e9, "GB") == "112.00 GB"
    assert format_quantity(6.74e9, "B") == "6.74B params"
    assert format_quantity(0.3, "%") == "30.00%"
    assert format_bytes(112e9) == "112.00 GB"
    with pytest.raises(QuantityError):
        format_bytes(1, "s")


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=40), st.sampled_from(sorted(UNITS) + [None]))
def test_no_string_raises_anything_but_quantity_error(text, unit):
    try:
        quantity = parse_quantity(text, unit)
    except QuantityError as exc:
        assert str(exc)
    else:
        assert math.isfinite(quantity.value) and quantity.value >= 0


@settings(max_examples=300, deadline=None)
@given(st.floats(0.01, 1e15, allow_nan=False), st.sampled_from(["GB", "s", "tokens/s", "x", "count", "TFLOPs"]))
def test_a_formatted_quantity_reads_back(value, unit):
    """Generated valid inputs (the junk properties below mostly exercise refusals): what the grader prints
    in a unit, it reads back to the same value within the printed precision (6 significant figures)."""
    shown = format_quantity(value, unit)
    assert parse_quantity(shown, unit).value == pytest.approx(value, rel=6e-3, abs=6e-3 * _scale(unit))


def _scale(unit: str) -> float:
    return {"GB": 1e9, "TFLOPs": 1e12}.get(unit, 1.0)


_NUMBERISH = st.text(alphabet="0123456789.,eE+-~ 约亿万BbGgKkMmTt%sxhHiI字节参数×^ ", max_size=20)


@settings(max_examples=400, deadline=None)
@given(_NUMBERISH, st.sampled_from(["GB", "B", "s", "%", "x"]))
def test_number_like_strings_never_crash(text, unit):
    try:
        quantity = parse_quantity(text, unit)
    except QuantityError:
        return
    assert math.isfinite(quantity.value) and quantity.value >= 0


# Bits are not bytes: the exact mixed-case forms and the bit words are refused with the reason;
# lower-case "gb"/"kb" is how people type GB/KB and is read as bytes.
@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("112 Gb", "Gb is gigabits; write GB for gigabytes"),
        ("112Gb", "Gb is gigabits; write GB for gigabytes"),
        ("112 Mb", "Mb is megabits; write MB for megabytes"),
        ("1 Tb", "Tb is terabits; write TB for terabytes"),
        ("900 Kb", "Kb is kilobits; write KB for kilobytes"),
        ("112 gbit", "gbit is gigabits; write GB"),
        ("112 Gbit", "Gbit is gigabits"),
        ("112 gigabits", "gigabits is gigabits"),
        ("896 bits", "bits, not bytes"),
        ("896 bit", "bits, not bytes"),
        ("约112Gb。", "Gb is gigabits"),
    ],
)
def test_bits_are_refused_with_the_reason(text, says):
    with pytest.raises(QuantityError) as caught:
        parse_quantity(text, "GB")
    assert says in str(caught.value)


@pytest.mark.parametrize(("text", "value"), [("112 gb", 112 * GB), ("112 kb", 112e3), ("112 GB", 112 * GB), ("112 gB", 112 * GB)])
def test_lower_case_byte_units_are_still_bytes(text, value):
    assert parse_quantity(text, "GB") == Quantity(value, "bytes")


def test_a_bit_unit_is_not_a_drill_unit():
    from quizapp.memory.quantities import unit_of

    with pytest.raises(QuantityError, match="gigabits"):
        unit_of("Gb")
    assert unit_of("gb").name == "GB"


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [
        ("112GB。", "GB", 112 * GB),
        ("112.", "GB", 112 * GB),
        ("112 GB.", "GB", 112 * GB),
        ("112 GB!", "GB", 112 * GB),
        ("约 112 GB 左右。", "GB", 112 * GB),
        ("67亿。", "B", 6.7e9),
        ("2 h.", "h", 7200),
    ],
)
def test_a_trailing_sentence_mark_is_ignored(text, unit, value):
    assert parse_quantity(text, unit).value == pytest.approx(value)


@pytest.mark.parametrize("text", [".", "。", "GB."])
def test_a_sentence_mark_alone_is_still_not_a_number(text):
    with pytest.raises(QuantityError, match="not a number|empty"):
        parse_quantity(text, "GB")
