"""A question with {en, zh} text only in its reading, common mistakes or errata is still bilingual:
shown in its own language, those fields come out as plain text in that language."""

from __future__ import annotations

import pytest
from mock_support import QUESTIONS

from quizapp.content import load_bank
from quizapp.content.localize import is_bilingual, shown

EXTRA = {
    "reading": """\
reading:
  - {en: "The ZeRO paper, section 3", zh: "ZeRO 论文第 3 节"}
""",
    "mistakes": """\
mistakes:
  - id: activations-counted
    wrong: {en: "16 bytes includes activations", zh: "16 字节包含激活"}
    right: "Model states only"
    why: "Activations scale with batch and sequence"
""",
    "errata": """\
errata:
  - claim: "Adam needs 12 bytes"
    correct: {en: "16 bytes with bf16 weights and grads", zh: "bf16 权重与梯度时为 16 字节"}
    why: "2 + 2 + 4 + 4 + 4"
""",
}


@pytest.mark.parametrize("field", sorted(EXTRA))
def test_a_pair_in_one_list_field_makes_the_question_bilingual(tmp_path, field):
    (tmp_path / "t-one").mkdir()
    (tmp_path / "t-one" / "alpha.yaml").write_text(QUESTIONS["t-one/alpha.yaml"] + EXTRA[field], encoding="utf-8")
    bank = load_bank([tmp_path])
    assert bank.problems == (), bank.problems
    question = bank.question("alpha")
    assert is_bilingual(question)
    own = shown(question)  # lang: en
    assert not is_bilingual(own)
    if field == "reading":
        assert own.reading == ["The ZeRO paper, section 3"]
    elif field == "mistakes":
        assert own.mistakes[0].wrong == "16 bytes includes activations"
    else:
        assert own.errata[0].correct == "16 bytes with bf16 weights and grads"
