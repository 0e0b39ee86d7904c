"""`Plural`: a phrase whose words depend on a count (kept apart so tables import it without a cycle)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plural:
    """A phrase whose words depend on the count `n`: English "1 day" / "2 days"."""

    one: str
    other: str

    def pick(self, n: object) -> str:
        return self.one if n == 1 else self.other
