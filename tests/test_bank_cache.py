"""The validated-bank cache (quizapp.content.cache): the same bank as loading it, without YAML or pydantic
until a question is needed, and rebuilt whenever a file it depends on changes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from mock_support import QUESTIONS, write_bank

from quizapp.content import load_bank
from quizapp.content.cache import CachedBank, load_bank_cached

BROKEN = "id: broken\ntitle: no answer here\ntopic: t-one\nunknown_key: 1\n"


def same_bank(a, b) -> None:
    assert a.questions == b.questions
    assert [q.source_path for q in a.questions] == [q.source_path for q in b.questions]
    assert a.cards() == b.cards() and a.topics() == b.topics()
    assert [str(p) for p in a.problems] == [str(p) for p in b.problems]


def test_a_second_load_comes_from_the_cache_and_is_the_same_bank(tmp_path):
    bank_dir = write_bank(tmp_path / "bank")
    (bank_dir / "t-one" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    first = load_bank_cached([bank_dir], tmp_path / "cache")
    assert not isinstance(first, CachedBank)  # nothing cached yet: loaded, then written
    second = load_bank_cached([bank_dir], tmp_path / "cache")
    assert isinstance(second, CachedBank)
    same_bank(second, load_bank([bank_dir]))
    assert second.problems  # the broken file's problems come back too


def test_the_cache_loads_without_yaml_or_pydantic_until_a_question_is_needed(tmp_path):
    bank_dir = write_bank(tmp_path / "bank")
    load_bank_cached([bank_dir], tmp_path / "cache")
    code = (
        "import sys\nfrom pathlib import Path\nfrom quizapp.content.cache import load_bank_cached\n"
        f"bank = load_bank_cached([Path({str(bank_dir)!r})], Path({str(tmp_path / 'cache')!r}))\n"
        "bank.topics(); bank.cards(); bank.problems\n"
        "print(type(bank).__name__, ','.join(m for m in ('yaml', 'pydantic') if m in sys.modules))\n"
        "bank.question('alpha')\n"
        "print('pydantic' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["CachedBank ", "True"]


def test_an_edited_file_is_read_again(tmp_path):
    bank_dir = write_bank(tmp_path / "bank")
    load_bank_cached([bank_dir], tmp_path / "cache")
    path = bank_dir / "t-two" / "beta.yaml"
    path.write_text(QUESTIONS["t-two/beta.yaml"].replace("Memory first, then time.", "Edited."), encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # a new mtime even on coarse clocks
    again = load_bank_cached([bank_dir], tmp_path / "cache")
    assert not isinstance(again, CachedBank)
    assert again.question("beta").answer.strip() == "Edited."
    assert load_bank_cached([bank_dir], tmp_path / "cache").question("beta").answer.strip() == "Edited."


def test_a_new_or_removed_file_is_seen(tmp_path):
    bank_dir = write_bank(tmp_path / "bank")
    load_bank_cached([bank_dir], tmp_path / "cache")
    (bank_dir / "t-two" / "gamma.yaml").unlink()
    assert load_bank_cached([bank_dir], tmp_path / "cache").question("gamma") is None


def test_an_unreadable_cache_is_ignored(tmp_path):
    bank_dir = write_bank(tmp_path / "bank")
    cache = tmp_path / "cache"
    load_bank_cached([bank_dir], cache)
    (only,) = cache.glob("bank-*.pickle")
    only.write_bytes(b"not a pickle")
    rebuilt = load_bank_cached([bank_dir], cache)
    same_bank(rebuilt, load_bank([bank_dir]))
    assert isinstance(load_bank_cached([bank_dir], cache), CachedBank)  # and written again


def test_no_cache_folder_means_no_cache(tmp_path):
    bank_dir = write_bank(tmp_path / "bank")
    assert not isinstance(load_bank_cached([bank_dir], None), CachedBank)
    assert not any(Path(tmp_path).glob("**/bank-*.pickle"))
