"""Question content: the YAML schema, line-precise loading and validation, drills and grading."""

from quizapp.content.bank import Bank, CardSpec, load_bank
from quizapp.content.drills import DrillVariant, draw_variant, render_text
from quizapp.content.grading import Grade, grade
from quizapp.content.loader import Problem, load_question_file
from quizapp.content.schema import CommonMistake, Drill, Erratum, ExtraMistake, Followup, Question, Tolerance

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
