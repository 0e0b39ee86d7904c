"""Number formats: the largest, smallest normal and subnormal values and the machine epsilon of the
floating-point formats training and inference use, and the fp8 per-tensor scale.

A format with E exponent bits and M mantissa bits has bias B = 2^(E−1) − 1. Three encodings of the
top exponent exist (sources in FORMAT_SPECS):
- "ieee": the top exponent is reserved for infinities and NaNs (IEEE 754-2019: binary32 = fp32,
  binary16 = fp16; bf16 and NVIDIA's tf32 keep fp32's 8 exponent bits; OCP FP8 E5M2 follows IEEE):
  max = (2 − 2^−M) · 2^(2^E − 2 − B)
- "fn" (OCP 8-bit Floating Point Specification (OFP8) rev 1.0, E4M3): no infinities, only
  S.1111.111 is NaN, so the top exponent holds normal values up to mantissa 110:
  max = (2 − 2^(1−M)) · 2^(2^E − 1 − B) = 1.75 · 2^8 = 448
- "finite" (OCP Microscaling Formats (MX) Specification v1.0, FP6 E3M2 / E2M3 and FP4 E2M1): no
  infinities and no NaNs: max = (2 − 2^−M) · 2^(2^E − 1 − B): 28, 7.5 and 6.
In all of them: min normal = 2^(1 − B), min subnormal = 2^(1 − B − M), epsilon = 2^−M (the gap
between 1 and the next value).

The fp8 scale of per-tensor scaling (Micikevicius et al. 2022, "FP8 Formats for Deep Learning";
NVIDIA Transformer Engine's delayed scaling, margin 0): scale = format max / amax, so the tensor's
largest magnitude lands on the format's largest value.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Mapping

from quizapp.memory.derivation import Derivation, Step, num
from quizapp.memory.notes import note


@dataclass(frozen=True)
class FormatSpec:
    name: str
    exponent_bits: int
    mantissa_bits: int
    top: str  # "ieee" | "fn" | "finite": what the top exponent encodes (module docstring)
    source: str

    @property
    def bias(self) -> int:
        return 2 ** (self.exponent_bits - 1) - 1

    @property
    def max_exponent(self) -> int:
        """The exponent of the largest finite value (unbiased)."""
        top = 2**self.exponent_bits - 1
        return (top - 1 if self.top == "ieee" else top) - self.bias

    @property
    def max_mantissa(self) -> Fraction:
        """1.m of the largest finite value: 2 − 2^−M, or 2 − 2^(1−M) where all-ones is NaN (E4M3)."""
        ulp = Fraction(1, 2**self.mantissa_bits)
        return 2 - (2 * ulp if self.top == "fn" else ulp)

    @property
    def max(self) -> Fraction:
        return self.max_mantissa * Fraction(2) ** self.max_exponent

    @property
    def min_normal(self) -> Fraction:
        return Fraction(2) ** (1 - self.bias)

    @property
    def min_subnormal(self) -> Fraction:
        return Fraction(2) ** (1 - self.bias - self.mantissa_bits)

    @property
    def epsilon(self) -> Fraction:
        return Fraction(1, 2**self.mantissa_bits)


_IEEE = "IEEE 754-2019"
_OFP8 = "OCP OFP8 rev 1.0 / MX v1.0"
_MX = "OCP MX v1.0"
FORMAT_SPECS: Mapping[str, FormatSpec] = MappingProxyType({f.name: f for f in (
    FormatSpec("fp32", 8, 23, "ieee", _IEEE + " binary32"),
    FormatSpec("tf32", 8, 10, "ieee", "NVIDIA A100 whitepaper (TF32: fp32's range, fp16's precision)"),
    FormatSpec("bf16", 8, 7, "ieee", "bfloat16 (fp32's exponent, 7 mantissa bits)"),
    FormatSpec("fp16", 5, 10, "ieee", _IEEE + " binary16"),
    FormatSpec("fp8-e4m3", 4, 3, "fn", _OFP8 + " E4M3"),
    FormatSpec("fp8-e5m2", 5, 2, "ieee", _OFP8 + " E5M2"),
    FormatSpec("fp6-e3m2", 3, 2, "finite", _MX + " FP6 E3M2"),
    FormatSpec("fp6-e2m3", 2, 3, "finite", _MX + " FP6 E2M3"),
    FormatSpec("fp4-e2m1", 2, 1, "finite", _MX + " FP4 E2M1"),
)})

FORMAT_ASKS = ("format_max", "format_min_normal", "format_min_subnormal", "format_epsilon")


def _power(exponent: int) -> str:
    return f"2^{exponent}"


def _max_step(spec: FormatSpec) -> Step:
    e, m, b = spec.exponent_bits, spec.mantissa_bits, spec.bias
    top = 2**e - 1
    if spec.top == "ieee":
        formula = "(2 − 2^−M) · 2^(2^E − 2 − B)"
        sub = f"(2 − 2^−{m}) · 2^({top} − 1 − {b}) = {num(float(spec.max_mantissa))} · {_power(spec.max_exponent)}"
    elif spec.top == "fn":
        formula = "(2 − 2^(1−M)) · 2^(2^E − 1 − B)"
        sub = f"(2 − 2^(1−{m})) · 2^({top} − {b}) = {num(float(spec.max_mantissa))} · {_power(spec.max_exponent)}"
    else:
        formula = "(2 − 2^−M) · 2^(2^E − 1 − B)"
        sub = f"(2 − 2^−{m}) · 2^({top} − {b}) = {num(float(spec.max_mantissa))} · {_power(spec.max_exponent)}"
    return Step("format_max", float(spec.max), "number", formula, sub, note(f"calc.extra.top_{spec.top}"))


def derive_format(setup, ask: str) -> Derivation:
    """format_max | format_min_normal | format_min_subnormal | format_epsilon of `setup.extras.format`."""
    spec = FORMAT_SPECS[setup.extras.need("format", ask)]
    e, m, b = spec.exponent_bits, spec.mantissa_bits, spec.bias
    bias = Step("format_bias", float(b), "count", "B = 2^(E−1) − 1", f"2^({e}−1) − 1",
                note("calc.extra.format_bits", name=spec.name, e=e, m=m, source=spec.source))
    if ask == "format_max":
        last = _max_step(spec)
    elif ask == "format_min_normal":
        last = Step(ask, float(spec.min_normal), "number", "2^(1 − B)", f"2^(1 − {b}) = {_power(1 - b)}",
                    note("calc.extra.min_normal"))
    elif ask == "format_min_subnormal":
        last = Step(ask, float(spec.min_subnormal), "number", "2^(1 − B − M)",
                    f"2^(1 − {b} − {m}) = {_power(1 - b - m)}", note("calc.extra.min_subnormal"))
    else:
        last = Step(ask, float(spec.epsilon), "number", "2^−M", f"2^−{m}", note("calc.extra.epsilon"))
    return Derivation(ask, (bias, last))


def fp8_scale(format_max: float, amax: float) -> float:
    """The per-tensor scale that maps amax onto the format's largest value: max / amax."""
    return format_max / amax


def derive_fp8_scale(setup) -> Derivation:
    e = setup.extras
    spec = FORMAT_SPECS[e.need("format", "fp8_scale")]
    amax = e.need("amax", "fp8_scale")
    top = _max_step(spec)
    value = fp8_scale(float(spec.max), amax)
    last = Step("fp8_scale", value, "number", "scale = format_max / amax", f"{num(float(spec.max))} / {num(amax)}",
                note("calc.extra.fp8_scale"))
    return Derivation("fp8_scale", (top, last))
