"""The word catalog (quizapp.words): every phrase in both languages, with the same arguments."""

from __future__ import annotations

import string

from quizapp.words import DOMAINS, TEXT, Plural, say


def _fields(template: str | Plural) -> set[str]:
    forms = (template.one, template.other) if isinstance(template, Plural) else (template,)
    names: set[str] = set()
    for form in forms:
        names |= {field.split(".")[0].split("[")[0] for _, field, _, _ in string.Formatter().parse(form) if field}
    return names


def test_both_languages_take_the_same_arguments():
    bad = []
    for key, (en, zh) in TEXT.items():
        if not en or not zh:
            bad.append(f"{key}: a language is empty")
        elif _fields(en) != _fields(zh):
            bad.append(f"{key}: en takes {sorted(_fields(en))}, zh takes {sorted(_fields(zh))}")
        elif isinstance(en, Plural) and "n" not in _fields(en):
            bad.append(f"{key}: a Plural is picked by the argument n")
    assert not bad, "\n".join(bad)


def test_no_phrase_hedges_its_plural():
    hedged = [key for key, (en, _) in TEXT.items() for form in ((en.one, en.other) if isinstance(en, Plural) else (en,))
              if "(s)" in form]
    assert not hedged, hedged


def test_plurals_follow_the_count():
    assert say("home.streak", "en", n=1) == "Streak: 1 day"
    assert say("home.streak", "en", n=2) == "Streak: 2 days"
    assert say("home.streak", "zh", n=2) == "连续学习：2 天"


def test_the_app_domain_is_merged():
    assert "app" in DOMAINS and "app.subtitle" in TEXT
