"""GPU arithmetic from first principles: the peak from SMs and clocks, HBM bandwidth from the bus,
bytes in flight (Little's law) and transfer times over PCIe or NVLink.

- Peak FLOP/s = SMs × clock × FLOPs per clock per SM (NVIDIA H100 Tensor Core GPU Architecture
  whitepaper: H100 SXM5 has 132 SMs at a 1.83 GHz boost for the tensor peak, and each SM's four
  tensor cores do 512 dense FP16/BF16 FMAs per clock each: 4,096 FLOPs per clock per SM, so
  132 × 1.83e9 × 4,096 = 989.4 TFLOP/s, the datasheet's dense bf16 peak).
- HBM bandwidth = bus width (bits) × data rate per pin (Gb/s) / 8 (JEDEC JESD238 HBM3: a 1,024-bit
  stack at 6.4 Gb/s per pin moves 819.2 GB/s).
- Bytes in flight = bandwidth × latency (Little's law: to keep a memory system at its bandwidth,
  that many bytes must be requested and not yet returned).
- A transfer takes bytes / link bandwidth. PCIe rates per direction (PCI-SIG, PCI Express Base
  Specification): 8, 16 and 32 GT/s per lane for Gen 3, 4 and 5, all with 128b/130b encoding, so an
  x16 link moves 16 × rate × 128/130 / 8 bytes/s: 15.75, 31.5 and 63.0 GB/s. NVLink: the GPU preset's
  per-direction figure (H100 450 GB/s of its 900 GB/s bidirectional; B200 900 of 1.8 TB/s).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from quizapp.memory.derivation import Derivation, Step, num
from quizapp.memory.notes import note

PCIE_GT_PER_S: Mapping[str, float] = MappingProxyType({"pcie3": 8e9, "pcie4": 16e9, "pcie5": 32e9})
PCIE_LANES = 16
PCIE_ENCODING = 128 / 130  # 128b/130b (Gen 3 to Gen 5)


def pcie_bandwidth(link: str, lanes: int = PCIE_LANES) -> float:
    """Bytes/s per direction of a PCIe link: lanes × GT/s × 128/130 / 8."""
    return lanes * PCIE_GT_PER_S[link] * PCIE_ENCODING / 8


def sm_peak_flops(sms: int, clock_hz: float, flops_per_clock_per_sm: float) -> float:
    return sms * clock_hz * flops_per_clock_per_sm


def hbm_bandwidth(bus_bits: int, gbps_per_pin: float) -> float:
    """Bytes/s: bus_bits × Gb/s per pin / 8."""
    return bus_bits * gbps_per_pin * 1e9 / 8


def bytes_in_flight(bandwidth: float, latency_s: float) -> float:
    return bandwidth * latency_s


def _setup_error(field: str, message: str):
    from quizapp.memory.setup import SetupError

    return SetupError(field, message)


def _from_preset(setup, name: str, ask: str):
    """An extra input, or the GPU preset's value of it, or a one-line error naming both."""
    value = getattr(setup.extras, name)
    if value is not None:
        return value, False
    gpu = setup.gpu
    preset = getattr(gpu, name, 0) if gpu is not None else 0
    if preset:
        return preset, True
    where = f"the gpu preset {gpu.name} carries no {name}" if gpu is not None else "or a gpu preset that carries it"
    raise _setup_error(name, f"missing; {ask} needs {name} ({_what(name)}); {where}")


def _what(name: str) -> str:
    from quizapp.memory.extras import EXTRA_KEYS

    return EXTRA_KEYS[name]


def derive_sm_peak(setup) -> Derivation:
    ask = "sm_peak_flops"
    sms, p1 = _from_preset(setup, "sms", ask)
    clock, p2 = _from_preset(setup, "clock_ghz", ask)
    per_sm, p3 = _from_preset(setup, "flops_per_clock_per_sm", ask)
    value = sm_peak_flops(sms, clock * 1e9, per_sm)
    preset = setup.gpu.name if (p1 or p2 or p3) else ""
    return Derivation(ask, (Step(ask, value, "flops", "SMs × clock × FLOPs per clock per SM",
                                 f"{num(sms)} × {num(clock)}e9 × {num(per_sm)}",
                                 note("calc.extra.sm_peak", preset=preset) if preset else note("calc.extra.sm_peak_given")),),
                      (note("calc.extra.sm_peak_source"),))


def derive_hbm(setup) -> Derivation:
    ask = "hbm_bandwidth"
    bits, rate = setup.extras.need("bus_bits", ask), setup.extras.need("gbps_per_pin", ask)
    return Derivation(ask, (Step(ask, hbm_bandwidth(bits, rate), "bandwidth", "bus_bits × Gb/s per pin / 8",
                                 f"{num(bits)} × {num(rate)}e9 / 8", note("calc.extra.hbm")),))


def memory_bandwidth(setup, ask: str) -> tuple[float, str]:
    """The stated `bandwidth`, else the GPU preset's HBM bandwidth; and where it came from."""
    if setup.extras.bandwidth is not None:
        return setup.extras.bandwidth, ""
    if setup.gpu is None:
        raise _setup_error("bandwidth", f"missing; {ask} needs bandwidth ({_what('bandwidth')}) or a gpu preset")
    return setup.gpu.mem_bandwidth, setup.gpu.name


def derive_in_flight(setup) -> Derivation:
    ask = "bytes_in_flight"
    bandwidth, preset = memory_bandwidth(setup, ask)
    latency = setup.extras.need("latency_ns", ask)
    source = note("calc.extra.bandwidth_preset", gpu=preset) if preset else note("calc.extra.bandwidth_given")
    bw = Step("bandwidth", bandwidth, "bandwidth", "bandwidth", num(bandwidth), source)
    last = Step(ask, bytes_in_flight(bandwidth, latency * 1e-9), "bytes", "bandwidth × latency",
                f"{num(bandwidth)} × {num(latency)}e-9", note("calc.extra.little"))
    return Derivation(ask, (bw, last))


def link_rate(setup, ask: str) -> Step:
    """The link's bytes/s per direction as a step: link_bandwidth (an achieved rate) over the named
    link's line rate; `link: nvlink` takes the GPU preset's per-direction NVLink."""
    e = setup.extras
    if setup.link_bandwidth is not None:
        return Step("link_bandwidth", setup.link_bandwidth, "bandwidth", "link_bandwidth", num(setup.link_bandwidth),
                    note("calc.extra.link_given"))
    if e.link is None:
        raise _setup_error("link", f"missing; {ask} needs link ({_what('link')}) or link_bandwidth (bytes/s)")
    if e.link == "nvlink":
        if setup.gpu is None:
            raise _setup_error("gpu", f"link nvlink is the GPU's NVLink; {ask} needs a gpu preset with it")
        return Step("link_bandwidth", setup.gpu.nvlink, "bandwidth", "NVLink per direction", num(setup.gpu.nvlink),
                    note("calc.extra.link_nvlink", gpu=setup.gpu.name))
    rate = PCIE_GT_PER_S[e.link]
    return Step("link_bandwidth", pcie_bandwidth(e.link), "bandwidth", "lanes × GT/s × 128/130 / 8",
                f"{PCIE_LANES} × {num(rate)} × 128/130 / 8", note("calc.extra.link_pcie", link=e.link))


def derive_transfer(setup) -> Derivation:
    ask = "transfer_s"
    size = setup.extras.need("transfer_bytes", ask)
    link = link_rate(setup, ask)
    return Derivation(ask, (link, Step(ask, size / link.value, "seconds", "transfer_bytes / link_bandwidth",
                                       f"{num(size)} / {num(link.value)}", note("calc.extra.transfer"))))
