"""Question content: the YAML schema, line-precise loading and validation, drills and grading.

The names below are imported on first use (PEP 562), so `from quizapp.content.bank import Bank` or the
bank cache does not pull in pydantic and PyYAML before a screen needs them.
"""

from importlib import import_module

_HOMES = {
    "Bank": "bank", "CardSpec": "bank", "load_bank": "bank",
    "DrillVariant": "drills", "draw_variant": "drills", "render_text": "drills",
    "Grade": "grading", "grade": "grading",
    "Problem": "loader", "load_question_file": "loader",
    "CommonMistake": "schema", "Drill": "schema", "Erratum": "schema", "ExtraMistake": "schema",
    "Followup": "schema", "Question": "schema", "Tolerance": "schema",
}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'quizapp.content' has no attribute {name!r}")
    return getattr(import_module(f"quizapp.content.{home}"), name)


__all__ = [
    "Bank",
    "CardSpec",
    "CommonMistake",
    "Drill",
    "DrillVariant",
    "Erratum",
    "ExtraMistake",
    "Followup",
    "Grade",
    "Problem",
    "Question",
    "Tolerance",
    "draw_variant",
    "grade",
    "load_bank",
    "load_question_file",
    "render_text",
]
