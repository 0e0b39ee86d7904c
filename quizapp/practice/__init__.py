"""The flows between the store and the screens: review sessions, mock interviews, their timers.

Plain synchronous code (no Textual, no SQL): the TUI runs these calls in a worker thread and renders
the frozen views they return; the unit tests drive them directly on a temporary store.
"""
