"""A block that must finish: a mutant that loops for ever fails the test instead of hanging the run."""

from __future__ import annotations

import contextlib
import signal
import threading


@contextlib.contextmanager
def within(seconds: float, what: str = "the block"):
    """Raise TimeoutError if the block takes longer than `seconds` (SIGALRM). It only works on the main
    thread; elsewhere the block runs unguarded and a hang is caught by the runner's own timeout."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expired(signum, frame):
        raise TimeoutError(f"{what}: still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
