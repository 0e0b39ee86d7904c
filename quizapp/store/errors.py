"""The one exception the store raises: a one-line message that names the database file."""

from __future__ import annotations


class StoreError(Exception):
    """The database cannot be used as asked (bad file, newer schema, unknown card, locked too long).

    str(e) is one line, starting with the database path, fit to print as `quizapp: <message>`.
    """
