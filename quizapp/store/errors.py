"""The one exception the store raises: a one-line message that names the database file."""

from __future__ import annotations


class StoreError(Exception):
    """The database cannot be used as asked (bad file, newer schema, unknown card, locked too long).

    str(e) is one line, starting with the database path, fit to print as `quizapp: <message>`.
    """


def database_error(path: object, exc: Exception) -> StoreError:
    """The StoreError for a failed database operation: the file and the driver's first line."""
    reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
    return StoreError(f"{path}: database error: {reason}")
