"""quizapp.memory is pure stdlib; `quizapp calc` never pays for textual or sqlmodel."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("textual", "sqlmodel", "yaml", "pydantic", "sqlalchemy", "rich")


def _loaded_after(code: str) -> set[str]:
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_memory_imports_only_the_standard_library():
    loaded = _loaded_after("import quizapp.memory")
    assert not loaded & set(HEAVY), loaded & set(HEAVY)
    stdlib = set(sys.stdlib_module_names) | {"quizapp", "__main__", "builtins", "sys"}
    assert loaded <= stdlib | {m for m in loaded if m.startswith("_")}, loaded - stdlib


def test_quizapp_calc_imports_no_textual_or_sqlmodel():
    loaded = _loaded_after(
        "import contextlib, io\nfrom quizapp.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main(['calc', '--model', 'llama-2-7b', '--gpu', 'h100', '--max', 'batch'])"
    )
    assert not loaded & {"textual", "sqlmodel", "sqlalchemy"}
