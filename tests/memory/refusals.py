"""What every refused calculator input must look like (the junk fuzzers of test_setup and
test_properties_modern): a real setting named, what was expected, on one line."""

from __future__ import annotations

from hypothesis import event

from quizapp.memory import OPTION_KEYS

KNOWN_FIELDS = {*OPTION_KEYS, "model", "ask"}


def check_refusal(refused) -> None:
    assert refused.field in KNOWN_FIELDS, refused.field
    assert refused.message and "\n" not in str(refused) and str(refused).startswith(refused.field + ": ")
    event("refused")
