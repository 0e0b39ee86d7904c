"""Wheel build hook: ship the bundled bank validated (quizapp.content.cache.write_shipped), so the very
first run of an installed app reads it instead of spending seconds on YAML, pydantic and every drill's
figures. It runs the checkout's own code in a child process of the build's Python (which has the
build requirements: PyYAML, pydantic, platformdirs). If that fails the wheel is built without it, with a
warning: the app then validates the bank on its first run, as a source checkout does."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

WRITE = "import sys; from pathlib import Path; from quizapp.content.cache import write_shipped; " \
        "write_shipped(Path(sys.argv[1]), Path(sys.argv[2]))"


class ShippedBankHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel" or version == "editable":  # an editable install reads content/ itself
            return
        root = Path(self.root)
        self._scratch = Path(tempfile.mkdtemp(prefix="quizapp-shipped-"))
        out = self._scratch / "_bank.pickle"
        done = subprocess.run([sys.executable, "-c", WRITE, str(root / "content"), str(out)], cwd=root,
                              env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
                              capture_output=True, text=True)
        if done.returncode != 0 or not out.is_file():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            self.app.display_warning(f"quizapp: the wheel ships no validated bank ({last})")
            return
        build_data["force_include"][str(out)] = "quizapp/_bank.pickle"

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        scratch = getattr(self, "_scratch", None)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
