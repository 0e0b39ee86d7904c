"""Does a breakdown fit a GPU? usable = capacity − reserve (CUDA context and allocator slack)."""

from __future__ import annotations

from dataclasses import dataclass

from quizapp.memory.breakdown import Breakdown
from quizapp.memory.gpus import GPU
from quizapp.memory.setup import SetupError, reserve_message

DEFAULT_RESERVE = 2**30  # 1 GiB, spec section 1


@dataclass(frozen=True)
class Fit:
    gpu: GPU
    capacity: int
    reserve: int
    usable: int
    fits: bool
    headroom: int | float  # usable − total; negative when it does not fit
    total: int | float


def fit(b: Breakdown, gpu: GPU, reserve: int = DEFAULT_RESERVE) -> Fit:
    if reserve >= gpu.capacity:
        raise SetupError("reserve", reserve_message(reserve, gpu))
    usable = gpu.capacity - reserve
    return Fit(gpu, gpu.capacity, reserve, usable, b.total <= usable, usable - b.total, b.total)
