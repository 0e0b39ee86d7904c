"""Audit fixes in calculator input errors: did-you-mean by prefix, reserve vs capacity, count range."""

from __future__ import annotations

import pytest

from quizapp.cli import main
from quizapp.memory import GPUS, PRESETS, SetupError, breakdown, fit, setup_from_options
from quizapp.memory.models import CountRangeError, parse_count


def _error(options) -> SetupError:
    with pytest.raises(SetupError) as info:
        setup_from_options(options)
    return info.value


def test_gpu_prefix_suggests_every_card_of_that_name_not_the_closest_spelling():
    err = _error({"model": "7B", "gpu": "a100"})
    assert err.field == "gpu"
    suggestion = err.message.split("did you mean", 1)[1]
    expected = [name for name in GPUS if name.startswith("a100")]
    assert len(expected) == 2
    assert all(name in suggestion for name in expected)
    assert "v100" not in suggestion


def test_model_prefix_suggests_the_family():
    err = _error({"model": "llama-2"})
    suggestion = err.message.split("did you mean", 1)[1]
    for name in (n for n in PRESETS if n.startswith("llama-2-")):
        assert name in suggestion
    assert "llama-3" not in suggestion


def test_model_with_a_suffix_suggests_the_preset_it_contains():
    assert "did you mean llama-2-7b?" in _error({"model": "llama-2-7b-hf"}).message


def test_typo_still_falls_back_to_the_closest_spelling():
    assert "did you mean llama-2-7b?" in _error({"model": "lama-2-7b"}).message


@pytest.mark.parametrize("gpu", list(GPUS))
def test_reserve_at_capacity_is_rejected(gpu):
    capacity = GPUS[gpu].capacity
    err = _error({"model": "7B", "gpu": gpu, "reserve": capacity})
    assert err.field == "reserve" and "capacity" in err.message
    setup_from_options({"model": "7B", "gpu": gpu, "reserve": capacity - 1})  # just below is fine


def test_fit_rejects_a_reserve_above_capacity():
    b = breakdown(setup_from_options({"model": "7B"}))
    gpu = GPUS["rtx-4090"]
    with pytest.raises(SetupError) as info:
        fit(b, gpu, reserve=gpu.capacity + 1)
    assert info.value.field == "reserve"


@pytest.mark.parametrize("text", ["1e30", "1e17", 1e30, "0", "0.4", "-5B", "-5", -7e9])
def test_out_of_range_counts_say_so(text):
    with pytest.raises(CountRangeError):
        parse_count(text)
    err = _error({"model": text})
    assert err.field == "model"
    assert "unknown model" not in err.message
    assert "10^16" in err.message and "1 to" in err.message
    if str(text).startswith("-"):
        assert "negative" in err.message


def test_largest_count_is_accepted():
    assert parse_count("1e16") == 10**16


@pytest.mark.parametrize(
    "argv, fragments",
    [
        (["--model", "7B", "--gpu", "a100"], ["--gpu", "a100-40g", "a100-80g"]),
        (["--model", "1e30"], ["--model", "out of range", "1 to 10^16"]),
        (["--model=-5B"], ["--model", "negative"]),
        (["--model", "7B", "--gpu", "rtx-4090", "--reserve", "24GiB"], ["--reserve", "capacity"]),
        (["--model", "7B", "--gpu", "rtx-4090", "--reserve", "30GB"], ["--reserve", "capacity"]),
    ],
)
def test_cli_errors_are_one_line_exit_2(capsys, argv, fragments):
    assert main(["calc", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("quizapp: ") and err.count("\n") == 1
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err
    assert "v100" not in err.split("did you mean", 1)[-1] if "did you mean" in err else True
