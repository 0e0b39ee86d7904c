"""content/drills.py's small rules, each pinned by hand-derived literals so a one-line slip fails:
how a setup value is written into a prompt, how many digits a shown value keeps, which unit a
`{{drill.term}}` reference uses. Written for the mutation run of drills.py (benchmarks/mutation.py
drills); each test names the mutants it kills."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from quizapp.content import draw_variant, load_bank, render_text
from quizapp.content.drills import base_options, fill_prompt, precise, shown_digits

HERE = Path(__file__).parent


def test_a_prompt_writes_values_as_yaml_does():
    # kills x__display_value__mutmut_1..6 (true/false spelled or chosen wrongly) and 9..13 (the list's
    # brackets, separator and items)
    prompt = fill_prompt("{a} {b} {shape} {chain} {n} {name}",
                         {"a": True, "b": False, "shape": [4096, 4096, 11008], "chain": [[1, 1], [2, 1]],
                          "n": 3.5, "name": "h100"})
    assert prompt == "true false [4096, 4096, 11008] [[1, 1], [2, 1]] 3.5 h100"
    assert fill_prompt("{x}", {"x": (True, False)}) == "[true, false]"


@pytest.mark.parametrize(("shown", "digits"), [
    (0, 2), (math.inf, 2), (-math.inf, 2), (math.nan, 2),  # no magnitude: two decimals
    (112, 2),  # 3 - 1 - 2 = 0, at least 2
    (9.99, 2),  # 3 - 1 - 0 = 2
    (0.128, 3),  # 3 - 1 - (-1) = 3
    (-0.128, 3),  # by magnitude
    (0.0999, 4),  # floor(log10 0.0999) = -2: 3 - 1 + 2 = 4
    (0.00421, 5),  # 3 - 1 + 3 = 5
    (1e-12, 8),  # 3 - 1 + 12 = 14, capped at MAX_DIGITS 8
])
def test_shown_digits_keep_three_significant_digits(shown, digits):
    # kills x_shown_digits__mutmut_1..4, 6 (the no-magnitude case) and 18 (one digit fewer)
    assert shown_digits(shown) == digits


def test_precise_values_and_their_nouns():
    # kills x_precise__mutmut_1, 2 (the default noun), 10 (the noun dropped), 12 (digits of value x scale)
    assert precise(128_000, "MB") == "0.128 MB"  # 0.128 -> 3 decimals
    assert precise(112e9, "GB") == "112.00 GB"  # 16 bytes x 7e9
    assert precise(2.5e12, "T", "tokens") == "2.50T tokens"
    assert precise(7e9, "B") == "7.00B params"  # the default noun
    assert precise(0.375, "%") == "37.50%"  # (p - 1)/m = 3/8


def test_base_options_take_the_setup_then_each_vary_s_first_choice(good):
    drill = good.drill("states-vary")
    options = base_options(drill)
    assert options["model"] == "7B"  # vary: [7B, 13B, 70B], not in setup
    for field, value in drill.setup.items():
        assert options[field] == value


TOKENS_DRILL = """
  - id: chinchilla
    prompt: "{model} 按 20 token/参数应训练多少 token？"
    setup: {model: 7B}
    ask: chinchilla_tokens
    unit: B
  - id: per-param-percent
    prompt: "混合精度 AdamW 每参数字节数，以 % 表示？"
    setup: {model: 7B, method: full, precision: bf16-mixed, optimizer: adamw}
    ask: bytes_per_param
    unit: '%'
"""


@pytest.fixture(scope="module")
def with_tokens(tmp_path_factory):
    """The good fixture plus a drill whose ask counts tokens and has a derivation (no memory term)."""
    folder = tmp_path_factory.mktemp("bank") / "llm-training"
    folder.mkdir()
    text = (HERE / "fixtures" / "good" / "llm-training" / "mini-adamw.yaml").read_text(encoding="utf-8")
    (folder / "mini-adamw.yaml").write_text(text.rstrip("\n") + "\n" + TOKENS_DRILL.lstrip("\n"), encoding="utf-8")
    bank = load_bank([folder.parent])
    assert bank.problems == ()
    return bank.questions[0]


def test_a_token_count_is_shown_in_tokens_with_its_derivation(with_tokens):
    # kills x_draw_variant__mutmut_55, 58, 59 (the count noun lost: "params") and 22, 37, 48 (the
    # derivation dropped)
    variant = draw_variant(with_tokens, with_tokens.drill("chinchilla"), seed=0)
    assert variant.expected == pytest.approx(140e9)  # 20 tokens x 7e9 params
    assert variant.expected_display == "140.00B tokens"
    assert variant.derivation is not None and variant.derivation.ask == "chinchilla_tokens"
    assert variant.derivation.value == variant.expected
    memory_term = draw_variant(with_tokens, with_tokens.drill("states"), seed=0)
    assert memory_term.expected_display == "112.00 GB"  # 16 bytes x 7e9


def test_a_reference_to_a_missing_drill_names_it(good):
    from quizapp.content.drills import reference_value

    # kills x_reference_value__mutmut_4 (the KeyError without the id)
    with pytest.raises(KeyError) as caught:
        reference_value(good, "no-such-drill", None)
    assert caught.value.args == ("no-such-drill",)


def test_a_reference_takes_the_drill_s_unit_only_for_its_own_kind(with_tokens):
    # kills x_reference_value__mutmut_28..35: a plain number (bytes_per_param, kind number) is shown
    # in a drill's ratio unit (%) only as that drill's own ask; the same term under a GB drill is a
    # plain number, not gigabytes
    assert render_text(with_tokens, "{{per-param-percent}}") == "1,600.00%"  # 2 + 2 + 4 + 8 = 16 = 1,600 %
    assert render_text(with_tokens, "{{states.bytes_per_param}}") == "16"
    assert render_text(with_tokens, "{{bytes-per-param}}") == "16"  # unit x: a plain number
    assert render_text(with_tokens, "{{states.optimizer_states}}") == "56.00 GB"  # 8 bytes x 7e9, the drill's unit


def test_a_token_reference_says_tokens(with_tokens):
    # kills x_reference_value__mutmut_47, 48 (the count noun of a reference)
    assert render_text(with_tokens, "{{chinchilla}}") == "140.00B tokens"  # 20 x 7e9
    assert render_text(with_tokens, "{{params-count}}") == "7.00B params"


def test_render_text_of_nothing_and_of_both_languages(good):
    from quizapp.content.schema import LangText

    # kills x_render_text__mutmut_2, 3 (no text), 4, 5, 6 (a bilingual field: its own language)
    assert render_text(good, None) == ""
    assert render_text(good, "") == ""
    assert good.lang == "zh"
    assert render_text(good, LangText(en="E {{states}}", zh="中 {{states}}")) == "中 112.00 GB"
    assert render_text(good, LangText(en="only English {{states}}")) == "only English 112.00 GB"
    assert render_text(good, "plain {{states}}") == "plain 112.00 GB"


def test_a_drill_whose_unit_does_not_fit_its_ask_renders_in_a_readable_unit(good):
    # kills x_reference_value__mutmut_27: a file that failed validation (a bytes ask in %) is still
    # previewed; its own ask is shown in a unit of its kind, not as 11,200,000,000,000 %
    drill = good.drill("states").model_copy(update={"unit": "%"})
    broken = good.model_copy(update={"drills": type(good.drills)(
        (drill, *(d for d in good.drills if d.id != "states")))})
    assert broken.drill("states").unit == "%"
    assert render_text(broken, "{{states}}") == "112.00 GB"  # 16 bytes x 7e9
