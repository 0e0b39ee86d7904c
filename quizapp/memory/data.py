"""Data-pipeline arithmetic: corpus tokens, MinHash LSH near-duplicate detection, padding and packing.

- Tokens in a corpus = bytes / bytes per token (the tokenizer's measured compression on that text).
- MinHash LSH (Broder 1997, "On the resemblance and containment of documents"; Leskovec, Rajaraman
  and Ullman, "Mining of Massive Datasets", chapter 3.4): with b bands of r MinHash rows each, two
  documents of Jaccard similarity s share at least one band, and so become a candidate pair, with
  probability 1 − (1 − s^r)^b (MMDS's example: b = 20, r = 5, s = 0.8 gives 0.99965).
- Padding: each document of l_i tokens padded to seq S wastes S − l_i slots; the share of padded
  slots is Σ(S − l_i) / (n·S). Packing concatenates the documents (separator tokens ignored) into
  ⌈Σ l_i / S⌉ sequences of S tokens.
"""

from __future__ import annotations

import math

from quizapp.memory.derivation import Derivation, Step, num
from quizapp.memory.notes import note


def corpus_tokens(corpus_bytes: float, bytes_per_token: float) -> float:
    return corpus_bytes / bytes_per_token


def lsh_match_probability(similarity: float, bands: int, rows: int) -> float:
    """1 − (1 − s^r)^b: the chance a pair of Jaccard similarity s shares at least one of b bands."""
    return 1 - (1 - similarity**rows) ** bands


def padding_waste(doc_lengths: tuple[int, ...], seq: int) -> float:
    return sum(seq - n for n in doc_lengths) / (len(doc_lengths) * seq)


def packed_sequences(doc_lengths: tuple[int, ...], seq: int) -> int:
    return -(-sum(doc_lengths) // seq)


def derive_corpus(setup) -> Derivation:
    ask = "corpus_tokens"
    size, per = setup.extras.need("corpus_bytes", ask), setup.extras.need("bytes_per_token", ask)
    return Derivation(ask, (Step(ask, corpus_tokens(size, per), "count", "corpus_bytes / bytes_per_token",
                                 f"{num(size)} / {num(per)}", note("calc.extra.corpus")),))


def derive_lsh(setup) -> Derivation:
    ask = "lsh_match_probability"
    e = setup.extras
    s, b, r = e.need("similarity", ask), e.need("bands", ask), e.need("rows", ask)
    band = Step("lsh_band_match", s**r, "ratio", "s^r", f"{num(s)}^{r}", note("calc.extra.lsh_band"))
    last = Step(ask, lsh_match_probability(s, b, r), "ratio", "1 − (1 − s^r)^b", f"1 − (1 − {num(band.value)})^{b}",
                note("calc.extra.lsh"))
    return Derivation(ask, (band, last), (note("calc.extra.lsh_source"),))


def _documents(setup, ask: str) -> tuple[tuple[int, ...], int]:
    from quizapp.memory.setup import SetupError

    lengths = setup.extras.need("doc_lengths", ask)
    seq = setup.extras.seq
    if seq is None:
        raise SetupError("seq", f"missing; {ask} needs seq (the sequence length S every document is padded or "
                                "packed to), stated in the setup")
    longest = max(lengths)
    if ask == "padding_waste" and longest > seq:
        raise SetupError("doc_lengths", f"a document of {longest} tokens does not fit seq = {seq}; expected lengths "
                                        f"at most seq (padding does not split documents)")
    return lengths, seq


def _lengths_text(lengths: tuple[int, ...]) -> str:
    shown = " + ".join(num(n) for n in lengths[:8])
    return shown + (f" + … ({len(lengths)} documents)" if len(lengths) > 8 else "")


def derive_padding(setup) -> Derivation:
    ask = "padding_waste"
    lengths, seq = _documents(setup, ask)
    n, total = len(lengths), sum(lengths)
    tokens = Step("doc_tokens", float(total), "count", "Σ l_i", _lengths_text(lengths), note("calc.extra.doc_tokens"), "tokens")
    last = Step(ask, padding_waste(lengths, seq), "ratio", "(n·S − Σ l_i) / (n·S)",
                f"({n}·{num(seq)} − {num(total)}) / ({n}·{num(seq)})", note("calc.extra.padding"))
    return Derivation(ask, (tokens, last))


def derive_packing(setup) -> Derivation:
    ask = "packed_sequences"
    lengths, seq = _documents(setup, ask)
    total = sum(lengths)
    tokens = Step("doc_tokens", float(total), "count", "Σ l_i", _lengths_text(lengths), note("calc.extra.doc_tokens"), "tokens")
    last = Step(ask, float(packed_sequences(lengths, seq)), "count", "⌈Σ l_i / S⌉", f"⌈{num(total)} / {num(seq)}⌉",
                note("calc.extra.packing"))
    return Derivation(ask, (tokens, last))
