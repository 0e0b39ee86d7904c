"""Review history in SQLite (SQLModel) scheduled by FSRS: Store.open(path, clock, config)."""

from quizapp.store.config import SchedulerConfig
from quizapp.store.database import NoHistory
from quizapp.store.errors import StoreError
from quizapp.store.records import CardRow, Counts, SyncReport, TodayProgress
from quizapp.store.store import Store

__all__ = ["CardRow", "Counts", "NoHistory", "SchedulerConfig", "Store", "StoreError", "SyncReport", "TodayProgress"]
