"""What every screen of the app shares: the typed app, its words, the footer in the app's language, and
the one way to run database work off the UI thread.

`QuizScreen.in_background(call, then)` runs `call()` in a thread worker and `then(result)` back on
the UI thread; a failure goes to `QuizApp.background_failed`, the one place that decides what the
user sees (a StoreError is one line; anything else is a bug and stops the app with its traceback).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from textual import work
from textual.binding import ActiveBinding
from textual.screen import ModalScreen, Screen
from textual.worker import Worker, WorkerState

from quizapp.words import TEXT, say

if TYPE_CHECKING:
    from quizapp.tui.app import QuizApp

T = TypeVar("T")
R = TypeVar("R")


def localized(bindings: dict[str, ActiveBinding], lang: str) -> dict[str, ActiveBinding]:
    """Bindings are data in English with an id; the footer shows `bind.<id>` in the app's language."""
    out: dict[str, ActiveBinding] = {}
    for key, active in bindings.items():
        binding = active.binding
        word = f"bind.{binding.id}" if binding.id else None
        if word in TEXT:
            binding = replace(binding, description=say(word, lang))
        out[key] = active._replace(binding=binding)
    return out


class _Shared:
    """The parts QuizScreen and QuizModal share (a mixin over Textual's Screen)."""

    if TYPE_CHECKING:
        app: QuizApp

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_order = threading.Lock()  # one screen's background calls run one at a time, in order

    def on_mount(self) -> None:  # every screen: a one-line request to enlarge a window under 80x24
        from quizapp.tui.widgets.too_small import TooSmall

        self.mount(TooSmall())  # type: ignore[attr-defined]

    def t(self, key: str, **args: object) -> str:
        """The app's word for `key` in the current language, filled with `args`."""
        return self.app.t(key, **args)

    @property
    def lang(self) -> str:
        return self.app.settings.lang

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return localized(super().active_bindings, self.app.settings.lang)  # type: ignore[misc]

    def in_background(self, call: Callable[[], R], then: Callable[[R], Any] | None = None) -> None:
        """Run `call` (store or file work) in a thread; `then(result)` on the UI thread when it succeeds."""
        self._background(call, then)  # type: ignore[attr-defined]

    @work(thread=True, exit_on_error=False, group="background")
    def _background(self, call: Callable[[], R], then: Callable[[R], Any] | None) -> None:
        with self._in_order:
            result = call()
        if then is not None:
            self.app.call_from_thread(then, result)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.node is self:
            self.app.background_failed(self, event.worker.error)  # type: ignore[arg-type]

    def background_failed(self, error: BaseException) -> None:
        """The app showed `error`; a screen that was waiting on the work lets the user go on."""


class QuizScreen(_Shared, Screen[T]):
    """A full screen of the app."""


class QuizModal(_Shared, ModalScreen[T]):
    """A modal of the app (dismissed with its value)."""
