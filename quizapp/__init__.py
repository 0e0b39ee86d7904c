"""quizapp: a terminal trainer for LLM-systems interviews."""

__version__ = "0.1.0"
