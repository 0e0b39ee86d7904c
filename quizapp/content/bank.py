"""The question bank: every question file under the content folders, the problems found, and the
review cards they make. Loading never fails because of one bad file; that file becomes problems.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Literal

from quizapp.content.loader import Problem, load_question_with_index
from quizapp.content.schema import Question
from quizapp.content.validate import Calculator

QUESTION_SUFFIXES = (".yaml", ".yml")
NOT_REGULAR = "not a regular file or folder (a device, pipe or socket); give a question file or a folder of them"


@dataclass(frozen=True)
class CardSpec:
    """One reviewable item: the question itself, a follow-up or a drill (a parametric drill is one card)."""

    card_id: str  # f"{question_id}/{kind}/{item_id}"
    question_id: str
    kind: Literal["question", "followup", "drill"]
    item_id: str  # "main" for the question card
    topic: str
    order: int


@dataclass(frozen=True)
class Bank:
    questions: tuple[Question, ...]
    problems: tuple[Problem, ...]

    def question(self, question_id: str) -> Question | None:
        return next((q for q in self.questions if q.id == question_id), None)

    def topics(self) -> list[str]:
        return sorted({q.topic for q in self.questions})

    def cards(self) -> list[CardSpec]:
        cards: list[CardSpec] = []
        for question in self.questions:
            items = [("question", "main")]
            items += [("followup", f.id) for f in question.followups]
            items += [("drill", d.id) for d in question.drills]
            for kind, item_id in items:
                cards.append(
                    CardSpec(f"{question.id}/{kind}/{item_id}", question.id, kind, item_id, question.topic, len(cards))  # type: ignore[arg-type]
                )
        return cards


def question_files(paths: Iterable[Path]) -> tuple[list[Path], list[Problem]]:
    """The question files under `paths` (files taken as they are, folders searched recursively).

    A file reached twice (the same path given twice, overlapping folders, a symlink to a file already
    found) is listed once, where it was first reached: otherwise it would be a duplicate of itself.
    """
    files: list[Path] = []
    problems: list[Problem] = []
    seen: set[Path] = set()

    def take(found: Path) -> None:
        try:
            key = found.resolve()
        except (OSError, RuntimeError):  # a symlink loop: keep the path as given
            key = found.absolute()
        if key not in seen:
            seen.add(key)
            files.append(found)

    for path in paths:
        path = Path(path)
        if path.is_dir():
            for found in sorted(
                p
                for p in path.rglob("*")
                if p.suffix in QUESTION_SUFFIXES and p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
            ):
                take(found)
        elif path.is_file():
            take(path)
        elif path.exists():
            problems.append(Problem(path, 1, 1, "(file)", NOT_REGULAR))
        else:
            problems.append(Problem(path, 1, 1, "(file)", "no such file or folder"))
    return files, problems


def load_bank(dirs: Iterable[Path]) -> Bank:
    """Load every question under `dirs`; bad files (and duplicate ids) become problems, never errors."""
    files, problems = question_files(dirs)
    questions: list[Question] = []
    first_seen: dict[str, tuple[Path, int]] = {}
    calc = Calculator()
    for path in files:
        question, file_problems, index = load_question_with_index(path, calc)
        problems += file_problems
        if question is None or index is None:
            continue
        line, col = index.locate(("id",))
        if question.id in first_seen:
            other, other_line = first_seen[question.id]
            problems.append(Problem(path, line, col, "id", f"duplicate question id {question.id!r} (also in {other}:{other_line})"))
            continue
        first_seen[question.id] = (path, line)
        questions.append(question)
    return Bank(tuple(questions), tuple(problems))
