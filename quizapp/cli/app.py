"""`quizapp` with no subcommand: open the practice app (the only CLI module that imports textual).

Builds the real dependencies (the review database, the question bank, the system clock), syncs the
database with the bank, reads Home's counts, and runs `make_app`, in that order: Home appears with
its real figures in its first frame. The bank comes from its cache (quizapp.content.cache) when the
files did not change, so no YAML is parsed and pydantic is not imported before Home shows. A database
that cannot be opened is one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from quizapp.cli.args import printable

LANGS = ("en", "zh")


def run_app(options, prepare=None) -> int:
    """Run the app; `prepare(app)`, if given, runs before it starts (e.g. `quizapp mock` opens the interview)."""
    from quizapp import locations
    from quizapp.clock import SystemClock
    from quizapp.content.cache import load_bank_cached
    from quizapp.store import Store, StoreError

    clock = SystemClock()
    db_path = Path(options.db_path) if options.db_path else locations.default_db_path()
    content_dirs = tuple(locations.content_dirs(tuple(options.content_dirs)))
    try:
        store = Store.open(db_path, clock)
    except StoreError as exc:
        print(f"quizapp: {printable(exc)}", file=sys.stderr)
        return 2
    try:
        bank = load_bank_cached(content_dirs, locations.cache_dir())
        store.sync(bank.cards())
        first_counts = (store.counts(), store.today(), store.day_counts_by_topic())  # Home's read_home_figures
        stored = store.stored_settings()
        lang = options.lang
        if not options.lang_given and stored.get("lang") in LANGS:
            lang = stored["lang"]
        theme = stored.get("theme") if isinstance(stored.get("theme"), str) else None

        from quizapp.tui.app import AppSettings, make_app

        settings = AppSettings(
            lang=lang,
            content_dirs=content_dirs,
            db_path=db_path,
            editor=os.environ.get("VISUAL") or os.environ.get("EDITOR") or None,
            seed=None,
            theme=theme,
            animations=os.environ.get("TEXTUAL_ANIMATIONS", "none"),
        )
        app = make_app(settings, store, bank, clock, first_counts)
        if prepare is not None:
            prepare(app)
        app.run()
    except StoreError as exc:
        print(f"quizapp: {printable(exc)}", file=sys.stderr)
        return 2
    finally:
        store.close()
    return 0
