"""GPU presets (memory-model.md section 8): capacity, dense 16-bit tensor throughput, bandwidths.

Capacities are the nominal sizes the spec lists (GiB cards as 2^30 multiples, the H200 as 141 GB);
throughputs are dense (no 2:4 sparsity) bf16/fp16 tensor-core peaks with fp32 accumulation.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

GiB = 2**30
GB = 10**9

PCIE3_X16 = 16 * GB  # 15.75 GB/s per direction, rounded
PCIE4_X16 = 32 * GB  # 31.5 GB/s per direction, rounded
PCIE5_X16 = 64 * GB  # 63 GB/s per direction, rounded


@dataclass(frozen=True)
class GPU:
    name: str
    capacity: int  # bytes
    bf16_tflops: float  # dense 16-bit tensor TFLOP/s (fp16 for cards without bf16)
    mem_bandwidth: float  # bytes/s
    host_link: float  # bytes/s, one direction
    note: str


_GPU_LIST = (
    # NVIDIA Ampere GA102 whitepaper: RTX 3090 FP16/BF16 tensor with FP32 accumulate 71 TFLOPS dense;
    # 24 GB GDDR6X, 936 GB/s; PCIe 4.0 x16.
    GPU("rtx-3090", 24 * GiB, 71.0, 936 * GB, PCIE4_X16, "24 GiB GDDR6X, bf16 71 TFLOP/s (fp32 accumulate)"),
    # NVIDIA Ada Lovelace whitepaper (Appendix A): RTX 4090 FP16/BF16 tensor, FP32 accumulate, 165.2
    # TFLOPS dense; 24 GB GDDR6X, 1008 GB/s; PCIe 4.0 x16.
    GPU("rtx-4090", 24 * GiB, 165.2, 1008 * GB, PCIE4_X16, "24 GiB GDDR6X, bf16 165.2 TFLOP/s (fp32 accumulate)"),
    # NVIDIA V100 datasheet: SXM2 32 GB, 125 TFLOPS fp16 tensor (no bf16), 900 GB/s; PCIe 3.0 to the host.
    GPU("v100-32g", 32 * GiB, 125.0, 900 * GB, PCIE3_X16, "32 GiB HBM2, fp16 only, 125 TFLOP/s"),
    # NVIDIA A100 datasheet: 312 TFLOPS bf16 dense; 40 GB HBM2 1555 GB/s; PCIe 4.0.
    GPU("a100-40g", 40 * GiB, 312.0, 1555 * GB, PCIE4_X16, "40 GiB HBM2, bf16 312 TFLOP/s"),
    # NVIDIA A100 datasheet: 80 GB HBM2e SXM 2039 GB/s, 312 TFLOPS bf16 dense; PCIe 4.0.
    GPU("a100-80g", 80 * GiB, 312.0, 2039 * GB, PCIE4_X16, "80 GiB HBM2e, bf16 312 TFLOP/s"),
    # NVIDIA L40S datasheet: 48 GB GDDR6, 864 GB/s, bf16 362.05 TFLOPS dense (733 with sparsity); PCIe 4.0.
    GPU("l40s", 48 * GiB, 362.05, 864 * GB, PCIE4_X16, "48 GiB GDDR6, bf16 362 TFLOP/s"),
    # NVIDIA H100 datasheet (SXM5): 80 GB HBM3, 3.35 TB/s, bf16 989.4 TFLOPS dense (1979 sparse); PCIe 5.0.
    GPU("h100-80g", 80 * GiB, 989.4, 3350 * GB, PCIE5_X16, "80 GiB HBM3 (SXM), bf16 989 TFLOP/s"),
    # NVIDIA H200 datasheet (SXM): 141 GB HBM3e, 4.8 TB/s, bf16 989.4 TFLOPS dense (same die as H100);
    # PCIe 5.0. The spec lists it as 141 GB (10^9); nvidia-smi shows 143771 MiB on the SXM card.
    GPU("h200", 141 * GB, 989.4, 4800 * GB, PCIE5_X16, "141 GB HBM3e, bf16 989 TFLOP/s"),
)

GPUS: Mapping[str, GPU] = MappingProxyType({g.name: g for g in _GPU_LIST})

# Common spellings that name exactly one preset.
GPU_ALIASES: Mapping[str, str] = MappingProxyType(
    {
        "3090": "rtx-3090",
        "4090": "rtx-4090",
        "v100": "v100-32g",
        "l40s-48g": "l40s",
        "h100": "h100-80g",
        "h200-141g": "h200",
    }
)
