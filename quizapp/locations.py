"""Where quizapp keeps its files: platformdirs defaults, overridable by flags and environment."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

APP_NAME = "quizapp"


def default_db_path() -> Path:
    """The review database when neither --db nor QUIZAPP_DB is given."""
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False) / "quizapp.sqlite3"


def cache_dir() -> Path:
    """Files quizapp can rebuild at any time (the validated question bank); QUIZAPP_CACHE overrides."""
    import os

    configured = os.environ.get("QUIZAPP_CACHE")
    if configured:
        return Path(configured).expanduser()
    from platformdirs import user_cache_path

    return user_cache_path(APP_NAME, appauthor=False)


def bundled_content_dir() -> Path:
    """The question bank shipped with the package.

    A wheel carries it as quizapp/_bank (see pyproject's force-include); a source checkout or an
    editable install reads the top-level content/ folder directly.
    """
    packaged = Path(str(resources.files("quizapp"))) / "_bank"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "content"


def shipped_bank_cache() -> Path:
    """The validated bundled bank a wheel ships (quizapp.content.cache.write_shipped; absent in a checkout)."""
    return Path(str(resources.files("quizapp"))) / "_bank.pickle"


def user_content_dir() -> Path:
    """The user's own question folder (platformdirs user data dir): `quizapp new` writes here, `e` copies
    a bundled question here, and without --content it is loaded over the bundled bank."""
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False) / "content"


def content_dirs(configured: tuple[Path, ...]) -> tuple[Path, ...]:
    """The folders to load questions from: the configured ones, else the bundled bank and (when it
    exists) the user's folder, which load_bank lays over the bundled bank (split_layers)."""
    if configured:
        return tuple(configured)
    user = user_content_dir()
    try:
        present = user.is_dir()
    except OSError:  # e.g. permission denied on the data folder: listed, so the bank names it as a problem
        present = True
    return (bundled_content_dir(), user) if present else (bundled_content_dir(),)


def split_layers(dirs: tuple[Path, ...]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(base folders, override folders) of a folder list: the user's content folder, when it is listed
    together with the bundled bank, is laid over it (its files win by id); every other list is
    loaded as one layer, where a duplicate id is an error (--content DIR... means exactly those)."""
    dirs = tuple(Path(d) for d in dirs)
    user, bundled = _same(user_content_dir()), _same(bundled_content_dir())
    if any(_same(d) == bundled for d in dirs) and any(_same(d) == user for d in dirs):
        return tuple(d for d in dirs if _same(d) != user), tuple(d for d in dirs if _same(d) == user)
    return dirs, ()


def _same(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def content_layers(configured: tuple[Path, ...]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(base folders, override folders) for the configured folders (see content_dirs, split_layers)."""
    return split_layers(content_dirs(configured))
