"""One query style (docs/database.md): every query is a SQLAlchemy Core statement on the SQLModel
tables, run with Connection.execute. SQL text is left only for DDL and PRAGMAs (schema creation,
migrations, the file checks before SQLAlchemy opens a file), in the two modules that do those."""

from __future__ import annotations

import ast
from pathlib import Path

import quizapp

ROOT = Path(quizapp.__file__).parent
DDL_MODULES = {"store/database.py", "store/migrations.py"}  # PRAGMAs, BEGIN IMMEDIATE, migrations, backups
RAW = {"exec_driver_sql", "driver_connection", "raw_connection", "executescript"}


def _offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    sql_text = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and (node.module or "").startswith("sqlalchemy") for alias in node.names if alias.name == "text"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in RAW:
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in sql_text:
            found.append(f"{node.lineno}: sqlalchemy text()")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Session":
            found.append(f"{node.lineno}: an ORM Session")
    return sorted(found, key=lambda item: int(item.split(":")[0]))


def test_queries_are_core_statements_everywhere_but_the_ddl_modules():
    bad = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in DDL_MODULES:
            continue
        bad += [f"quizapp/{rel}:{line}" for line in _offences(path)]
    # the one allowed exception: a partial index's WHERE clause is DDL (srs_tables.py)
    bad = [b for b in bad if not b.startswith("quizapp/store/srs_tables.py:") or "text()" not in b]
    assert not bad, "SQL text or a raw connection outside the DDL modules:\n" + "\n".join(bad)


def test_the_check_finds_raw_sql(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from sqlalchemy import text\n"
                      "def f(conn):\n"
                      "    conn.exec_driver_sql('SELECT 1')\n"
                      "    conn.execute(text('SELECT 2'))\n"
                      "    return conn.connection.driver_connection\n", encoding="utf-8")
    assert _offences(sample) == ["3: .exec_driver_sql", "4: sqlalchemy text()", "5: .driver_connection"]
