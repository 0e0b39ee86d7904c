"""GPU arithmetic: SM peak, HBM bandwidth, bytes in flight, PCIe/NVLink transfers; and the presets' figures."""

from __future__ import annotations

import pytest

from quizapp.memory import GPUS, SetupError, evaluate, setup_from_options


def _value(ask: str, **setup) -> float:
    return evaluate(setup_from_options(setup), ask)


def test_sm_peak_is_the_h100_datasheet_bf16_peak():
    # H100 whitepaper: 132 SMs x 1.83 GHz x (4 tensor cores x 512 FMA x 2) = 989.43 TFLOP/s (datasheet 989.4)
    given = _value("sm_peak_flops", sms=132, clock_ghz=1.83, flops_per_clock_per_sm=4096)
    assert given == pytest.approx(132 * 1.83e9 * 4096)
    assert given / 1e12 == pytest.approx(989.4, abs=0.05)


def test_sm_peak_takes_what_the_setup_leaves_out_from_the_preset():
    # A100: 108 SMs x 1.41 GHz x 2,048 = 311.87 TFLOP/s (datasheet 312); the given SM count wins
    assert _value("sm_peak_flops", gpu="a100-80g", sms=108) == pytest.approx(108 * 1.41e9 * 2048)
    assert _value("sm_peak_flops", gpu="h100", sms=114) == pytest.approx(114 * 1.83e9 * 4096)


@pytest.mark.parametrize("name", [n for n, g in GPUS.items() if g.sms])
def test_every_preset_with_an_sm_count_reproduces_its_datasheet_peak(name):
    g = GPUS[name]
    assert g.sms * g.clock_ghz * 1e9 * g.flops_per_clock_per_sm / 1e12 == pytest.approx(g.bf16_tflops, rel=1e-3)


def test_b200_preset_rates():
    # HGX B200 datasheet (8 GPUs, with sparsity): FP4 144, FP8 72, BF16 36 PFLOPS -> per GPU dense 9, 4.5, 2.25
    b = GPUS["b200"]
    assert (b.fp4_tflops, b.fp8_tflops, b.bf16_tflops) == (144e3 / 8 / 2, 72e3 / 8 / 2, 36e3 / 8 / 2)
    assert b.nvlink == 1.8e12 / 2  # NVLink 5: 1.8 TB/s bidirectional
    assert b.mem_bandwidth == 8e12


def test_hbm_bandwidth_of_a_jedec_hbm3_stack():
    # JESD238 HBM3: 1,024-bit interface at 6.4 Gb/s per pin = 819.2 GB/s per stack
    assert _value("hbm_bandwidth", bus_bits=1024, gbps_per_pin=6.4) == pytest.approx(1024 * 6.4e9 / 8)
    assert _value("hbm_bandwidth", bus_bits=1024, gbps_per_pin=6.4) == pytest.approx(819.2e9)


def test_bytes_in_flight_is_littles_law():
    # H100 SXM 3.35 TB/s x 600 ns = 2.01 MB must be outstanding
    assert _value("bytes_in_flight", gpu="h100", latency_ns=600) == pytest.approx(3.35e12 * 600e-9)
    assert _value("bytes_in_flight", bandwidth="2 TB/s", latency_ns=500) == pytest.approx(2e12 * 500e-9)


def test_pcie_transfer_at_the_pci_sig_line_rate():
    # PCIe 4.0: 16 GT/s x 16 lanes x 128/130 / 8 = 31.51 GB/s per direction; 10 GB takes 0.317 s
    assert _value("transfer_s", transfer_bytes="10 GB", link="pcie4") == pytest.approx(10e9 / (16 * 16e9 * 128 / 130 / 8))
    # PCIe 5.0: 63.02 GB/s; Gen 3: 15.75 GB/s
    assert _value("transfer_s", transfer_bytes="63 GB", link="pcie5") == pytest.approx(63e9 / (16 * 32e9 * 128 / 130 / 8))
    assert _value("transfer_s", transfer_bytes="1 GB", link="gen3") == pytest.approx(1e9 / (16 * 8e9 * 128 / 130 / 8))


def test_nvlink_transfer_uses_the_presets_per_direction_rate_and_an_achieved_rate_wins():
    # H100 NVLink 4: 900 GB/s bidirectional = 450 GB/s one way; 45 GB takes 0.1 s
    assert _value("transfer_s", transfer_bytes="45 GB", link="nvlink", gpu="h100") == pytest.approx(45e9 / 450e9)
    assert _value("transfer_s", transfer_bytes="45 GB", link="nvlink", gpu="h100", link_bandwidth="300 GB/s") == \
        pytest.approx(45e9 / 300e9)


@pytest.mark.parametrize("setup, ask, field", [
    ({"transfer_bytes": "1 GB"}, "transfer_s", "link"),
    ({"transfer_bytes": "1 GB", "link": "nvlink"}, "transfer_s", "gpu"),
    ({"transfer_bytes": "1 GB", "link": "pcie7"}, "transfer_s", "link"),
    ({"bus_bits": 1024}, "hbm_bandwidth", "gbps_per_pin"),
    ({"latency_ns": 600}, "bytes_in_flight", "bandwidth"),
    ({"sms": 58, "gpu": "l4"}, "sm_peak_flops", "clock_ghz"),
    ({"latency_ns": -3, "gpu": "h100"}, "bytes_in_flight", "latency_ns"),
])
def test_bad_or_missing_keys_are_one_line_errors(setup, ask, field):
    with pytest.raises(SetupError) as err:
        evaluate(setup_from_options(setup), ask)
    assert err.value.field == field and "\n" not in str(err.value)


def test_the_link_key_changes_no_communication_ask():
    base = {"model": "llama-2-7b", "gpus": 8, "gpu": "h100"}
    assert evaluate(setup_from_options(base), "comm_total_s") == \
        evaluate(setup_from_options({**base, "link": "pcie4", "transfer_bytes": "1 GB"}), "comm_total_s")
