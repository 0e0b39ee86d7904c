"""The question bank: every question file under the content folders, the problems found, and the
review cards they make. Loading never fails because of one bad file; that file becomes problems.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from quizapp.vocab import MAIN_ITEM, CardId, CardKind

if TYPE_CHECKING:  # loading imports these (pydantic, PyYAML); a Bank from the cache does not need them
    from quizapp.content.loader import Problem
    from quizapp.content.schema import Question
    from quizapp.content.validate import Calculator

QUESTION_SUFFIXES = (".yaml", ".yml")
NOT_REGULAR = "not a regular file or folder (a device, pipe or socket); give a question file or a folder of them"


@dataclass(frozen=True)
class CardSpec:
    """One reviewable item: the question itself, a follow-up or a drill (a parametric drill is one card)."""

    card_id: str  # CardId(question_id, kind, item_id).format()
    question_id: str
    kind: CardKind
    item_id: str  # MAIN_ITEM for the question card
    topic: str
    order: int


@dataclass(frozen=True)
class Bank:
    """The loaded questions (in bank order) and every problem found.

    overridden: ids of bundled questions replaced by a file of the same id in the user's folder
    (load_bank's `overrides`), for Home to say "N questions edited by you".
    """

    questions: tuple[Question, ...]
    problems: tuple[Problem, ...]
    overridden: tuple[str, ...] = ()
    warnings: tuple[Problem, ...] = ()  # reported by `validate`; the questions load all the same

    def question(self, question_id: str) -> Question | None:
        return next((q for q in self.questions if q.id == question_id), None)

    def topics(self) -> list[str]:
        return sorted({q.topic for q in self.questions})

    def cards(self) -> list[CardSpec]:
        cards: list[CardSpec] = []
        for question in self.questions:
            items = [(CardKind.QUESTION, MAIN_ITEM)]
            items += [(CardKind.FOLLOWUP, f.id) for f in question.followups]
            items += [(CardKind.DRILL, d.id) for d in question.drills]
            for kind, item_id in items:
                card_id = CardId(question.id, kind, item_id).format()
                cards.append(CardSpec(card_id, question.id, kind, item_id, question.topic, len(cards)))
        return cards


def question_files(paths: Iterable[Path]) -> tuple[list[Path], list[Problem]]:
    """The question files under `paths` (files taken as they are, folders searched recursively), and a
    problem for every entry that cannot be read as one (quizapp.content.files.find_question_files:
    FIFOs, devices, dangling symlinks, unreadable folders... are listed, never dropped silently).

    A file reached twice (the same path given twice, overlapping folders, a symlink to a file already
    found) is listed once, where it was first reached: otherwise it would be a duplicate of itself.
    """
    from quizapp.content.files import find_question_files
    from quizapp.content.loader import Problem

    files, skipped = find_question_files(paths)
    return files, [Problem(path, 1, 1, "(file)", reason) for path, reason in skipped]


def _load_files(dirs: Iterable[Path], calc: Calculator, authoring: bool
                ) -> tuple[list[Question], list[Problem], list[Problem]]:
    """The questions under `dirs` in order; bad files and duplicate ids become problems."""
    from quizapp.content.loader import Problem, load_question_with_index

    files, problems = question_files(dirs)
    warnings: list[Problem] = []
    questions: list[Question] = []
    first_seen: dict[str, tuple[Path, int]] = {}
    for path in files:
        question, file_problems, index = load_question_with_index(path, calc, authoring=authoring)
        problems += [p for p in file_problems if p.severity == "error"]
        warnings += [p for p in file_problems if p.severity != "error"]
        if question is None or index is None:
            continue
        line, col = index.locate(("id",))
        if question.id in first_seen:
            other, other_line = first_seen[question.id]
            problems.append(Problem(path, line, col, "id", f"duplicate question id {question.id!r} (also in {other}:{other_line})"))
            continue
        first_seen[question.id] = (path, line)
        questions.append(question)
    return questions, problems, warnings


def load_bank(dirs: Iterable[Path], overrides: Iterable[Path] | None = None, *, authoring: bool = False) -> Bank:
    """Load every question under `dirs`; bad files (and duplicate ids) become problems, never errors.

    overrides: folders loaded over `dirs`: a question there replaces the one of the same id from
    `dirs` in its place (so its cards keep their order), and a new id is added at the end. A
    duplicate id within `dirs`, or within `overrides`, is still a problem. None (the default): the
    user's content folder is laid over the bundled bank when `dirs` lists both
    (quizapp.locations.split_layers), so load_bank(content_dirs(...)) is what the app loads.
    """
    if overrides is None:
        from quizapp.locations import split_layers

        dirs, overrides = split_layers(tuple(dirs))
    from quizapp.content.validate import Calculator

    calc = Calculator()
    questions, problems, warnings = _load_files(dirs, calc, authoring)
    overrides = tuple(overrides)
    if not overrides:
        return Bank(tuple(questions), tuple(problems), (), tuple(warnings))
    mine, my_problems, my_warnings = _load_files(overrides, calc, authoring)
    problems += my_problems
    warnings += my_warnings
    position = {q.id: i for i, q in enumerate(questions)}
    replaced: list[str] = []
    for question in mine:
        if question.id in position:
            questions[position[question.id]] = question
            replaced.append(question.id)
        else:
            questions.append(question)
    return Bank(tuple(questions), tuple(problems), tuple(replaced), tuple(warnings))


def load_content(configured: tuple[Path, ...] = (), lang: str | None = None):
    """The bank the app and every command use: --content folders exactly, else the bundled bank with
    the user's folder over it (quizapp.locations.content_layers); with `lang`, its questions shown in
    that language (quizapp.content.localize)."""
    from quizapp.locations import content_dirs

    bank = load_bank(content_dirs(tuple(configured)))
    if lang is None:
        return bank
    from quizapp.content.localize import localized

    return localized(bank, lang)
