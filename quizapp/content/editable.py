"""The file `e` opens for a question: the user's own copy of a bundled question, never the installed one.

An edit to the installed bank (under site-packages) is lost on reinstall and never reaches the user's
own repository; a copy in the user's content folder (quizapp.locations.user_content_dir) is loaded
over the bundled bank and wins by its id, so the edit takes effect on the next load.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from quizapp.content.schema import Question

Where = Literal["in_place", "copied", "your_copy"]


@dataclass(frozen=True)
class EditableFile:
    """The file to open in the editor and why it is that one.

    where: "in_place" (a --content folder, or already the user's file), "copied" (a bundled question
    just copied into the user's folder), "your_copy" (the user's copy made earlier).
    """

    path: Path
    where: Where


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except (ValueError, OSError):
        return False


def editable_file(question: Question, configured: tuple[Path, ...], user_dir: Path | None = None,
                  bundled_dir: Path | None = None) -> EditableFile:
    """Where to edit `question`, copying it into the user's folder first when it is a bundled file.

    configured (--content / QUIZAPP_CONTENT): the file itself. Otherwise a file outside the bundled bank
    is edited in place; a bundled one is copied byte for byte to <user_dir>/<topic>/<file name>
    (an existing copy is reused, never overwritten). OSError when the copy cannot be written.
    """
    from quizapp.locations import bundled_content_dir, user_content_dir

    source = Path(question.source_path)
    if configured:
        return EditableFile(source, "in_place")
    bundled = bundled_dir or bundled_content_dir()
    if not _inside(source, bundled):
        return EditableFile(source, "in_place")
    target = (user_dir or user_content_dir()) / question.topic / source.name
    if target.exists():
        return EditableFile(target, "your_copy")
    target.parent.mkdir(parents=True, exist_ok=True)
    data = source.read_bytes()
    try:
        with target.open("xb") as handle:  # "x": never overwrite, even in a race
            handle.write(data)
    except FileExistsError:
        return EditableFile(target, "your_copy")
    return EditableFile(target, "copied")
