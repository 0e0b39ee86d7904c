"""Where quizapp keeps its files: platformdirs defaults, overridable by flags and environment."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

APP_NAME = "quizapp"


def default_db_path() -> Path:
    """The review database when neither --db nor QUIZAPP_DB is given."""
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False) / "quizapp.sqlite3"


def bundled_content_dir() -> Path:
    """The question bank shipped with the package.

    A wheel carries it as quizapp/_bank (see pyproject's force-include); a source checkout or an
    editable install reads the top-level content/ folder directly.
    """
    packaged = Path(str(resources.files("quizapp"))) / "_bank"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "content"


def content_dirs(configured: tuple[Path, ...]) -> tuple[Path, ...]:
    """The folders to load questions from: the configured ones, else the bundled bank."""
    return configured or (bundled_content_dir(),)
