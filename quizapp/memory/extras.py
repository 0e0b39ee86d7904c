"""The inputs of the extra asks (speculative decoding, number formats, GPU arithmetic, data, μP).

They sit in one typed, frozen `Extras` value on `Setup.extras`, apart from the memory, serving and
training fields: no memory, serving or training ask reads them, so a key given for one extra ask can
never change another quantity, and every extra ask reads only the keys it names (a missing one is a
one-line error naming the key, never a silent default). `parse_extras` turns the setup keys (YAML
drills, strings or numbers) into an `Extras`; `setup_from_options` calls it.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, fields
from typing import Mapping

from quizapp.memory.errors import SetupError

FORMATS = ("fp32", "tf32", "bf16", "fp16", "fp8-e4m3", "fp8-e5m2", "fp6-e3m2", "fp6-e2m3", "fp4-e2m1")
LINKS = ("pcie3", "pcie4", "pcie5", "nvlink")

# setup key -> what it is, for the one-line errors ("acceptance: missing; ...")
EXTRA_KEYS: Mapping[str, str] = {
    # speculative decoding (Leviathan et al. 2023)
    "acceptance": "α, the chance that the target model accepts a drafted token, e.g. 0.8",
    "draft_len": "γ, the tokens the draft model proposes per round, e.g. 4",
    "draft_cost": "c, the time of one draft-model step over one target-model step, e.g. 0.05",
    # number formats (IEEE 754, OCP FP8 and MX v1.0)
    "format": f"a number format: {' | '.join(FORMATS)}",
    "amax": "the largest absolute value of the tensor (its amax), e.g. 3.5",
    # GPU arithmetic
    "sms": "the number of streaming multiprocessors, e.g. 132",
    "clock_ghz": "the clock in GHz the peak is quoted at, e.g. 1.83",
    "flops_per_clock_per_sm": "FLOPs one SM does per clock (dense tensor), e.g. 4096",
    "bus_bits": "the memory bus width in bits, e.g. 5120",
    "gbps_per_pin": "the data rate per pin in Gb/s, e.g. 6.4",
    "bandwidth": "a memory bandwidth in bytes/s, e.g. 3.35 TB/s",
    "latency_ns": "a memory latency in nanoseconds, e.g. 600",
    "link": f"a link: {' | '.join(LINKS)} (PCIe x16 per direction; nvlink: the GPU preset's)",
    "transfer_bytes": "bytes to move, e.g. 10 GB",
    # data
    "corpus_bytes": "the corpus size in bytes, e.g. 1 TB",
    "bytes_per_token": "bytes of text per token, e.g. 4",
    "similarity": "s, the Jaccard similarity of the two documents, e.g. 0.8",
    "bands": "b, the LSH bands, e.g. 20",
    "rows": "r, the MinHash rows per band, e.g. 5",
    "doc_lengths": "the documents' lengths in tokens, e.g. [300, 1200, 4096]",
    # μP (Yang et al. 2022)
    "base_lr": "the learning rate tuned at the base width, e.g. 0.01",
    "base_width": "the width of the proxy model the learning rate was tuned at, e.g. 256",
    "width": "the width of the target model, e.g. 4096",
}

_FORMAT_ALIASES = {
    "float32": "fp32", "single": "fp32", "tensorfloat32": "tf32", "tensorfloat-32": "tf32", "bfloat16": "bf16",
    "float16": "fp16", "half": "fp16", "e4m3": "fp8-e4m3", "fp8e4m3": "fp8-e4m3", "e5m2": "fp8-e5m2",
    "fp8e5m2": "fp8-e5m2", "e3m2": "fp6-e3m2", "fp6e3m2": "fp6-e3m2", "e2m3": "fp6-e2m3", "fp6e2m3": "fp6-e2m3",
    "e2m1": "fp4-e2m1", "fp4": "fp4-e2m1", "fp4e2m1": "fp4-e2m1",
}
_LINK_ALIASES = {"pcie-3": "pcie3", "pcie-4": "pcie4", "pcie-5": "pcie5", "pcie-gen3": "pcie3",
                 "pcie-gen4": "pcie4", "pcie-gen5": "pcie5", "gen3": "pcie3", "gen4": "pcie4", "gen5": "pcie5"}


@dataclass(frozen=True)
class Extras:
    """Every extra input, None where not given (each extra ask says which it needs)."""

    acceptance: float | None = None
    draft_len: int | None = None
    draft_cost: float | None = None
    format: str | None = None
    amax: float | None = None
    sms: int | None = None
    clock_ghz: float | None = None
    flops_per_clock_per_sm: float | None = None
    bus_bits: int | None = None
    gbps_per_pin: float | None = None
    bandwidth: float | None = None
    latency_ns: float | None = None
    link: str | None = None
    transfer_bytes: int | None = None
    corpus_bytes: int | None = None
    bytes_per_token: float | None = None
    similarity: float | None = None
    bands: int | None = None
    rows: int | None = None
    doc_lengths: tuple[int, ...] | None = None
    base_lr: float | None = None
    base_width: int | None = None
    width: int | None = None
    seq: int | None = None  # the setup's `seq` when the setup states it (padding needs it stated)

    def __post_init__(self) -> None:
        if all(getattr(self, f.name) is None for f in fields(self)):
            return  # NO_EXTRAS

        if self.format is not None and self.format not in FORMATS:
            raise SetupError("format", _expected(FORMATS, self.format))
        if self.link is not None and self.link not in LINKS:
            raise SetupError("link", _expected(LINKS, self.link))
        for name in ("acceptance", "similarity"):
            value = getattr(self, name)
            if value is not None and not (0 <= value <= 1):
                raise SetupError(name, f"expected a probability in [0, 1], e.g. 0.8, got {value!r}")
        if self.draft_cost is not None and not (0 <= self.draft_cost < math.inf):
            raise SetupError("draft_cost", f"expected a cost ratio >= 0, e.g. 0.05, got {self.draft_cost!r}")
        for name in ("amax", "clock_ghz", "flops_per_clock_per_sm", "gbps_per_pin", "bandwidth", "latency_ns",
                     "bytes_per_token", "base_lr"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not (0 < value < math.inf)):
                raise SetupError(name, f"expected a positive number ({EXTRA_KEYS[name]}), got {value!r}")
        for name in ("draft_len", "sms", "bus_bits", "transfer_bytes", "corpus_bytes", "bands", "rows",
                     "base_width", "width"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise SetupError(name, f"expected a positive integer ({EXTRA_KEYS[name]}), got {value!r}")
        if self.doc_lengths is not None:
            if not self.doc_lengths:
                raise SetupError("doc_lengths", "expected at least one document length, e.g. [300, 1200, 4096]")
            for length in self.doc_lengths:
                if isinstance(length, bool) or not isinstance(length, int) or length < 1:
                    raise SetupError("doc_lengths", f"expected positive token counts, got {length!r}")

    def need(self, name: str, ask: str):
        """The value of `name`, or a SetupError saying that `ask` needs it."""
        value = getattr(self, name)
        if value is None:
            raise SetupError(name, f"missing; {ask} needs {name} ({EXTRA_KEYS[name]})")
        return value


NO_EXTRAS = Extras()
_FIELDS = tuple(f.name for f in fields(Extras))


def _expected(choices: tuple[str, ...], got: object) -> str:
    import difflib

    text = f"expected {' | '.join(choices)}, got {got!r}"
    close = difflib.get_close_matches(str(got).lower(), list(choices), n=1, cutoff=0.6)
    return text + (f"; did you mean {close[0]}?" if close else "")


def _norm(value: object) -> str:
    return re.sub(r"[\s_]+", "-", unicodedata.normalize("NFKC", str(value)).strip().lower())


def _number(field: str, value: object, *, percent: bool = False) -> float:
    """A finite number from 0.8, "0.8", "1e-3" (and "80%" where `percent`)."""
    if isinstance(value, bool):
        raise SetupError(field, f"expected a number ({EXTRA_KEYS[field]}), got {value!r}")
    text = unicodedata.normalize("NFKC", str(value)).strip().replace(",", "")
    scale = 1.0
    if percent and text.endswith("%"):
        text, scale = text[:-1].strip(), 0.01
    try:
        number = float(text) * scale
    except ValueError:
        raise SetupError(field, f"expected a number ({EXTRA_KEYS[field]}), got {value!r}") from None
    if not math.isfinite(number):
        raise SetupError(field, f"expected a finite number ({EXTRA_KEYS[field]}), got {value!r}")
    return number


def _integer(field: str, value: object, k_suffix: bool = False) -> int:
    """A positive integer from 4, 4.0, "4,096" (and "4k" = 4096 where `k_suffix`, as seq takes it)."""
    what = f" ({EXTRA_KEYS[field]})" if field in EXTRA_KEYS else " (or Nk = N×1024)" if k_suffix else ""
    if isinstance(value, bool):
        raise SetupError(field, f"expected a positive integer{what}, got {value!r}")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        number = value
    else:
        text = unicodedata.normalize("NFKC", str(value)).strip().lower().replace(",", "").replace("_", "")
        scale = 1
        if k_suffix and text.endswith("k"):
            text, scale = text[:-1], 1024
        if not re.fullmatch(r"[0-9]{1,30}", text):
            raise SetupError(field, f"expected a positive integer{what}, got {value!r}")
        number = int(text) * scale
    if number < 1:
        raise SetupError(field, f"expected a positive integer{what}, got {value!r}")
    return number


def _size(field: str, value: object) -> int:
    """Bytes from 10 GB, 1e10, "1 TiB" (quantities' grammar; a bare number is bytes)."""
    from quizapp.memory.quantities import QuantityError, parse_quantity

    try:
        return round(parse_quantity(str(value), "bytes").value) if not isinstance(value, bool) else -1
    except QuantityError:
        raise SetupError(field, f"expected bytes like 10 GB or 1e10 ({EXTRA_KEYS[field]}), got {value!r}") from None


def _bandwidth(field: str, value: object) -> float:
    """Bytes/s from 3.35 TB/s, "50 GB/s" or a bare number of bytes/s (3.35e12)."""
    from quizapp.memory.quantities import QuantityError, parse_quantity

    expected = f"expected bytes/s like 3.35 TB/s or 3.35e12, got {value!r}"
    if isinstance(value, bool):
        raise SetupError(field, expected)
    text = unicodedata.normalize("NFKC", str(value)).strip().replace(",", "")
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return parse_quantity(text, "GB/s").value
    except QuantityError as exc:
        raise SetupError(field, f"{expected} ({exc})") from None


def _lengths(value: object) -> tuple[int, ...]:
    items = value if isinstance(value, (list, tuple)) else str(value).strip().strip("[]").split(",")
    out = []
    for item in items:
        if isinstance(item, (list, tuple, dict)):
            raise SetupError("doc_lengths", f"expected a list of token counts, e.g. [300, 1200, 4096], got {value!r}")
        try:
            out.append(_integer("doc_lengths", item.strip() if isinstance(item, str) else item))
        except SetupError:
            raise SetupError("doc_lengths", f"expected positive token counts, e.g. [300, 1200, 4096], got {item!r}") from None
    return tuple(out)


def parse_extras(given: Mapping[str, object]) -> Extras:
    """The extra inputs among `given` (setup keys, None already dropped); NO_EXTRAS when there are none."""
    if not any(key in given for key in EXTRA_KEYS):
        return NO_EXTRAS
    values: dict[str, object] = {}
    for key in ("acceptance", "similarity"):
        if key in given:
            values[key] = _number(key, given[key], percent=True)
    for key in ("draft_cost", "amax", "clock_ghz", "flops_per_clock_per_sm", "gbps_per_pin", "latency_ns",
                "bytes_per_token", "base_lr"):
        if key in given:
            values[key] = _number(key, given[key])
    for key in ("draft_len", "sms", "bus_bits", "bands", "rows", "base_width", "width"):
        if key in given:
            values[key] = _integer(key, given[key])
    for key in ("transfer_bytes", "corpus_bytes"):
        if key in given:
            values[key] = _size(key, given[key])
    if "bandwidth" in given:
        values["bandwidth"] = _bandwidth("bandwidth", given["bandwidth"])
    if "format" in given:
        key = _norm(given["format"])
        key = _FORMAT_ALIASES.get(key, _FORMAT_ALIASES.get(key.replace("-", ""), key))
        if key == "fp8":
            raise SetupError("format", "fp8 has two formats; expected fp8-e4m3 (max 448) or fp8-e5m2 (max 57344)")
        values["format"] = key
    if "link" in given:
        key = _norm(given["link"])
        values["link"] = _LINK_ALIASES.get(key, key)
    if "doc_lengths" in given:
        values["doc_lengths"] = _lengths(given["doc_lengths"])
    if "seq" in given:
        values["seq"] = _integer("seq", given["seq"], k_suffix=True)
    return Extras(**values)  # type: ignore[arg-type]


def _no_model():
    from quizapp.memory.models import bare_model

    return bare_model(1, name="no model")


# The model of a setup that gives none (only extra inputs): every ask that needs a model refuses it
# (asks.check_ask: "model: missing; ..."), so it never stands in for a real model.
NO_MODEL = _no_model()
