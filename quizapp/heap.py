"""The cyclic garbage collector kept off the start-up path.

Start-up allocates a few hundred thousand objects that live as long as the process: modules, the
bank's questions, SQLAlchemy's tables, Textual's screens. CPython's full collection walks every one
of them (about 70 ms for the app here, several times during start-up, and again now and then on a
key press later). None of them is garbage, so collection waits until start-up is over, and what is
alive then is frozen (`gc.freeze`): later collections walk only what came after.
"""

from __future__ import annotations

import gc


def hold() -> None:
    """No cyclic collection until `settle` (reference counting still frees almost everything): for
    the app's start-up, and for the whole run of a short command, whose garbage is bounded."""
    gc.disable()


def settle() -> None:
    """Start-up is over: freeze what is alive and collect from here on. Does nothing unless `hold`
    was called (collection is still on), so an app built by a test never freezes the test process."""
    if gc.isenabled():
        return
    gc.freeze()
    gc.enable()
