"""`quizapp show QID [--json]`: one question fully rendered, every section, every `{{drill}}` filled in.

What review and preview show, as Markdown on stdout (or one JSON object), so a question can be read
or piped without the app. It only reads the question files; it never opens the review database.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json

HELP = "print one question fully rendered (every section, every {{drill}} filled in) as Markdown or JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("qid", metavar="QID", help="a question id (a card id such as QID/drill/x also works)")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON object")


def markdown(rendered, lang: str) -> str:
    """The rendered question as one Markdown document, sections in the order review's tabs show them."""
    from quizapp.words import say

    def w(key: str, **args) -> str:
        return say(key, lang, **args)

    out = [f"# {rendered.title}", "", w("show.meta", topic=rendered.topic, difficulty=rendered.difficulty)]
    if rendered.fallback:
        out[-1] += " · " + w("content.fallback" if "title" in rendered.fallback else "content.fallback.some")
    if rendered.points:
        out += ["", f"**{w('show.points')}:** " + ", ".join(rendered.points)]

    def section(key: str, body: str) -> None:
        if body and body.strip():
            out.extend(["", f"## {w(key)}", "", body.strip()])

    section("show.intent", rendered.intent)
    section("show.answer", rendered.answer)
    section("show.template", rendered.template)
    if rendered.followups:
        out += ["", f"## {w('show.followups')}"]
        for f in rendered.followups:
            out += ["", f"### {f.q.strip()}", "", f.a.strip()]
    if rendered.mistakes:
        out += ["", f"## {w('show.mistakes')}", ""]
        for m in rendered.mistakes:
            out += [f"- ✗ **{w('show.wrong')}:** {m.wrong.strip()}",
                    f"  - ✓ **{w('show.right')}:** {m.right.strip()}",
                    f"  - **{w('show.why')}:** {m.why.strip()}"]
    if rendered.errata:
        out += ["", f"## {w('show.errata')}"]
        for e in rendered.errata:
            out += ["", f"- **{w('show.claim')}:** {e.claim.strip()}",
                    f"  - **{w('show.correct')}:** {e.correct.strip()}",
                    f"  - **{w('show.why')}:** {e.why.strip()}"]
    section("show.resume", rendered.resume)
    if rendered.reading:
        out += ["", f"## {w('show.reading')}", ""] + [f"- {r.strip()}" for r in rendered.reading]
    if rendered.drills:
        out += ["", f"## {w('show.drills')}"]
        for d in rendered.drills:
            out += ["", f"### {d.id}", "", d.prompt.strip(), "",
                    w("show.expected", value=d.expected or "?", ask=d.ask, tolerance=d.tolerance)]
            if d.varies:
                out.append(w("show.varies", fields=", ".join(d.varies)))
    return "\n".join(out) + "\n"


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.content.bank import load_content
    from quizapp.content.render import render_question
    from quizapp.words import say

    qid = args.qid.strip().split("/", 1)[0]
    bank = load_content(options.content_dirs, options.lang)
    question = bank.question(qid)
    if question is None:
        close = difflib.get_close_matches(qid, [q.id for q in bank.questions], n=1, cutoff=0.5)
        hint = say("show.cli.did_you_mean", options.lang, qid=close[0]) if close else ""
        problem = next((p for p in bank.problems if p.file.stem == qid), None)
        if problem is not None:  # the problem line is the content layer's, as it is
            hint = say("show.cli.file_problems", options.lang, problem=problem)
        raise CliError(say("show.unknown", options.lang, qid=qid, hint=hint))
    rendered = render_question(question)
    if args.as_json:
        data = dataclasses.asdict(rendered)
        data.pop("fallback")  # the keys stay those of a single-language bank; `lang` says which one
        data["source"] = str(question.source_path) if question.source_path else None
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(markdown(rendered, options.lang), end="")
    return 0
