"""What the spaced-repetition commands share: opening the database (read-only when they only read),
the question bank's search index, and the words of a search error. Imports only inside functions."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path


def database_path(options) -> Path:
    from quizapp import locations

    return Path(options.db_path).expanduser() if options.db_path else locations.default_db_path()


@contextmanager
def _opened(open_it):
    """The Store `open_it()` returns, closed afterwards; a StoreError (but NoHistory) is a CliError line."""
    from quizapp.cli import CliError
    from quizapp.store import StoreError

    try:
        store = open_it()
    except StoreError as exc:
        if type(exc).__name__ == "NoHistory":
            raise
        raise CliError(str(exc)) from None
    try:
        yield store
    except StoreError as exc:
        raise CliError(str(exc)) from None
    finally:
        store.close()


def open_store(options, *, read_only: bool):
    """A Store on the user's database with the stored settings; CliError (one line) when it cannot open.

    read_only: nothing is created or changed (commands that only read); a missing database raises
    NoHistory (a StoreError), which callers turn into an empty answer.
    """
    from quizapp.clock import SystemClock
    from quizapp.store import Store

    return _opened(lambda: Store.open(database_path(options), SystemClock(), read_only=read_only))


def open_view(options, bank):
    """A read-only Store that sees the bank's cards as the app would (Store.open_view): before the app
    has ever run, every card is new; afterwards the counts agree with Home's. Nothing is written, and a
    missing database is not created (`store.has_history` is then False). CliError (one line) when the
    database cannot be read."""
    from quizapp.clock import SystemClock
    from quizapp.store import Store

    return _opened(lambda: Store.open_view(database_path(options), SystemClock(), bank.cards()))


def load_bank(options):
    """The bank the app uses (the --content folders, else the bundled bank with the user's folder over it)."""
    from quizapp.content.bank import load_content

    return load_content(tuple(options.content_dirs), options.lang)


def load_cards(options):
    """The bank as the app loads it, for its cards only (from the bank cache when current; a command that
    only reads never rewrites the cache)."""
    from quizapp import locations
    from quizapp.content.cache import load_bank_cached

    return load_bank_cached(locations.content_dirs(tuple(options.content_dirs)), locations.cache_dir(), write=False)


def search_error_line(exc, lang: str) -> str:
    from quizapp.words import say

    return say("search.error", lang, column=exc.column, reason=say(exc.code, lang, **exc.details))
