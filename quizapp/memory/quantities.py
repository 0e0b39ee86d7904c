"""Quantities: read the numbers people type ("约112GB", "67亿", "6.7B", "2 h") and print them back.

One parser serves the calculator's inputs and the grader's answers, so an answer means the same thing
everywhere. Ambiguous or junk input is rejected with a one-line reason rather than guessed: "100-120 GB"
is a range, "-5 GB" is negative, "112B" asked in GB is a count of billions, not bytes, and "112 Gb"
is gigabits (only the exact forms Kb/Mb/Gb/Tb and the words bit/bits/Gbit...: lower-case "gb" is what
people type for GB). A trailing full stop ("112GB。", "112.") is ignored.
Pure standard library.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

KINDS = ("bytes", "count", "seconds", "ratio", "number", "flops", "rate", "bandwidth")
_KIND_WORDS = {
    "bytes": "a size in bytes",
    "count": "a count",
    "seconds": "a time",
    "ratio": "a percentage",
    "number": "a plain number",
    "flops": "an amount of FLOPs",
    "rate": "a rate in tokens/s",
    "bandwidth": "a bandwidth in bytes/s",
}


class QuantityError(ValueError):
    """A quantity that cannot be read; str(error) is the one-line reason."""


@dataclass(frozen=True)
class Unit:
    """A display unit: `scale` base units (bytes, items, seconds, fraction, 1) per one of it."""

    name: str
    kind: str
    scale: float


@dataclass(frozen=True)
class Quantity:
    """A parsed quantity in base units (bytes, count, seconds, fraction 0.3 for 30%, number)."""

    value: float
    kind: str


def _units() -> dict[str, Unit]:
    table = [
        ("bytes", "bytes", 1),
        ("KB", "bytes", 10**3),
        ("MB", "bytes", 10**6),
        ("GB", "bytes", 10**9),
        ("TB", "bytes", 10**12),
        ("KiB", "bytes", 2**10),
        ("MiB", "bytes", 2**20),
        ("GiB", "bytes", 2**30),
        ("TiB", "bytes", 2**40),
        ("params", "count", 1),
        ("count", "count", 1),
        ("tokens", "count", 1),
        ("GPUs", "count", 1),
        ("K", "count", 10**3),
        ("M", "count", 10**6),
        ("B", "count", 10**9),
        ("T", "count", 10**12),
        ("万", "count", 10**4),
        ("亿", "count", 10**8),
        ("us", "seconds", 1e-6),
        ("ms", "seconds", 1e-3),
        ("s", "seconds", 1),
        ("min", "seconds", 60),
        ("h", "seconds", 3600),
        ("d", "seconds", 86400),
        ("%", "ratio", 0.01),
        ("x", "number", 1),
        ("FLOP/B", "number", 1),  # arithmetic intensity and ridge points (section 17)
        ("FLOPs", "flops", 1),
        ("GFLOPs", "flops", 1e9),
        ("TFLOPs", "flops", 1e12),
        ("PFLOPs", "flops", 1e15),
        ("EFLOPs", "flops", 1e18),
        ("tokens/s", "rate", 1),
        ("MB/s", "bandwidth", 10**6),
        ("GB/s", "bandwidth", 10**9),
        ("TB/s", "bandwidth", 10**12),
        ("GiB/s", "bandwidth", 2**30),
    ]
    return {name: Unit(name, kind, float(scale)) for name, kind, scale in table}


UNITS: Mapping[str, Unit] = MappingProxyType(_units())

# What people type -> display unit. Matched longest first; case-sensitive aliases are tried before the
# case-insensitive ones so that "B" (billions) and "b" stay apart from "bytes".
_EXACT_ALIASES = {
    "B": "B",
    "b": "B",
    "K": "K",
    "k": "K",
    "M": "M",
    "T": "T",
    "x": "x",
    "X": "x",
    "×": "x",
    "%": "%",
    "s": "s",
    "h": "h",
    "d": "d",
}
_FOLDED_ALIASES = {
    # bytes
    "bytes": "bytes",
    "byte": "bytes",
    "字节": "bytes",
    "kb": "KB",
    "mb": "MB",
    "gb": "GB",
    "tb": "TB",
    "kib": "KiB",
    "mib": "MiB",
    "gib": "GiB",
    "tib": "TiB",
    # counts
    "params": "params",
    "param": "params",
    "parameters": "params",
    "parameter": "params",
    "个参数": "params",
    "参数": "params",
    "tokens": "tokens",
    "token": "tokens",
    "tok": "tokens",
    "gpus": "GPUs",
    "gpu": "GPUs",
    "张卡": "GPUs",
    "块卡": "GPUs",
    "卡": "GPUs",
    "count": "params",
    "个": "params",
    # what an answer counts in words ("about 60 sequences", "约 60 条序列"): a plain count
    "sequences": "count",
    "sequence": "count",
    "seqs": "count",
    "requests": "count",
    "request": "count",
    "条序列": "count",
    "个序列": "count",
    "条请求": "count",
    "条": "count",
    "thousand": "K",
    "千": "K",
    "million": "M",
    "mn": "M",
    "百万": "M",
    "千万": "千万",
    "billion": "B",
    "bn": "B",
    "十亿": "B",
    "trillion": "T",
    "万亿": "T",
    "万": "万",
    "亿": "亿",
    # times
    "us": "us",
    "µs": "us",
    "μs": "us",
    "微秒": "us",
    "ms": "ms",
    "毫秒": "ms",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "秒": "s",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "分钟": "min",
    "分": "min",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "小时": "h",
    "时": "h",
    "day": "d",
    "days": "d",
    "天": "d",
    # FLOPs (an amount; FLOP and FLOPs alike)
    "flop": "FLOPs",
    "flops": "FLOPs",
    "gflop": "GFLOPs",
    "gflops": "GFLOPs",
    "tflop": "TFLOPs",
    "tflops": "TFLOPs",
    "pflop": "PFLOPs",
    "pflops": "PFLOPs",
    "eflop": "EFLOPs",
    "eflops": "EFLOPs",
    # a peak rate written per second (sm_peak_flops): the same display unit, "989 TFLOP/s" = 989 TFLOPs
    "flop/s": "FLOPs",
    "gflop/s": "GFLOPs",
    "tflop/s": "TFLOPs",
    "pflop/s": "PFLOPs",
    # rates
    "tokens/s": "tokens/s",
    "token/s": "tokens/s",
    "tok/s": "tokens/s",
    "tokens/sec": "tokens/s",
    "tok/sec": "tokens/s",
    "tokens per second": "tokens/s",
    "tokens/秒": "tokens/s",
    "token/秒": "tokens/s",
    # bandwidths
    "mb/s": "MB/s",
    "gb/s": "GB/s",
    "tb/s": "TB/s",
    "gib/s": "GiB/s",
    # percentages in words
    "percent": "%",
    "per cent": "%",
    "pct": "%",
    # plain numbers
    "bytes/param": "x",
    "bytes/parameter": "x",
    "b/param": "x",
    "字节/参数": "x",
    "times": "x",
    "flop/b": "FLOP/B",
    "flops/b": "FLOP/B",
    "flop/byte": "FLOP/B",
    "flops/byte": "FLOP/B",
    "flops/bytes": "FLOP/B",
    "flop/字节": "FLOP/B",
    "倍": "x",
}
_EXTRA_SCALES = {"千万": Unit("千万", "count", 1e7)}
# Single letters whose meaning depends on the expected kind: "112G" in GB is 112 GB, "7G" params 7e9.
_CONTEXT_LETTERS = {
    "bytes": {"G": "GB", "g": "GB", "K": "KB", "k": "KB", "M": "MB", "T": "TB", "t": "TB"},
    "count": {"G": "B", "g": "B", "m": "M", "t": "T"},
    "seconds": {"m": "min"},
}
_COUNT_NOUN = "params"
_COUNT_NOUNS = ("params", "count", "tokens", "GPUs")  # what is counted; K M B T 万 亿 scale them
_FRACTION = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*/\s*([0-9]+(?:\.[0-9]+)?)")
_ALIASES_BY_LENGTH = sorted(_FOLDED_ALIASES, key=len, reverse=True)

_APPROX_PREFIXES = (
    "approximately",
    "approx.",
    "approx",
    "roughly",
    "around",
    "about",
    "circa",
    "ca.",
    "大约",
    "大概",
    "约为",
    "約",
    "大約",
    "约",
    "~",
    "≈",
)
_APPROX_SUFFIXES = ("左右", "上下")
_NUMBER = re.compile(r"\+?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)?(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_POWER_OF_TEN = re.compile(r"\s*[x×*·]\s*10\s*(?:\^|\*\*)\s*([+-]?[0-9]{1,4})")
_RANGE_SEPARATORS = ("-", "–", "—", "~", "〜", "到", "至", "to ")
_MAX_INPUT = 200
_SENTENCE_MARKS = ".。!！"
# Bits, not bytes: the exact mixed-case prefixes (Gb), and bit words in any case (Gbit, gigabits).
_BITS = re.compile(
    r"(?:(?P<prefix>[KMGT])b|(?i:(?P<short>[kmgt]?)bits?|(?P<long>kilo|mega|giga|tera)bits?))(?![A-Za-z])"
)
_BIT_NAMES = {"k": "kilobits", "m": "megabits", "g": "gigabits", "t": "terabits",
              "kilo": "kilobits", "mega": "megabits", "giga": "gigabits", "tera": "terabits"}


def _fail(message: str) -> QuantityError:
    return QuantityError(message)


def unit_of(unit: str) -> Unit:
    """The display unit called `unit` (a drill's `unit:`), or QuantityError naming the choices."""
    if unit in UNITS:
        return UNITS[unit]
    bits = _bits_error(unit.strip(), 0)
    if bits is not None and _BITS.fullmatch(unit.strip()):
        raise bits
    folded = _FOLDED_ALIASES.get(unit.strip().casefold())
    if folded in UNITS:
        return UNITS[folded]
    raise _fail(f"unknown unit {unit!r}; expected one of {', '.join(UNITS)}")


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\u2212", "-").replace("\u00a0", " ")
    return " ".join(text.split())


def _strip_approx(text: str) -> str:
    if text.startswith("百分之"):  # 百分之37.5 is 37.5%
        text = text[3:].lstrip() + "%"
    changed = True
    while changed and text:
        changed = False
        lowered = text.casefold()
        for prefix in _APPROX_PREFIXES:
            if lowered.startswith(prefix):
                text = text[len(prefix) :].lstrip()
                changed = True
                break
        for suffix in _APPROX_SUFFIXES:
            if text.endswith(suffix):
                text = text[: -len(suffix)].rstrip()
                changed = True
        if text.endswith(tuple(_SENTENCE_MARKS)):  # "112GB。", "112."
            text = text.rstrip(_SENTENCE_MARKS).rstrip()
            changed = True
    return text


def _bits_error(rest: str, position: int) -> QuantityError | None:
    """The reason to refuse a bit unit at `position` ("Gb" is gigabits), or None."""
    match = _BITS.match(rest, position)
    if match is None:
        return None
    word = match.group(0)
    prefix = (match.group("prefix") or match.group("short") or match.group("long") or "").lower()
    byte_unit = {"": "bytes", "k": "KB", "kilo": "KB", "m": "MB", "mega": "MB", "g": "GB", "giga": "GB", "t": "TB", "tera": "TB"}[prefix]
    byte_word = {"bytes": "bytes", "KB": "kilobytes", "MB": "megabytes", "GB": "gigabytes", "TB": "terabytes"}[byte_unit]
    if byte_unit == "bytes":
        return _fail(f"{word} counts bits, not bytes (8 bits = 1 byte); write bytes, or GB for gigabytes")
    return _fail(f"{word} is {_BIT_NAMES[prefix]}; write {byte_unit} for {byte_word} (8 bits = 1 byte)")


def _read_unit_tokens(rest: str, expected_kind: str | None) -> list[Unit]:
    """Split the text after the number into known units ("B params" -> [B, params])."""
    tokens: list[Unit] = []
    position = 0
    while position < len(rest):
        if rest[position] == " ":
            position += 1
            continue
        bits = _bits_error(rest, position)
        if bits is not None:
            raise bits
        found: Unit | None = None
        length = 0
        for alias in _ALIASES_BY_LENGTH:  # longest first, so "min" wins over "m"
            if len(alias) > 1 and rest[position : position + len(alias)].casefold() == alias:
                name = _FOLDED_ALIASES[alias]
                found = UNITS.get(name) or _EXTRA_SCALES[name]
                length = len(alias)
                break
        if found is None:
            letter = rest[position]
            name = _CONTEXT_LETTERS.get(expected_kind or "", {}).get(letter) or _EXACT_ALIASES.get(letter)
            if name is None:
                name = _FOLDED_ALIASES.get(letter.casefold())
            if name is not None:
                found = UNITS.get(name) or _EXTRA_SCALES[name]
                length = 1
        if found is None or _continues_word(rest, position, length):
            word = re.match(r"\S+", rest[position:])
            unknown = word.group(0) if word else rest[position:]
            raise _fail(f"unknown unit {unknown!r}; expected a unit such as GB, GiB, bytes, B (billions), 亿, s, h or %")
        tokens.append(found)
        position += length
    return tokens


def _continues_word(rest: str, position: int, length: int) -> bool:
    """True when an ASCII-letter alias is only the start of a longer word ("s" in "secondz")."""
    end = position + length
    alias = rest[position:end]
    return alias.isascii() and alias[-1:].isalpha() and end < len(rest) and rest[end].isascii() and rest[end].isalpha()


def _combine(tokens: list[Unit]) -> Unit | None:
    """One unit from the tokens: none, a single unit, or count multipliers with a count noun."""
    if not tokens:
        return None
    if len(tokens) == 1:
        return tokens[0]
    if all(t.kind == "count" for t in tokens) and sum(t.name not in _COUNT_NOUNS for t in tokens) <= 1 \
            and sum(t.name in _COUNT_NOUNS for t in tokens) <= 1:
        scale = math.prod(t.scale for t in tokens)
        names = "".join(t.name for t in tokens if t.name not in _COUNT_NOUNS) or next(
            t.name for t in tokens if t.name in _COUNT_NOUNS)
        return Unit(names, "count", scale)
    if len(tokens) == 2 and tokens[0].kind == "count" and tokens[0].name not in _COUNT_NOUNS \
            and tokens[1].kind in ("rate", "flops"):
        # "1.5K tokens/s", "3 万 tokens/s": a multiplier in front of a rate
        return Unit(tokens[0].name + " " + tokens[1].name, tokens[1].kind, tokens[0].scale * tokens[1].scale)
    raise _fail(f"more than one unit ({' '.join(t.name for t in tokens)})")


def parse_quantity(text: str, unit: str | None) -> Quantity:
    """Read `text` as a quantity; a unitless number is read in `unit` (the expected display unit).

    With unit=None a unit is required and any kind is accepted (for tolerances such as "0.5 GB").
    Raises QuantityError with the reason for junk, ranges, negatives, non-finite values and units of
    another kind than `unit`'s.
    """
    expected = unit_of(unit) if unit is not None else None
    if not isinstance(text, str):
        raise _fail(f"expected text, got {type(text).__name__}")
    if len(text) > _MAX_INPUT:
        raise _fail(f"too long ({len(text)} characters); give one number with its unit")
    cleaned = _normalise(text)
    if not cleaned:
        raise _fail("empty answer; give a number such as 112 GB")
    body = _strip_approx(cleaned)
    if body.startswith("-"):
        raise _fail(f"{cleaned!r} is negative; quantities here are never below zero")
    fraction = _FRACTION.fullmatch(body)
    if fraction:
        return _fraction(cleaned, fraction, expected)
    match = _NUMBER.match(body)
    digits = match.group(0) if match else ""
    if not any(ch.isdigit() for ch in digits):
        raise _fail(f"{cleaned!r} is not a number; give a number such as 112 GB")
    rest = body[match.end() :]
    exponent = 0
    power = _POWER_OF_TEN.match(rest)
    if power:
        exponent = int(power.group(1))
        rest = rest[power.end() :]
    rest = rest.strip()
    if any(ch.isdigit() for ch in rest):
        if rest.startswith(_RANGE_SEPARATORS) or rest.casefold().startswith("to "):
            raise _fail(f"{cleaned!r} is a range; give one number")
        raise _fail(f"{cleaned!r} has more than one number; give one number with its unit")
    try:
        mantissa, _, own_exponent = digits.replace(",", "").lower().partition("e")
        number = float(f"{mantissa}e{int(own_exponent or 0) + exponent}")
    except (ValueError, OverflowError):
        raise _fail(f"{cleaned!r} is too large") from None
    if not math.isfinite(number):
        raise _fail(f"{cleaned!r} is too large")
    given = _combine(_read_unit_tokens(rest, expected.kind if expected else None))
    if given is None:
        if expected is None:
            raise _fail(f"{cleaned!r} needs a unit, such as 0.5 GB or 10%")
        given = expected
    elif expected is not None and given.kind != expected.kind:
        hint = " (B means billions; write GB or bytes for a size)" if given.kind == "count" and expected.kind == "bytes" else ""
        raise _fail(
            f"{cleaned!r} is {_KIND_WORDS[given.kind]}, but the answer is {_KIND_WORDS[expected.kind]} "
            f"in {expected.name}{hint}"
        )
    value = number * given.scale
    if not math.isfinite(value):
        raise _fail(f"{cleaned!r} is too large")
    return Quantity(value=value, kind=given.kind)


def _fraction(cleaned: str, match: re.Match, expected: Unit | None) -> Quantity:
    """"3/8" is a ratio (0.375): accepted where a percentage or a plain number is expected."""
    numerator, denominator = float(match.group(1)), float(match.group(2))
    if denominator == 0:
        raise _fail(f"{cleaned!r} divides by zero")
    if expected is not None and expected.kind not in ("ratio", "number"):
        raise _fail(f"{cleaned!r} is a fraction, but the answer is {_KIND_WORDS[expected.kind]} in {expected.name}")
    return Quantity(value=numerator / denominator, kind=expected.kind if expected else "ratio")


def _group(value: float, digits: int) -> str:
    return f"{value:,.{digits}f}"


def format_quantity(value: float, unit: str, digits: int = 2, noun: str = "params") -> str:
    """`value` (base units) shown in the display unit: "112.00 GB", "6.74B params", "30.00%".

    `noun` is what a count in K/M/B/T counts: "6.74B params", "2.50T tokens" (asks.count_noun)."""
    target = unit_of(unit)
    shown = value / target.scale
    if target.name in _COUNT_NOUNS:
        # a batch or a sequence length is not params
        suffix = {"params": " params", "tokens": " tokens", "GPUs": " GPUs"}.get(target.name, "")
        return f"{value:,.0f}{suffix}" if float(value).is_integer() else f"{_group(value, digits)}{suffix}"
    if target.name == "bytes":
        return f"{value:,.0f} bytes" if float(value).is_integer() else f"{_group(value, digits)} bytes"
    if target.kind == "count":
        suffix = f" {noun}" if target.name in ("K", "M", "B", "T") and noun else ""
        return f"{_group(shown, digits)}{target.name}{suffix}"
    if target.name == "%":
        return f"{_group(shown, digits)}%"
    if target.name == "x":
        if abs(shown) >= 1e6:  # FLOPs per token: "4.69e10" reads better than "46,872,944,640.00"
            return _scientific(shown, digits)
        if 0 < abs(shown) < 1e-3:  # a format's smallest value, a learning rate: "1.40e-45", "6.25e-4"
            return _scientific(shown, max(2, digits + math.floor(math.log10(abs(shown)))))
        if float(shown).is_integer():  # an exact integer (448, 57,344, 16 bytes/param): no ".00"
            return f"{int(shown):,}"
        return _group(shown, digits)
    if target.kind == "flops" and abs(shown) >= FLOPS_SCIENTIFIC_FROM:
        # a training budget: "4.12e25 FLOPs", not "41,153,697,585,561,600,805,306,368.00 FLOPs"
        return f"{_scientific(shown, digits)} {target.name}"
    return f"{_group(shown, digits)} {target.name}"


FLOPS_SCIENTIFIC_FROM = 1e15  # in the shown unit; below it "46.90 GFLOPs" stays positional


def _scientific(shown: float, digits: int) -> str:
    """"4.12e25": a mantissa with `digits` decimals and a plain exponent (no "+", no leading zero)."""
    mantissa, exponent = f"{shown:.{digits}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def format_bytes(n: float, unit: str = "GB") -> str:
    """A byte count in a byte unit: format_bytes(112e9) == "112.00 GB"."""
    if unit_of(unit).kind != "bytes":
        raise _fail(f"{unit!r} is not a byte unit")
    return format_quantity(n, unit)


def sensible_unit(value: float, kind: str) -> str:
    """A readable display unit for `value` of `kind` (GB for bytes, B/M/K for counts, s/min/h/d)."""
    if kind == "bytes":
        return "GB" if abs(value) >= 1e8 else "MB" if abs(value) >= 1e5 else "bytes"
    if kind == "count":
        for name in ("T", "B", "M", "K"):
            if abs(value) >= UNITS[name].scale:
                return name
        return "params"
    if kind == "seconds":
        for name in ("d", "h", "min", "s", "ms"):
            if abs(value) >= UNITS[name].scale:
                return name
        return "us" if value else "s"
    if kind == "flops":
        for name in ("EFLOPs", "PFLOPs", "TFLOPs", "GFLOPs"):
            if abs(value) >= UNITS[name].scale:
                return name
        return "FLOPs"
    if kind == "rate":
        return "tokens/s"
    if kind == "bandwidth":
        return "TB/s" if abs(value) >= 1e12 else "GB/s" if abs(value) >= 1e9 else "MB/s"
    if kind == "ratio":
        return "%"
    return "x"
