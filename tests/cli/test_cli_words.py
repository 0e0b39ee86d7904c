"""The command line speaks the chosen language: `--lang zh` output uses quizapp.words' Chinese, the
English output keeps its lines, and `--json` is the same in both languages.

Expected words come from the catalog (say) and figures from the calculator, never from pasted output.
"""

from __future__ import annotations

import json
import string
import textwrap

import pytest

from quizapp import memory as M
from quizapp.cli import main
from quizapp.words import TEXT, Plural, say

WIDTH = 100  # $COLUMNS for every run here: the report's layout depends on the terminal's width


@pytest.fixture(autouse=True)
def _columns(monkeypatch, tmp_path):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    monkeypatch.delenv("QUIZAPP_LANG", raising=False)
    monkeypatch.delenv("QUIZAPP_CONTENT", raising=False)
    monkeypatch.setenv("QUIZAPP_DB", str(tmp_path / "none" / "q.sqlite3"))


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _forms(template) -> tuple[str, ...]:
    return (template.one, template.other) if isinstance(template, Plural) else (template,)


def _english_phrases(*prefixes: str) -> set[str]:
    """The literal English phrases (two words or more) of the catalog's keys under `prefixes` that no
    Chinese phrase uses (technical terms such as KV cache stay English): none may appear in Chinese output."""
    phrases: set[str] = set()
    chinese = " ".join(form for _, zh in TEXT.values() for form in _forms(zh))  # terms kept English (KV cache)
    for key, (en, _) in TEXT.items():
        if not key.startswith(prefixes):
            continue
        for form in _forms(en):
            for literal, *_ in string.Formatter().parse(form):
                piece = literal.strip(" ,;:()·")
                if " " in piece and any(c.isalpha() for c in piece) and piece not in chinese:
                    phrases.add(piece)
    return phrases


def _no_english(text: str, *prefixes: str) -> list[str]:
    return sorted(p for p in _english_phrases(*prefixes) if p in text)


def _flat(text: str) -> str:
    """The report with its wrapped lines joined (a sentence may be broken anywhere)."""
    return " ".join(line.strip() for line in text.splitlines())


def _flat_zh(text: str) -> str:
    """Chinese lines are broken between characters, without a space: joined without one."""
    return "".join(line.strip() for line in text.splitlines())


def _setup(**options: str):
    return M.setup_from_options(options)


# --- quizapp calc --------------------------------------------------------------------------------------
TRAINING = ("calc", "--model", "llama-2-7b", "--gpu", "a100-80g")
SERVING = ("calc", "--method", "inference", "--model", "llama-2-7b", "--batch", "64", "--gpu", "h100")
CLUSTER = ("calc", "--model", "qwen3-30b-a3b", "--gpus", "8", "--tp", "2", "--pp", "4", "--ep", "8", "--gpu", "h100")


def test_calc_training_report_in_chinese(capsys):
    code, out, _ = _run(capsys, *TRAINING, "--lang", "zh")
    assert code == 0
    setup = _setup(model="llama-2-7b", gpu="a100-80g")
    b = M.breakdown(setup)
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith(say("calc.cli.col.term", "zh")))
    assert say("calc.cli.col.formula", "zh") in header
    for t in b.terms:  # every term row and note is named with the TUI's label
        label = say(f"term.{t.name}", "zh")
        assert any(line.startswith(label + " ") for line in lines), label
        assert f"· {label}：" in out
        assert not any(line.startswith(t.name) for line in lines), t.name
    assert any(line.startswith(say("calc.cli.total", "zh")) and say("calc.cli.sum_of_terms", "zh") in line for line in lines)
    fit = M.fit(b, setup.gpu, setup.reserve)
    assert say("calc.cli.verdict", "zh", verdict=say("calc.cli.fits" if fit.fits else "calc.cli.no_fit", "zh"),
               gb=f"{fit.headroom / 1e9:,.2f}", gib=f"{fit.headroom / 2**30:,.2f}") in out
    assert say("calc.cli.params", "zh", n=f"{b.params:,}") in out
    for key in ("calc.cli.flops_per_token", "calc.cli.step_time", "calc.cli.chinchilla", "calc.mfu"):
        assert any(line.startswith(say(key, "zh")) for line in lines), key
    for key in ("calc.cli.compute", "calc.cli.step_comm"):
        assert any(line.startswith(say(key, "zh") + " ") for line in lines), key
    assert say("calc.cli.step_comm_value", "zh") in _flat_zh(out)
    assert say("calc.cli.tokens_per_s_on", "zh", gpus=say("calc.cli.gpus", "zh", n=1)) in out
    assert _no_english(out, "calc.cli.", "term.") == []
    for english in ("term ", "total ", "verdict", "capacity", "usable", "FLOPs per token", "step time",
                    "tokens/s on", "sum of the terms", "parameters:"):
        assert english not in out, english


def test_calc_serving_and_cluster_reports_in_chinese(capsys):
    code, out, _ = _run(capsys, *SERVING, "--lang", "zh")
    assert code == 0
    lines = out.splitlines()
    for key in ("calc.cli.kv_per_token", "calc.cli.weights_per_gpu", "calc.cli.kv_budget", "calc.cli.kv_size",
                "calc.cli.critical_batch", "calc.cli.decode_bytes", "calc.cli.decode_rate"):
        assert any(line.startswith(say(key, "zh")) for line in lines), key
    assert any(line.startswith(say("calc.cli.decode_step", "zh", batch="64")) for line in lines)
    assert any(line.startswith(say("calc.cli.max_concurrency_at", "zh", seq="2,048")) for line in lines)
    assert say("term.kv_cache", "zh") in out and "kv_cache" not in out
    assert _no_english(out, "calc.cli.", "term.") == []
    for english in ("KV per token per GPU", "weights per GPU", "critical batch", "aggregate", "per sequence",
                    "decode step", "prefill of"):
        assert english not in out, english

    code, out, _ = _run(capsys, *CLUSTER, "--lang", "zh")
    assert code == 0
    lines = out.splitlines()
    assert say("calc.cli.memory_per_gpu", "zh") in lines
    assert any(line.startswith(say("calc.cli.bubble", "zh")) for line in lines)
    assert any(line.startswith(say("calc.cli.step_bubble", "zh") + " ") for line in lines)
    assert say("calc.cli.comm_intro", "zh", link="450 GB/s") in out
    assert say("calc.cli.tokens_per_s_on", "zh", gpus=say("calc.cli.gpus", "zh", n=64)) in out
    assert say("calc.cli.params_moe", "zh", active=f"{M.PRESETS['qwen3-30b-a3b'].active_params:,}") in out
    assert any(line.startswith(say("calc.cli.total", "zh") + " ") for line in lines)  # the communication total
    assert _no_english(out, "calc.cli.", "term.") == []
    for english in ("bytes one GPU sends", "pipeline bubble", "of the ideal time", "active per token",
                    "not included", "total "):
        assert english not in out, english


def test_calc_solves_and_listing_in_chinese(capsys):
    cases = [
        (("--model", "llama-2-7b", "--method", "lora", "--gpu", "a100-40g", "--max", "batch"), "calc.cli.max_fits.microbatch"),
        (("--model", "llama-2-7b", "--gpu", "a100-80g", "--max", "model"), "calc.cli.max_model_shape"),
        (("--model", "7B", "--gpu", "a100-80g", "--max", "model"), "calc.cli.max_model_bare"),
        (("--model", "llama-2-70b", "--method", "inference", "--gpu", "h100", "--max", "tp", "--batch", "8"),
         "calc.cli.max_tp"),
        (("--model", "llama-2-70b", "--gpu", "h100", "--max", "gpus"), "calc.cli.max_gpus"),
    ]
    for argv, key in cases:
        code, out, _ = _run(capsys, "calc", *argv, "--lang", "zh")
        assert code == 0
        en = TEXT[key][1]
        first_words = en.split("{")[0].strip()  # the template's opening words, before any figure
        assert first_words and first_words in out, (argv, first_words)
        assert "that fits" not in out and "largest" not in out and "fewest" not in out
        assert _no_english(out, "calc.cli.") == [], argv
    code, out, _ = _run(capsys, "calc", "--list", "--lang", "zh")
    assert code == 0 and out.startswith(say("calc.cli.list_models", "zh") + "\n")
    assert say("calc.cli.list_gpus", "zh") + "\n" in out and "models:" not in out and "gpus:" not in out


def test_calc_json_is_the_same_in_every_language(capsys):
    for argv in (TRAINING, SERVING, CLUSTER, ("calc", "--list")):
        _, en, _ = _run(capsys, *argv, "--json")
        _, zh, _ = _run(capsys, *argv, "--json", "--lang", "zh")
        assert en == zh and json.loads(en)


def _row(name: str, middle: str, numbers: tuple[str, ...], name_width: int = 18, col: int = 10) -> str:
    """One table row as the report lays it out (the middle fits on the line)."""
    room = max(16, WIDTH - name_width - col * len(numbers))
    return f"{name:<{name_width}}{middle:<{room}}{''.join(f'{n:>{col}}' for n in numbers)}".rstrip()


def _pair(name: str, value: str) -> str:
    return _row(name, value, (), name_width=30)


def test_calc_english_report_keeps_its_lines(capsys):
    code, out, _ = _run(capsys, *TRAINING)
    assert code == 0
    lines, flat = out.splitlines(), _flat(out)
    setup = _setup(model="llama-2-7b", gpu="a100-80g")
    b, gb, gib = M.breakdown(setup), (lambda x: f"{x / 1e9:,.2f}"), (lambda x: f"{x / 2**30:,.2f}")
    fit = M.fit(b, setup.gpu, setup.reserve)
    assert lines[1] == f"parameters: {b.params:,}" == say("calc.cli.params", "en", n=f"{b.params:,}")
    assert "MEMORY" in lines and "TIME" in lines and "NOTES" in lines
    assert _row("term", "formula (with numbers)", ("GB", "GiB")) in lines
    assert say("calc.cli.col.term", "en") == "term" and say("calc.cli.col.formula", "en") == "formula (with numbers)"
    for t in b.terms:
        middle = t.formula if t.formula == t.substituted else f"{t.formula} = {t.substituted}"
        first = textwrap.wrap(middle, WIDTH - 18 - 20 - 1, break_on_hyphens=False)[0]
        assert _row(t.name, first, (gb(t.bytes), gib(t.bytes))) in lines, t.name  # the code, as --json names it
    assert _row("total", "sum of the terms", (gb(b.total), gib(b.total))) in lines
    assert (f"{fit.gpu.name}: capacity {gb(fit.capacity)} GB ({gib(fit.capacity)} GiB), usable {gb(fit.usable)} GB "
            f"({gib(fit.usable)} GiB) after a {gib(fit.reserve)} GiB reserve for CUDA context and slack") in flat
    verdict = "fits" if fit.fits else "does NOT fit"
    assert f"verdict: {verdict}; headroom {gb(fit.headroom)} GB ({gib(fit.headroom)} GiB)" in lines
    assert _pair("FLOPs per token", f"{M.flops_per_token(setup):.4g}") in lines
    assert _pair("  communication", "not included (see the communication section; no overlap assumed)") in lines
    from quizapp.memory import throughput

    mfu, hfu = throughput.utilisation(setup)
    assert _pair("MFU / HFU", f"{mfu:.1%} / {hfu:.1%} (from the {setup.mfu:g} setting)") in lines
    assert _pair("tokens/s on 1 GPU", f"{throughput.training_tokens_per_s(setup):,.0f} at HFU {setup.mfu:g}") in lines
    assert _pair("Chinchilla tokens (20·N)", f"{throughput.setup_chinchilla_tokens(setup):.3g}") in lines
    for t in b.terms:
        from quizapp.words.calc import render

        assert f"· {t.name}: {render(t.code, 'en')}" in flat


def test_calc_english_serving_and_communication_lines(capsys):
    from quizapp.memory import serving

    _, out, _ = _run(capsys, *SERVING)
    lines = out.splitlines()
    setup = _setup(method="inference", model="llama-2-7b", batch="64", gpu="h100")
    s = serving.serving_figures(setup)
    assert lines[0].endswith(f"weights {setup.weights} · KV {setup.kv_dtype} · 64 seq x {setup.seq} tokens")
    assert _pair("KV per token per GPU", f"{s.kv_bytes_per_token:,.0f} bytes") in lines
    assert _pair("KV cache size", f"{s.kv_tokens:,} tokens (blocks of {setup.kv_block})") in lines
    assert _pair(f"max concurrency at {setup.seq:,}", f"{s.max_concurrency:,} sequences") in lines
    assert _pair("critical batch", f"{s.critical_batch:,} (decode turns compute-bound, KV cache aside)") in lines
    decode = next(line for line in lines if line.startswith("decode step, batch 64"))
    assert f"({s.decode.bound}-bound: memory " in decode
    assert any(line.startswith("  tokens/s ") and line.endswith(
        f"{s.decode.tokens_per_s:,.1f} aggregate, {s.decode.per_seq_tokens_per_s:,.1f} per sequence") for line in lines)

    _, out, _ = _run(capsys, *CLUSTER)
    lines = out.splitlines()
    assert "bytes one GPU sends per step; time at 450 GB/s, no overlap" in lines
    assert any(line.startswith("pipeline bubble ") and "of the ideal time = (pp−1)/m with pp 4, m 1" in line
               for line in lines)
    assert any(line.startswith("tokens/s on 64 GPUs ") and line.endswith(", pipeline bubble included") for line in lines)
    assert "30,532,122,624 total · 3,353,032,704 active per token" in out


# --- error one-liners ------------------------------------------------------------------------------------
def _error(capsys, *argv: str) -> str:
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("quizapp: "), (argv, err)
    return err[len("quizapp: "):].rstrip("\n")


def test_calc_errors_follow_the_language(capsys):
    assert _error(capsys, "calc", "--lang", "zh") == say("calc.cli.no_model", "zh")
    assert _error(capsys, "calc") == say("calc.cli.no_model", "en") == (
        "--model: missing; expected a preset (see --list) or a parameter count like 7B")
    assert _error(capsys, "calc", "--model", "llama-2-7b", "--max", "batch", "--lang", "zh") == say(
        "calc.cli.max_needs_gpu", "zh", what="batch")
    assert _error(capsys, "calc", "--model", "llama-2-7b", "--gpu", "h100", "--max", "tp", "--lang", "zh") == say(
        "calc.cli.max_serving_only", "zh", what="tp")
    assert _error(capsys, "calc", "--model", "llama-2-7b", "--method", "inference", "--gpu", "h100", "--max", "gpus",
                  "--lang", "zh") == say("calc.cli.max_training_only", "zh")
    assert _error(capsys, "calc", "--model", "llama-2-7b", "--max", "batch") == "--max batch: needs --gpu NAME (see --list)"


def test_content_command_errors_follow_the_language(capsys, tmp_path):
    from quizapp.cli.args import quote

    assert _error(capsys, "drill", "no-such-question/x", "--lang", "zh") == say(
        "drill.cli.no_question", "zh", qid=quote("no-such-question"))
    bank_question = "single-gpu-requirements"
    message = _error(capsys, "drill", f"{bank_question}/no-such-drill", "--lang", "zh")
    assert message.startswith(say("drill.cli.no_drill", "zh", ref=quote(f"{bank_question}/no-such-drill"), choices=""))
    missing = tmp_path / "missing"
    assert _error(capsys, "validate", str(missing), "--lang", "zh") == say(
        "validate.cli.path_problem", "zh", reason=say("validate.cli.no_such_path", "zh"), path=missing)
    assert _error(capsys, "validate", str(missing)) == f"no such file or folder: {missing}"
    message = _error(capsys, "preview", str(missing / "q.yaml"), "--lang", "zh")
    assert message.endswith("；应为题目 YAML 文件") and "expected" not in message
    close = _error(capsys, "show", "kv-cach", "--lang", "zh")
    assert close.startswith(say("show.unknown", "zh", qid="kv-cach", hint="")) and "did you mean" not in close
    folder = tmp_path / "content"
    (folder / "misc").mkdir(parents=True)
    assert _run(capsys, "new", "my-question", "--content", str(folder))[0] == 0
    assert _error(capsys, "new", "my-question", "--content", str(folder), "--lang", "zh") == say(
        "new.cli.id_exists", "zh", qid="my-question", path=folder / "misc" / "my-question.yaml")


# --- other commands' text --------------------------------------------------------------------------------
def test_drill_text_in_chinese(capsys):
    code, out, _ = _run(capsys, "drill", "single-gpu-requirements/adamw-7b", "--seed", "1", "--answer", "1 GB",
                        "--lang", "zh")
    assert code == 0
    lines = out.splitlines()
    for key in ("drill.cli.setup", "drill.cli.params"):
        prefix = TEXT[key][1].split("{")[0]
        assert any(line.startswith(prefix) for line in lines), key
    assert any(line.startswith(TEXT["drill.cli.expected"][1].split("{")[0]) for line in lines)
    assert any(line.strip().startswith(say("calc.cli.total", "zh") + " ") for line in lines)
    assert any(line.strip().startswith(say("term.master_weights", "zh") + " ") for line in lines)
    graded = next(line for line in lines if line.startswith(TEXT["drill.cli.graded"][1].split("{")[0]))
    assert say("drill.cli.verdict.wrong", "zh") in graded and say("rating.1", "zh") in graded
    for english in ("expected:", "setup:", "params:", "note:", "answer:", "suggested rating", "master_weights", "total"):
        assert english not in out, english


def test_validate_summary_in_both_languages(capsys):
    from quizapp.content.bank import load_content

    bank = load_content(())
    counts = {"questions": len(bank.questions), "cards": len(bank.cards()),
              "drills": sum(len(q.drills) for q in bank.questions)}
    code, out, _ = _run(capsys, "validate", "--lang", "zh")
    assert code == 0
    assert out.splitlines()[-1] == say("validate.cli.summary", "zh", counts=say("validate.cli.counts", "zh", **counts),
                                       verdict=say("validate.cli.no_problems", "zh"))
    _, out, _ = _run(capsys, "validate")
    assert out.splitlines()[-1] == (f"{counts['questions']} questions, {counts['cards']} cards, "
                                    f"{counts['drills']} drills: no problems")


def test_settings_text_in_chinese_and_the_catalog_matches_the_store(capsys):
    from quizapp.store.config import SETTINGS

    for key, spec in SETTINGS.items():  # the English side is the store's text, which --json prints
        assert say(f"settings.desc.{key}", "en") == spec.description, key
        assert say(f"settings.expected.{key}", "en") == spec.expected, key
    code, out, _ = _run(capsys, "settings", "--lang", "zh")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == [say(f"settings.cli.col.{c}", "zh") for c in ("setting", "value", "default")]
    for key in SETTINGS:
        assert say(f"settings.desc.{key}", "zh") in out
    assert say("settings.cli.changed_mark", "zh") in lines
    for english in ("setting ", "(* = changed", "database:", "change one with", *(s.description for s in SETTINGS.values())):
        assert english not in out, english
    _, out, _ = _run(capsys, "settings", "desired_retention", "--lang", "zh")
    assert out.splitlines() == [say("settings.cli.value_default", "zh", key="desired_retention", value="0.9"),
                                "  " + say("settings.desc.desired_retention", "zh"),
                                say("settings.cli.expected", "zh", expected=say("settings.expected.desired_retention", "zh"))]
    _, en_json, _ = _run(capsys, "settings", "--json")
    _, zh_json, _ = _run(capsys, "settings", "--json", "--lang", "zh")
    assert en_json == zh_json


def test_queue_text_in_chinese(capsys):
    code, out, _ = _run(capsys, "queue", "--lang", "zh")
    assert code == 0
    lines = out.splitlines()
    rows = [line.split() for line in lines[2:]]
    assert rows and all(row[1] == say("queue.section.new", "zh") for row in rows)  # no history: every card is new
    kinds = {say(f"queue.kind.{k}", "zh") for k in ("question", "followup", "drill")}
    assert all(row[2] in kinds for row in rows)
    assert "：" + TEXT["queue.counts"][1].split("{")[0] in lines[1]
    assert not any(row[1] in ("new", "learning", "review") or row[2] in ("question", "followup", "drill")
                   or row[-1] == "new" for row in rows)  # the codes the English table shows
    assert "learning ·" not in lines[1]
    code, en, _ = _run(capsys, "queue", "--json")
    code, zh, _ = _run(capsys, "queue", "--json", "--lang", "zh")
    assert json.loads(en)["days"] == json.loads(zh)["days"]


def test_new_catalog_keys_have_both_languages():
    from quizapp.words import DOMAINS

    assert "cli" in DOMAINS
    keys = [k for k in TEXT if k.startswith(("calc.cli.", "drill.cli.", "validate.cli.", "settings.", "queue.cli.",
                                             "queue.section.", "queue.kind.", "new.cli.", "mock.cli.", "show.cli."))]
    assert len(keys) > 100
    for key in keys:
        en, zh = TEXT[key]
        assert en and zh, key


def test_cards_list_in_chinese(capsys, tmp_path, monkeypatch):
    from datetime import datetime, timezone

    from quizapp.clock import FakeClock
    from quizapp.content.bank import load_content
    from quizapp.store import Store

    db = tmp_path / "q.sqlite3"
    monkeypatch.setenv("QUIZAPP_DB", str(db))
    card = load_content(()).cards()[0]
    with Store.open(db, FakeClock(start=datetime(2026, 1, 5, 9, tzinfo=timezone.utc))) as store:
        store.sync(load_content(()).cards())
        store.review(card.card_id, 3, duration_ms=1000)
        store.review(card.card_id, 3, duration_ms=1000)
    assert main(["cards", "--flag", "2", "--", "-is:new"]) == 0
    capsys.readouterr()
    code, out, _ = _run(capsys, "cards", "--lang", "zh", "--", "-is:new")
    assert code == 0
    row = next(line for line in out.splitlines() if card.card_id in line)
    assert TEXT["cards.list.due"][1].split("{")[0] in row and say("cards.list.flag", "zh", n=2) in row
    assert " due " not in row and "flag " not in row and "ivl " not in row
    _, out, _ = _run(capsys, "cards", "--", "-is:new")
    row = next(line for line in out.splitlines() if card.card_id in line)
    assert " due " in row and "flag 2" in row and "ivl " in row
