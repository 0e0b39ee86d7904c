"""GPU presets (memory-model.md sections 8, 13, 14): capacities as the card reports them, links, fp8."""

from __future__ import annotations

import pytest

from quizapp.memory import GPUS, setup_from_options

MiB = 2**20


@pytest.mark.parametrize("name, mib", [("h200", 143_771), ("h100-80g", 81_559), ("a100-80g", 81_920)])
def test_capacities_as_the_card_reports_them(name, mib):
    # section 8's known captures
    assert GPUS[name].capacity == mib * MiB


def test_h200_is_about_140_gib():
    assert round(GPUS["h200"].capacity / 2**30, 1) == 140.4
    assert round(GPUS["h100-80g"].capacity / 2**30, 2) == 79.65


@pytest.mark.parametrize("name, gbps", [("a100-80g", 300), ("h100-80g", 450), ("h200", 450)])
def test_nvlink_per_gpu_per_direction(name, gbps):
    assert GPUS[name].nvlink == gbps * 10**9  # section 14


def test_pcie_cards_use_their_host_link():
    for name in ("rtx-4090", "l40s", "l4", "a10g", "t4", "h100-pcie"):
        assert GPUS[name].nvlink == GPUS[name].host_link


def test_new_presets_exist_with_fp8_where_the_card_has_it():
    for name in ("h100-pcie", "b200", "mi300x", "l4", "a10g", "t4"):
        assert name in GPUS
    assert GPUS["a100-80g"].fp8_tflops == 0 and GPUS["t4"].fp8_tflops == 0
    assert GPUS["h100-80g"].fp8_tflops == pytest.approx(2 * GPUS["h100-80g"].bf16_tflops, rel=0.01)


@pytest.mark.parametrize("text, name", [("H100-SXM", "h100-80g"), ("MI300", "mi300x"), ("A10", "a10g"),
                                        ("nvidia b200", "b200")])
def test_gpu_spellings(text, name):
    assert setup_from_options({"model": "7B", "gpu": text}).gpu is GPUS[name]


@pytest.mark.parametrize("name, mib", [
    # published nvidia-smi totals (modal-labs/modal-client PR 2797 lists A100 40GB, A10, L40S, L4, T4;
    # RTX 4090 from RLinf issue 255, RTX 3090 from club-3090's benches, B200 from TensorRT-LLM issue 10278)
    ("a100-40g", 40_960), ("a10g", 23_028), ("l40s", 46_068), ("l4", 23_034), ("t4", 15_360),
    ("rtx-4090", 24_564), ("rtx-3090", 24_576), ("b200", 183_359),
])
def test_other_cards_as_nvidia_smi_reports_them(name, mib):
    assert GPUS[name].capacity == mib * MiB
