"""Number formats (IEEE 754-2019, OCP OFP8 and OCP MX v1.0) and the fp8 per-tensor scale."""

from __future__ import annotations

import pytest

from quizapp.memory import SetupError, evaluate, setup_from_options

ASKS = ("format_max", "format_min_normal", "format_min_subnormal", "format_epsilon")

# Published figures, each written out: (max, min normal, min subnormal, epsilon)
PUBLISHED = {
    # IEEE 754 binary32: (2 - 2^-23) * 2^127, 2^-126, 2^-149, 2^-23
    "fp32": ((2 - 2**-23) * 2.0**127, 2.0**-126, 2.0**-149, 2.0**-23),
    # binary16: 65504 = (2 - 2^-10) * 2^15, 2^-14, 2^-24, 2^-10
    "fp16": (65504.0, 2.0**-14, 2.0**-24, 2.0**-10),
    # bfloat16: fp32's exponent, 7 mantissa bits: (2 - 2^-7) * 2^127 = 3.3895e38
    "bf16": ((2 - 2**-7) * 2.0**127, 2.0**-126, 2.0**-133, 2.0**-7),
    # TF32: 8 exponent bits, 10 mantissa bits
    "tf32": ((2 - 2**-10) * 2.0**127, 2.0**-126, 2.0**-136, 2.0**-10),
    # OCP FP8 E4M3: 448 = 1.75 x 2^8 (S.1111.111 is the only NaN), 2^-6, 2^-9, 2^-3
    "fp8-e4m3": (448.0, 2.0**-6, 2.0**-9, 2.0**-3),
    # OCP FP8 E5M2: 57344 = 1.75 x 2^15, 2^-14, 2^-16, 2^-2
    "fp8-e5m2": (57344.0, 2.0**-14, 2.0**-16, 2.0**-2),
    # OCP MX v1.0 FP6 E3M2: max 28 = 1.75 x 2^4, min normal 0.25, min subnormal 0.0625
    "fp6-e3m2": (28.0, 0.25, 0.0625, 0.25),
    # FP6 E2M3: max 7.5 = 1.875 x 2^2, min normal 1, min subnormal 0.125
    "fp6-e2m3": (7.5, 1.0, 0.125, 0.125),
    # FP4 E2M1: max 6 = 1.5 x 2^2, min normal 1, min subnormal 0.5
    "fp4-e2m1": (6.0, 1.0, 0.5, 0.5),
}


@pytest.mark.parametrize("fmt", sorted(PUBLISHED))
def test_each_format_matches_its_published_figures(fmt):
    setup = setup_from_options({"format": fmt})
    assert tuple(evaluate(setup, ask) for ask in ASKS) == PUBLISHED[fmt]


def test_the_fp8_scale_maps_amax_onto_the_format_max():
    # 448 / 3.5 = 128: a tensor whose largest magnitude is 3.5 is multiplied by 128 before the E4M3 cast
    assert evaluate(setup_from_options({"format": "e4m3", "amax": 3.5}), "fp8_scale") == 448 / 3.5
    assert evaluate(setup_from_options({"format": "fp8-e5m2", "amax": 100}), "fp8_scale") == 57344 / 100


def test_aliases_and_the_ambiguous_fp8():
    assert evaluate(setup_from_options({"format": "bfloat16"}), "format_epsilon") == 2.0**-7
    assert evaluate(setup_from_options({"format": "E2M1"}), "format_max") == 6.0
    with pytest.raises(SetupError, match="format: fp8 has two formats"):
        setup_from_options({"format": "fp8"})
    with pytest.raises(SetupError, match="format: expected fp32 .*did you mean fp16"):
        setup_from_options({"format": "fp61"})


def test_missing_keys_name_the_key():
    with pytest.raises(SetupError, match="amax: missing; fp8_scale needs amax"):
        evaluate(setup_from_options({"format": "fp8-e4m3"}), "fp8_scale")
    with pytest.raises(SetupError, match="format: missing"):
        evaluate(setup_from_options({"amax": 2}), "format_max")


def test_tiny_values_display_in_scientific_notation():
    from quizapp.content.drills import precise

    assert precise(2.0**-149, "x") == "1.40e-45"  # 2^-149 = 1.4013e-45
    assert precise(6.25e-4, "x") == "6.25e-4"
