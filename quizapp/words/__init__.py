"""Every word the user reads, in English and Chinese, in one place (the layers below return codes).

Why this design rather than gettext catalogs: the two languages of one phrase sit side by side in
one Python table, so a key cannot exist in one language and be missing in the other (a test checks
every table), no compile step or .mo files are needed for a wheel, and `quizapp calc` stays as fast
to import as plain data. Each domain keeps its own table module (app, calc, mistakes, ...) so the
people who own those words edit apart.

A table maps a key to `(en, zh)`. Each side is a `str.format` template, or, where a count changes
the words, a `Plural(one, other)` chosen by the argument `n` (Chinese has no grammatical plural, so
its side is usually a plain template).
"""

from __future__ import annotations

from importlib import import_module
from types import MappingProxyType
from typing import Mapping

from quizapp.words.plural import Plural

LANGS = ("en", "zh")

# Domain table modules under quizapp.words; each defines TEXT: Mapping[str, tuple[en, zh]].
DOMAINS = ("app", "calc", "calc_views", "calc_extras", "calc_derive", "kernels", "mistakes", "srs", "daily", "cli")


Template = str | Plural


def _load() -> Mapping[str, tuple[Template, Template]]:
    merged: dict[str, tuple[Template, Template]] = {}
    for domain in DOMAINS:
        try:
            table = import_module(f"quizapp.words.{domain}").TEXT
        except ModuleNotFoundError as exc:
            if exc.name != f"quizapp.words.{domain}":
                raise
            continue
        for key, pair in table.items():
            if key in merged:
                raise KeyError(f"word key {key!r} defined twice (quizapp.words.{domain})")
            merged[key] = pair
    return MappingProxyType(merged)


TEXT: Mapping[str, tuple[Template, Template]] = _load()


def say(key: str, lang: str = "en", /, **args: object) -> str:
    """The phrase `key` in `lang`, filled with `args` (an unknown key is returned as itself)."""
    pair = TEXT.get(key)
    if pair is None:
        return key
    template = pair[1] if lang == "zh" else pair[0]
    if isinstance(template, Plural):
        template = template.pick(args.get("n"))
    return template.format(**args) if args else template
