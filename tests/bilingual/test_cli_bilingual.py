"""The CLI in both content languages: `show --json --lang`, `drill` prompts, `points` text and JSON,
and the Anki export (one deck per language) opened back."""

from __future__ import annotations

from quizapp.content.localize import localized

import json
import re
import sqlite3
import zipfile

from quizapp.cli import main

CJK = re.compile(r"[\u3400-\u9fff]")


def test_show_json_gives_the_question_in_each_language_with_the_same_keys(kv_dir, capsys):
    assert main(["--content", str(kv_dir), "--lang", "en", "show", "kv-points", "--json"]) == 0
    en = json.loads(capsys.readouterr().out)
    assert main(["--content", str(kv_dir), "--lang", "zh", "show", "kv-points", "--json"]) == 0
    zh = json.loads(capsys.readouterr().out)
    assert en.keys() == zh.keys()
    assert en["lang"] == "en" and zh["lang"] == "zh"
    assert en["title"] == "How big is the KV cache of llama-2-7b, and what does it scale with?"
    assert zh["title"] == "llama-2-7b 的 KV cache 有多大，和什么成正比？"
    # the same number, from the same drill, in both: 2 x 32 x 32 x 128 x 4096 x 8 x 2 bytes = 17.18 GB
    assert "17.18 GB" in en["answer"] and "17.18GB" in zh["answer"]
    assert not CJK.search(en["answer"]) and CJK.search(zh["answer"])


def test_a_bundled_question_shows_in_english(capsys):
    assert main(["--lang", "en", "show", "single-gpu-requirements"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# ") and not CJK.search(out.split("## ")[1])  # the intent and on: English prose


def test_points_lists_checks_and_suggests_in_text(kv_dir, capsys):
    assert main(["--content", str(kv_dir), "points", "kv-points", "--answer",
                 "2·L·a_kv·d·s·b·p, linear in the batch, about 16 GiB"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "kv-points/question/main"
    assert out[1].startswith("  ✓ The KV cache is 2·L·a_kv·d·s·b·p bytes (must)")
    assert out[3].startswith("  ✗ It counts the KV heads")
    assert "(by: 16 GiB)" in out[4]
    assert out[-1] == "Covered 3 of 4 (75%); suggested rating: Hard"


def test_points_json_for_a_followup_and_an_empty_answer(kv_dir, capsys):
    assert main(["--content", str(kv_dir), "points", "kv-points/followup/gqa", "--json",
                 "--answer", "GQA 让 cache 缩小 a/a_kv 倍"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == {"card_id": "kv-points/followup/gqa",
                    "points": [{"id": "shrinks", "text": "The cache shrinks by a/a_kv", "must": True,
                                "covered": True, "by": "a/a_kv"},
                               {"id": "same-flops", "text": "The attention FLOPs stay the same", "must": False,
                                "covered": False, "by": None}],
                    "covered": 1, "total": 2, "coverage": 0.5, "suggested": "hard"}
    assert main(["--content", str(kv_dir), "points", "kv-points", "--json", "--answer", ""]) == 0
    empty = json.loads(capsys.readouterr().out)
    assert (empty["covered"], empty["suggested"]) == (0, "again")


def test_points_refuses_a_bad_id_in_one_line(kv_dir, capsys):
    assert main(["--content", str(kv_dir), "points", "kv-points/drill/kv-batch8"]) == 2
    assert main(["--content", str(kv_dir), "points", "kv-points/followup/nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "nope" in err[1] and "gqa" in err[1]


def _notes(path, tmp_path):
    with zipfile.ZipFile(path) as z:
        z.extract("collection.anki2", tmp_path / path.stem)
    db = sqlite3.connect(tmp_path / path.stem / "collection.anki2")
    try:
        decks = json.loads(db.execute("SELECT decks FROM col").fetchone()[0])
        return {guid: flds for guid, flds in db.execute("SELECT guid, flds FROM notes")}, \
            {d["name"] for d in decks.values()}
    finally:
        db.close()


def test_the_anki_export_is_one_deck_per_language_opened_back(kv_dir, tmp_path, capsys):
    en_path, zh_path = tmp_path / "en.apkg", tmp_path / "zh.apkg"
    db = ["--db", str(tmp_path / "q.sqlite3"), "--content", str(kv_dir)]
    assert main([*db, "--lang", "en", "export", "anki", str(en_path)]) == 0
    assert main([*db, "--lang", "zh", "export", "anki", str(zh_path)]) == 0
    en_notes, en_decks = _notes(en_path, tmp_path)
    zh_notes, zh_decks = _notes(zh_path, tmp_path)
    assert "quizapp (English)" in en_decks and "quizapp" in zh_decks
    assert len(en_notes) == len(zh_notes) == 1 + 1 + 1  # the question, its follow-up, its drill
    assert not set(en_notes) & set(zh_notes)  # importing both decks never merges the two languages
    question_en = next(f for f in en_notes.values() if f.startswith("kv-points/question/main"))
    question_zh = next(f for f in zh_notes.values() if f.startswith("kv-points/question/main"))
    assert "How big is the KV cache" in question_en and not CJK.search(question_en)
    assert "有多大" in question_zh


def test_a_question_in_one_language_is_shown_in_it_and_marked(tmp_path, capsys):
    folder = tmp_path / "mine" / "inference"
    folder.mkdir(parents=True)
    (folder / "my-own.yaml").write_text("id: my-own\ntitle: 我自己的题\ntopic: inference\nanswer: |\n  只有中文的答案。\n",
                                        encoding="utf-8")
    assert main(["--content", str(tmp_path / "mine"), "--lang", "en", "show", "my-own"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# 我自己的题") and "shown in Chinese: no English text yet" in out
    assert "只有中文的答案。" in out  # never a blank

    from quizapp.content import load_bank
    from quizapp.tui.widgets.question_view import QuestionView

    question = localized(load_bank([tmp_path / "mine"]), "en").question("my-own")
    meta = str(QuestionView(question, lang="en").meta_text())
    assert "shown in Chinese: no English text yet" in meta
    assert str(QuestionView(localized(load_bank([tmp_path / "mine"]), "zh").question("my-own"), lang="zh").meta_text()) \
        .count("暂无") == 0  # in its own language nothing is marked
