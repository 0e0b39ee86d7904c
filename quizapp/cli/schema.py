"""`quizapp schema`: the question file's JSON Schema, for editors' yaml-language-server."""

from __future__ import annotations

import argparse
import json

HELP = "print the JSON Schema of a question file (for yaml-language-server)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace, options) -> int:
    from quizapp.content.schema import question_json_schema

    print(json.dumps(question_json_schema(), ensure_ascii=False, indent=2))
    return 0
