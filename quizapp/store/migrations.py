"""Forward schema migrations: MIGRATIONS[n] turns a version-n database into version n+1.

Each function runs inside the opening transaction (all or nothing), after a backup copy of the file
was written beside it. Version 1 is the first schema, so the registry is empty for now; add entries
here (never edit a released one) and bump SCHEMA_VERSION.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from sqlalchemy.engine import Connection

SCHEMA_VERSION = 1

Migration = Callable[[Connection], None]

MIGRATIONS: Mapping[int, Migration] = MappingProxyType({})
