"""Moved to quizapp.practice.calculator_form (the form's rules need no Textual); this name stays so
older imports keep working."""

from quizapp.practice.calculator_form import *  # noqa: F401,F403
from quizapp.practice.calculator_form import _plain  # noqa: F401  (used by older tests)
