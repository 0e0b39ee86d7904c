"""`quizapp` with no subcommand: open the practice app (the only CLI module that imports textual).

Builds the real dependencies (the review database, the question bank, the system clock), syncs the
database with the bank, and runs `make_app`. A database that cannot be opened is one line on stderr
and exit status 2, never a traceback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _stored_setting(store, key: str) -> str | None:
    getter = getattr(store, "get_setting", None)
    if getter is None:
        return None
    try:
        value = getter(key)
    except Exception:  # noqa: BLE001 - a setting we cannot read is simply not applied
        return None
    return value if isinstance(value, str) else None


def run_app(options, prepare=None) -> int:
    """Run the app; `prepare(app)`, if given, runs before it starts (e.g. `quizapp mock` opens the interview)."""
    from quizapp import locations
    from quizapp.clock import SystemClock
    from quizapp.content import load_bank
    from quizapp.store import Store, StoreError

    clock = SystemClock()
    db_path = Path(options.db_path) if options.db_path else locations.default_db_path()
    content_dirs = tuple(locations.content_dirs(tuple(options.content_dirs)))
    try:
        store = Store.open(db_path, clock)
    except StoreError as exc:
        print(f"quizapp: {exc}", file=sys.stderr)
        return 2
    try:
        bank = load_bank(content_dirs)
        store.sync(bank.cards())
        lang = options.lang
        if not options.lang_given:
            stored = _stored_setting(store, "lang")
            lang = stored if stored in ("en", "zh") else lang

        from quizapp.tui.app import AppSettings, make_app

        settings = AppSettings(
            lang=lang,
            content_dirs=content_dirs,
            db_path=db_path,
            editor=os.environ.get("VISUAL") or os.environ.get("EDITOR") or None,
            seed=None,
            theme=_stored_setting(store, "theme"),
        )
        app = make_app(settings, store, bank, clock)
        if prepare is not None:
            prepare(app)
        app.run()
    except StoreError as exc:
        print(f"quizapp: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    return 0
