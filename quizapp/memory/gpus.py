"""GPU presets (memory-model.md sections 8, 13, 14): capacity, peak throughput, bandwidths, links.

Capacities are what the card reports (the total `nvidia-smi` / `torch.cuda.mem_get_info()` shows,
`rocm-smi` for AMD), not the marketing size: "80 GB" H100s report 81,559 MiB (79.65 GiB), the
"141 GB" H200 143,771 MiB. Throughputs are dense (no 2:4 sparsity) tensor-core peaks with fp32
accumulation. `nvlink` is the GPU-to-GPU bandwidth per GPU in one direction (NVLink or Infinity
Fabric; PCIe cards: their host link), what communication times divide by.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

MiB = 2**20
GiB = 2**30
GB = 10**9

PCIE3_X16 = 16 * GB  # 15.75 GB/s per direction, rounded
PCIE4_X16 = 32 * GB  # 31.5 GB/s per direction, rounded
PCIE5_X16 = 64 * GB  # 63 GB/s per direction, rounded


@dataclass(frozen=True)
class GPU:
    name: str
    capacity: int  # bytes, as the card reports it
    bf16_tflops: float  # dense 16-bit tensor TFLOP/s (fp16 for cards without bf16)
    mem_bandwidth: float  # bytes/s
    host_link: float  # bytes/s, one direction
    note: str
    nvlink: float = 0.0  # bytes/s per GPU, one direction, to the other GPUs; 0 = use host_link
    fp8_tflops: float = 0.0  # dense fp8 tensor TFLOP/s; 0 = the card has no fp8 tensor cores
    fp32_tflops: float = 0.0  # dense FP32 TFLOP/s on the CUDA cores (non-tensor; no TF32); kernel rooflines
    fp4_tflops: float = 0.0  # dense fp4 tensor TFLOP/s; 0 = no fp4 tensor cores (Blackwell has them)
    # the bf16 peak from first principles (hardware.py's sm_peak_flops): SMs (AMD: compute units), the
    # clock the datasheet peak is quoted at, dense bf16 tensor FLOPs per clock per SM; 0 = not published
    sms: int = 0
    clock_ghz: float = 0.0
    flops_per_clock_per_sm: float = 0.0

    def __post_init__(self) -> None:
        if not self.nvlink:
            object.__setattr__(self, "nvlink", self.host_link)


_GPU_LIST = (
    # NVIDIA Ampere GA102 whitepaper: RTX 3090 FP16/BF16 tensor with FP32 accumulate 71 TFLOPS dense, no
    # fp8; 24 GB GDDR6X, 936 GB/s; PCIe 4.0 x16. nvidia-smi: 24576 MiB (captures in noonghunna/club-3090 issues).
    GPU("rtx-3090", 24576 * MiB, 71.0, 936 * GB, PCIE4_X16, "24 GB GDDR6X (24,576 MiB), bf16 71 TFLOP/s (fp32 accumulate)",
        fp32_tflops=35.6),  # Ampere GA102 whitepaper: Peak FP32 TFLOPS (non-Tensor) 35.6
    # NVIDIA Ada Lovelace whitepaper (Appendix A): RTX 4090 FP16/BF16 tensor, FP32 accumulate, 165.2
    # TFLOPS dense; FP8 with FP32 accumulate 330.3 dense; 24 GB GDDR6X, 1008 GB/s; PCIe 4.0 x16.
    # nvidia-smi: 24564 MiB (capture in RLinf/RLinf issue 255).
    GPU("rtx-4090", 24564 * MiB, 165.2, 1008 * GB, PCIE4_X16, "24 GB GDDR6X (24,564 MiB), bf16 165.2 TFLOP/s (fp32 accumulate)",
        fp8_tflops=330.3,
        fp32_tflops=82.6),  # Ada Lovelace whitepaper (Appendix A): Peak FP32 TFLOPS (non-Tensor) 82.6
    # NVIDIA V100 datasheet: SXM2 32 GB, 125 TFLOPS fp16 tensor (no bf16, no fp8), 900 GB/s; NVLink 2
    # 300 GB/s bidirectional (150 per direction); PCIe 3.0 to the host. Capacity: 32 GiB (nominal).
    GPU("v100-32g", 32 * GiB, 125.0, 900 * GB, PCIE3_X16, "32 GiB HBM2, fp16 only, 125 TFLOP/s", nvlink=150 * GB,
        fp32_tflops=15.7),  # V100 datasheet: single-precision (SXM2) 15.7 TFLOPS
    # NVIDIA A100 datasheet: 312 TFLOPS bf16 dense, no fp8; 40 GB HBM2 1555 GB/s; NVLink 3 600 GB/s
    # bidirectional (300 per direction); PCIe 4.0. nvidia-smi: 40960 MiB (modal-labs/modal-client PR 2797).
    # A100 whitepaper: 108 SMs, 1410 MHz boost, 4 tensor cores per SM x 256 dense FP16 FMA per clock =
    # 2,048 FLOPs per clock per SM (108 x 1.41e9 x 2048 = 311.9 TFLOP/s).
    GPU("a100-40g", 40960 * MiB, 312.0, 1555 * GB, PCIE4_X16, "40 GB HBM2 (40,960 MiB), bf16 312 TFLOP/s", nvlink=300 * GB,
        fp32_tflops=19.5,  # A100 datasheet: FP32 19.5 TFLOPS
        sms=108, clock_ghz=1.41, flops_per_clock_per_sm=2048),
    # NVIDIA A100 datasheet: 80 GB HBM2e SXM 2039 GB/s, 312 TFLOPS bf16 dense; NVLink 300 GB/s per
    # direction; PCIe 4.0. nvidia-smi (A100-SXM4-80GB): 81920 MiB (spec section 8).
    GPU("a100-80g", 81920 * MiB, 312.0, 2039 * GB, PCIE4_X16, "80 GB HBM2e (81,920 MiB), bf16 312 TFLOP/s", nvlink=300 * GB,
        fp32_tflops=19.5,  # A100 datasheet: FP32 19.5 TFLOPS
        sms=108, clock_ghz=1.41, flops_per_clock_per_sm=2048),  # A100 whitepaper (as a100-40g)
    # NVIDIA L40S datasheet: 48 GB GDDR6, 864 GB/s, bf16 362.05 TFLOPS dense (733 with sparsity), fp8
    # 733 dense (1466 sparse); PCIe 4.0, no NVLink. nvidia-smi: 46068 MiB (akash-network/provider-configs
    # PR 99; modal-labs/modal-client PR 2797).
    GPU("l40s", 46068 * MiB, 362.05, 864 * GB, PCIE4_X16, "48 GB GDDR6 (46,068 MiB), bf16 362 TFLOP/s", fp8_tflops=733.0,
        fp32_tflops=91.6),  # L40S datasheet: FP32 91.6 TFLOPS
    # NVIDIA H100 datasheet (SXM5): 80 GB HBM3, 3.35 TB/s, bf16 989.4 TFLOPS dense (1979 sparse), fp8
    # 1978.9 dense; NVLink 4 900 GB/s bidirectional (450 per direction); PCIe 5.0.
    # nvidia-smi (H100 80GB HBM3): 81559 MiB (spec section 8).
    GPU("h100-80g", 81559 * MiB, 989.4, 3350 * GB, PCIE5_X16, "80 GB HBM3 SXM (81,559 MiB), bf16 989 TFLOP/s",
        nvlink=450 * GB, fp8_tflops=1978.9,
        fp32_tflops=67.0,  # H100 datasheet (SXM): FP32 67 TFLOPS
        # H100 whitepaper: SXM5 132 SMs, 1.83 GHz for the tensor peak, 4 tensor cores per SM x 512 dense
        # FP16/BF16 FMA per clock = 4,096 FLOPs per clock per SM (132 x 1.83e9 x 4096 = 989.4 TFLOP/s)
        sms=132, clock_ghz=1.83, flops_per_clock_per_sm=4096),
    # NVIDIA H100 datasheet (PCIe): 80 GB HBM2e, 2.0 TB/s, bf16 756 TFLOPS dense (1513 sparse), fp8
    # 1513 dense; PCIe 5.0 x16 (the NVLink bridge pairs two cards only: the host link is used).
    # nvidia-smi: 81559 MiB like the SXM card (assumed: same 80 GB of HBM; no PCIe capture checked).
    GPU("h100-pcie", 81559 * MiB, 756.0, 2000 * GB, PCIE5_X16, "80 GB HBM2e PCIe (81,559 MiB), bf16 756 TFLOP/s",
        fp8_tflops=1513.0,
        fp32_tflops=51.0),  # H100 datasheet (PCIe): FP32 51 TFLOPS
    # NVIDIA H200 datasheet (SXM): 141 GB HBM3e, 4.8 TB/s, bf16 989.4 TFLOPS dense (same die as H100), fp8
    # 1978.9; NVLink 450 GB/s per direction; PCIe 5.0. nvidia-smi (H200): 143771 MiB (spec section 8).
    GPU("h200", 143771 * MiB, 989.4, 4800 * GB, PCIE5_X16, "141 GB HBM3e (143,771 MiB), bf16 989 TFLOP/s",
        nvlink=450 * GB, fp8_tflops=1978.9,
        fp32_tflops=67.0,  # H200 datasheet (SXM): FP32 67 TFLOPS
        sms=132, clock_ghz=1.83, flops_per_clock_per_sm=4096),  # the H100 SXM5 die (same 989.4 TFLOP/s)
    # NVIDIA HGX B200 datasheet: 180 GB HBM3e per GPU, 8 TB/s, bf16 2.25 PFLOPS dense (4.5 sparse), fp8
    # 4.5 PFLOPS dense; NVLink 5 1.8 TB/s bidirectional (900 GB/s per direction); PCIe 5.0 to the host.
    # (Measured bus width gives 7.68 TB/s: pytorch/ao PR 4002.) nvidia-smi: 183359 MiB (NVIDIA/TensorRT-LLM
    # issue 10278).
    GPU("b200", 183359 * MiB, 2250.0, 8000 * GB, PCIE5_X16, "180 GB HBM3e (183,359 MiB), bf16 2250 TFLOP/s",
        nvlink=900 * GB, fp8_tflops=4500.0,
        fp32_tflops=75.0,  # HGX B200 datasheet, per GPU: FP32 75 TFLOPS
        fp4_tflops=9000.0),  # HGX B200 datasheet: FP4 tensor 144 PFLOPS per 8 GPUs with sparsity = 9 dense per GPU
    # AMD Instinct MI300X datasheet: 192 GB HBM3, 5.3 TB/s, bf16 1307.4 TFLOPS dense, fp8 2614.9 dense;
    # Infinity Fabric 896 GB/s aggregate bidirectional (448 per direction); PCIe 5.0.
    # rocminfo: the GPU's global pool is 201,310,208 KiB = 206,141,652,992 bytes (191.98 GiB;
    # ROCm/legacy-rocm-build issue 4414; 8 x the 25,767,706,624-byte CPX partitions of issue 4750).
    GPU("mi300x", 201_310_208 * 1024, 1307.4, 5300 * GB, PCIE5_X16, "192 GB HBM3 (191.98 GiB), bf16 1307 TFLOP/s",
        nvlink=448 * GB, fp8_tflops=2614.9,
        fp32_tflops=163.4,  # AMD Instinct MI300X datasheet: FP32 vector 163.4 TFLOPS
        # 304 compute units (ROCm docs, "AMD Instinct MI300 series microarchitecture"), 2,100 MHz peak engine
        # clock (MI300X datasheet); per CU per clock = the datasheet peak / (304 x 2.1e9) = 2,048 dense FP16/BF16
        # FLOPs (304 x 2.1e9 x 2048 = 1307.4 TFLOP/s)
        sms=304, clock_ghz=2.1, flops_per_clock_per_sm=2048),
    # NVIDIA L4 datasheet: 24 GB GDDR6, 300 GB/s, bf16 121 TFLOPS dense (242 sparse), fp8 242.5 dense
    # (485 sparse); PCIe 4.0 x16. nvidia-smi: 23034 MiB (speaches-ai/speaches PR 438; modal-client PR 2797).
    GPU("l4", 23034 * MiB, 121.0, 300 * GB, PCIE4_X16, "24 GB GDDR6 (23,034 MiB), bf16 121 TFLOP/s", fp8_tflops=242.5,
        fp32_tflops=30.3),  # L4 datasheet: FP32 30.3 TFLOPS
    # NVIDIA A10 datasheet (AWS's A10G has no public datasheet; the A10's figures): 24 GB GDDR6, 600 GB/s,
    # bf16 125 TFLOPS dense (250 sparse), no fp8; PCIe 4.0 x16. nvidia-smi (A10G on g5 instances): 23028 MiB
    # (NVIDIA/DCGM issue 232).
    GPU("a10g", 23028 * MiB, 125.0, 600 * GB, PCIE4_X16, "24 GB GDDR6 (23,028 MiB), bf16 125 TFLOP/s (A10 datasheet)",
        fp32_tflops=31.2),  # A10 datasheet: FP32 31.2 TFLOPS
    # NVIDIA T4 datasheet: 16 GB GDDR6, 320 GB/s, fp16 tensor 65 TFLOPS (no bf16, no fp8); PCIe 3.0 x16.
    # nvidia-smi: 15360 MiB (modal-labs/modal-client PR 2797).
    GPU("t4", 15360 * MiB, 65.0, 320 * GB, PCIE3_X16, "16 GB GDDR6 (15,360 MiB), fp16 only, 65 TFLOP/s",
        fp32_tflops=8.1),  # T4 datasheet: single-precision 8.1 TFLOPS
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
        "h100-sxm": "h100-80g",
        "h100-sxm5": "h100-80g",
        "h200-141g": "h200",
        "h200-sxm": "h200",
        "b200-180g": "b200",
        "mi300": "mi300x",
        "l4-24g": "l4",
        "a10": "a10g",
        "t4-16g": "t4",
    }
)
