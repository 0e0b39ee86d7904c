"""Data-pipeline asks: corpus tokens, MinHash LSH (Broder 1997; MMDS ch. 3.4), padding and packing."""

from __future__ import annotations

import math

import pytest

from quizapp.memory import SetupError, evaluate, setup_from_options


def _value(ask: str, **setup) -> float:
    return evaluate(setup_from_options(setup), ask)


def test_lsh_probability_of_the_mmds_example():
    # Mining of Massive Datasets 3.4.2: b = 20, r = 5, s = 0.8: 1 - (1 - 0.8^5)^20 = 0.99965
    value = _value("lsh_match_probability", similarity=0.8, bands=20, rows=5)
    assert value == pytest.approx(1 - (1 - 0.8**5) ** 20)
    assert value == pytest.approx(0.99965, abs=1e-5)  # MMDS rounds 0.8^5 to 0.328: 0.99965
    # and s = 0.3 almost never becomes a candidate: 1 - (1 - 0.3^5)^20 = 0.0475
    assert _value("lsh_match_probability", similarity=0.3, bands=20, rows=5) == pytest.approx(1 - (1 - 0.3**5) ** 20)


def test_corpus_tokens():
    # 1 TB of text at 4 bytes per token: 2.5e11 tokens
    assert _value("corpus_tokens", corpus_bytes="1 TB", bytes_per_token=4) == 1e12 / 4


def test_padding_waste_and_packing():
    docs = [300, 1200, 4096]
    # padded to 4096 each: (3*4096 - 5596) / (3*4096) = 0.5446; packed: ceil(5596 / 4096) = 2
    assert _value("padding_waste", doc_lengths=docs, seq=4096) == pytest.approx((3 * 4096 - 5596) / (3 * 4096))
    assert _value("packed_sequences", doc_lengths=docs, seq=4096) == math.ceil(5596 / 4096) == 2
    assert _value("packed_sequences", doc_lengths="512, 512, 1024", seq=1024) == 2  # the CLI's string form


@pytest.mark.parametrize("setup, ask, field", [
    ({"doc_lengths": [300, 1200]}, "padding_waste", "seq"),
    ({"doc_lengths": [300, 5000], "seq": 4096}, "padding_waste", "doc_lengths"),
    ({"doc_lengths": [300, 0], "seq": 4096}, "packed_sequences", "doc_lengths"),
    ({"doc_lengths": "a, b", "seq": 4096}, "packed_sequences", "doc_lengths"),
    ({"similarity": 0.8, "bands": 20}, "lsh_match_probability", "rows"),
    ({"similarity": 2, "bands": 20, "rows": 5}, "lsh_match_probability", "similarity"),
    ({"corpus_bytes": "1 TB"}, "corpus_tokens", "bytes_per_token"),
])
def test_bad_or_missing_keys_are_one_line_errors(setup, ask, field):
    with pytest.raises(SetupError) as err:
        evaluate(setup_from_options(setup), ask)
    assert err.value.field == field and "\n" not in str(err.value)
