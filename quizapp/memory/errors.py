"""The calculator's input error, in a module of its own so that every input module (setup.py, extras.py)
can raise it without importing another (no import cycle); setup.py re-exports it."""

from __future__ import annotations


class SetupError(ValueError):
    """A bad calculator input: `field` names the setting (setup key), `message` says what was expected."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
