"""`quizapp settings`: show and change the scheduling options (Anki's deck options) stored in the database.

`quizapp settings` lists every option with its value and default, `quizapp settings KEY` shows one,
`quizapp settings KEY VALUE` checks and stores it (`default` restores the default). The table of options
and their checks is quizapp.store.config.SETTINGS, which Store.open also reads, so what is stored here is
what the app schedules with. Imports the store only inside run(), so building the parser stays cheap.
"""

from __future__ import annotations

import argparse
import json

from quizapp.cli.args import text

HELP = "show or change scheduling settings: retention, steps, daily limits, day rollover, leech threshold"
RESET = "default"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("key", nargs="?", metavar="KEY", type=text(200, "a setting name"),
                        help="a setting name (without it: list them all)")
    parser.add_argument("value", nargs="*", metavar="VALUE", type=text(2000, "a setting value"),
                        help=f"the new value (steps may be several words: 1m 10m); '{RESET}' restores the default")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON object")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.cli.args import printable
    from quizapp.clock import SystemClock
    from quizapp.locations import default_db_path
    from quizapp.store import NoHistory, SchedulerConfig, Store, StoreError
    from quizapp.store.config import SETTINGS, SettingError, parse_setting, setting
    from quizapp.words import say

    lang = options.lang
    spec = new = None
    try:
        spec = setting(args.key) if args.key is not None else None
        if spec is not None and args.value:
            text = " ".join(args.value)
            new = None if text.strip().lower() == RESET else parse_setting(spec.key, text)
    except SettingError as exc:  # the store's reasons (quizapp.store.config), as they are
        if spec is None:  # an unknown name: shown quoted and escaped, never raw (it may hold ESC sequences)
            shown = printable(args.key[:60]) + ("…" if len(args.key) > 60 else "")
            raise CliError(f"{shown}: {exc.message}") from None
        raise CliError(str(exc)) from None

    path = options.db_path or default_db_path()
    writing = spec is not None and bool(args.value)
    try:
        # An explicit config: a bad stored value must not stop us from showing or fixing it. Showing
        # only reads: the database is opened read-only and never created for it.
        with Store.open(path, SystemClock(), SchedulerConfig(), read_only=not writing) as store:
            if writing:
                before = _current(spec, store.stored_settings(), lang)
                store.set_scheduling_setting(spec.key, new)
            stored: dict[str, object] = store.stored_settings()
    except NoHistory:
        stored = {}  # nothing stored yet: every setting has its default
    except (StoreError, SettingError) as exc:
        raise CliError(str(exc)) from None

    if spec is not None and args.value:
        after = _current(spec, stored, lang)
        print(say("settings.cli.set", lang, key=spec.key, value=after[0], before=before[0],
                  default=spec.show(spec.default)))
        return 0
    chosen = [spec] if spec is not None else list(SETTINGS.values())
    if args.as_json:  # JSON keeps the store's English text (an API)
        rows = [(s, *_current(s, stored)) for s in chosen]
        print(json.dumps({s.key: {"value": value, "default": s.show(s.default), "changed": changed,
                                  "expected": s.expected, "description": s.description}
                          for s, value, changed in rows}, ensure_ascii=False, indent=2))
        return 0
    rows = [(s, *_current(s, stored, lang)) for s in chosen]
    if spec is not None:
        _, value, changed = rows[0]
        if changed:
            print(say("settings.cli.value_changed", lang, key=spec.key, value=value, default=spec.show(spec.default)))
        else:
            print(say("settings.cli.value_default", lang, key=spec.key, value=value))
        print(f"  {_words(spec, 'desc', spec.description, lang)}")
        print(say("settings.cli.expected", lang, expected=_words(spec, "expected", spec.expected, lang)))
    else:
        print(_table(rows, lang))
        print("\n" + say("settings.cli.database", lang, path=path))
        import shutil

        for line in _fill(say("settings.cli.how", lang, reset=RESET), max(shutil.get_terminal_size((100, 24)).columns, 40)):
            print(line)
    return 0


def _words(spec, what: str, fallback: str, lang: str) -> str:
    """A setting's description or expected value in `lang` (quizapp.words: settings.desc.KEY,
    settings.expected.KEY); a setting the catalog does not know yet shows the store's text."""
    from quizapp.words import say

    key = f"settings.{what}.{spec.key}"
    text = say(key, lang)
    return fallback if text == key else text


def _current(spec, stored: dict[str, object], lang: str = "en") -> tuple[str, bool]:
    """(the value as text, whether it differs from the default); a bad stored value is shown as such."""
    from quizapp.store.config import SettingError, setting_from_stored
    from quizapp.words import say

    if spec.key not in stored:
        return spec.show(spec.default), False
    try:
        value = setting_from_stored(spec.key, stored[spec.key])
    except SettingError:
        return say("settings.cli.invalid_stored", lang, value=stored[spec.key]), True
    return spec.show(value), value != spec.default


def _cut(value: str, width: int = 24) -> str:
    """A long value (21 FSRS weights) cut for the table; `quizapp settings KEY` shows it whole."""
    return value if len(value) <= width else value[: width - 1] + "…"


def _table(rows, lang: str = "en") -> str:
    """The settings as a table that fits the terminal: columns aligned by display width; on a wide
    terminal (100 columns or more) the description follows on the row, else it goes under its setting,
    indented and wrapped, so no line is longer than the terminal (COLUMNS=80: 80)."""
    import shutil

    from quizapp.cli.calc import _cells, _ljust
    from quizapp.words import say

    width = max(shutil.get_terminal_size((100, 24)).columns, 40)
    head = (say("settings.cli.col.setting", lang), say("settings.cli.col.value", lang),
            say("settings.cli.col.default", lang))
    body = [((s.key, _cut(value) + (" *" if changed else ""), _cut(s.show(s.default))),
             _words(s, "desc", s.description, lang)) for s, value, changed in rows]
    widths = [max(_cells(r[i]) for r in (head, *(cells for cells, _ in body))) for i in range(3)]
    left = sum(widths) + 6
    beside = width - left >= 30  # room for the description on the row itself
    lines = ["  ".join(_ljust(c, w) for c, w in zip(head, widths)).rstrip()]
    for cells, text in body:
        row = "  ".join(_ljust(c, w) for c, w in zip(cells, widths))
        if beside:
            wrapped = _fill(text, width - left)
            lines.append(row + "  " + wrapped[0])
            lines += [" " * left + more for more in wrapped[1:]]
        else:
            lines.append(row.rstrip())
            lines += ["    " + more for more in _fill(text, width - 4)]
    lines.append(say("settings.cli.changed_mark", lang))
    return "\n".join(line.rstrip() for line in lines)


def _fill(text: str, width: int) -> list[str]:
    """`text` wrapped to `width` display columns (Chinese between any two characters)."""
    import textwrap

    from quizapp.cli.calc import _wide, _wrap

    return _wrap(text, width, "", "") if _wide(text) else textwrap.wrap(text, width=width) or [""]
