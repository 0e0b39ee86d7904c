"""The validated bundled bank a wheel ships (quizapp.content.cache.write_shipped / _from_shipped): the
first run reads it when the folders hold exactly the bundled files with the same bytes, and never
otherwise (an edited file, a question of the user's, a damaged file: the bank is validated as usual)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mock_support import QUESTIONS, write_bank

from quizapp import locations
from quizapp.content import cache, load_bank
from quizapp.content.cache import CachedBank, load_bank_cached, write_shipped

BROKEN = "id: broken\ntitle: no answer here\ntopic: t-one\nunknown_key: 1\n"


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A bank built into a shipped cache at one place, then 'installed' (copied) at another, as a wheel
    is built in a checkout and unpacked into site-packages."""
    built = write_bank(tmp_path / "build" / "content")
    (built / "t-one" / "broken.yaml").write_text(BROKEN, encoding="utf-8")  # its problems ship too
    shipped = tmp_path / "site" / "_bank.pickle"
    write_shipped(built, shipped)
    bundled = tmp_path / "site" / "_bank"
    shutil.copytree(built, bundled)
    shutil.rmtree(tmp_path / "build")  # nothing may point back at where it was built
    monkeypatch.setattr(locations, "bundled_content_dir", lambda: bundled)
    monkeypatch.setattr(locations, "shipped_bank_cache", lambda: shipped)
    monkeypatch.setattr(locations, "user_content_dir", lambda: tmp_path / "user")
    return bundled


def test_the_first_run_reads_the_shipped_bank_and_it_is_the_bank_validated_where_it_is(installed, tmp_path):
    first = load_bank_cached([installed], tmp_path / "cache")
    assert isinstance(first, CachedBank)  # no user cache yet: the shipped one
    fresh = load_bank([installed])
    assert first.questions == fresh.questions and first.cards() == fresh.cards()
    assert [q.source_path for q in first.questions] == [q.source_path for q in fresh.questions]
    assert all(installed in q.source_path.parents for q in first.questions)  # moved with the install
    assert [str(p) for p in first.problems] == [str(p) for p in fresh.problems] and first.problems
    assert cache.cache_file(tmp_path / "cache", [installed]).is_file()  # and the user's cache written from it


def test_a_read_only_command_reads_it_and_writes_nothing(installed, tmp_path):
    bank = load_bank_cached([installed], tmp_path / "cache", write=False)
    assert isinstance(bank, CachedBank)
    assert not (tmp_path / "cache").exists()


def test_an_empty_user_folder_beside_the_bundled_bank_still_reads_it(installed, tmp_path):
    (tmp_path / "user").mkdir()
    assert isinstance(load_bank_cached([installed, tmp_path / "user"], tmp_path / "cache"), CachedBank)


def test_a_question_of_the_users_is_validated_with_the_bank(installed, tmp_path):
    user = tmp_path / "user"
    (user / "mine").mkdir(parents=True)
    (user / "mine" / "gamma.yaml").write_text(QUESTIONS["t-one/alpha.yaml"].replace("id: alpha", "id: gamma"),
                                              encoding="utf-8")
    bank = load_bank_cached([installed, user], tmp_path / "cache")
    assert not isinstance(bank, CachedBank)
    assert "gamma" in {q.id for q in bank.questions}


def test_one_changed_byte_in_a_bundled_file_is_validated_again(installed, tmp_path):
    path = installed / "t-two" / "beta.yaml"
    path.write_text(QUESTIONS["t-two/beta.yaml"].replace("Memory first, then time.", "Memory first, then tim."),
                    encoding="utf-8")
    bank = load_bank_cached([installed], tmp_path / "cache")
    assert not isinstance(bank, CachedBank)
    assert "then tim." in bank.question("beta").model_dump_json()


def test_a_changed_code_file_is_validated_again(installed, tmp_path, monkeypatch):
    code = tmp_path / "code"
    shutil.copytree(cache._PACKAGE / "content", code / "content")
    shutil.copytree(cache._PACKAGE / "memory", code / "memory")
    monkeypatch.setattr(cache, "_PACKAGE", code)
    assert isinstance(load_bank_cached([installed], tmp_path / "cache", write=False), CachedBank)  # same bytes
    with open(code / "memory" / "gpus.py", "a", encoding="utf-8") as handle:
        handle.write("\n# a changed table\n")
    assert not isinstance(load_bank_cached([installed], tmp_path / "cache", write=False), CachedBank)


def test_no_cache_folder_means_not_the_shipped_one_either(installed):
    assert not isinstance(load_bank_cached([installed], None), CachedBank)  # e.g. validate: always validated


def test_a_damaged_shipped_file_is_ignored(installed, tmp_path):
    shipped = locations.shipped_bank_cache()
    shipped.write_bytes(shipped.read_bytes()[:1000])
    bank = load_bank_cached([installed], tmp_path / "cache")
    assert not isinstance(bank, CachedBank) and bank.questions


def test_other_folders_never_read_it(installed, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(installed, other)  # the same bytes, but not the bundled bank
    assert not isinstance(load_bank_cached([other], tmp_path / "cache"), CachedBank)
