"""The parsing half of quizapp/store/search.py pinned exactly: SearchError, the tokenizer, the parser's
precedence and every error's code, 1-based column and details, and the Term each key builds.

Pure functions, no store: every expected value is a literal, with how it follows from the query.
Mutants named in a test's comment are the survivors of benchmarks/mutation.py search it kills."""

from __future__ import annotations

import pytest
from deadline import within

from quizapp.store.search import All, Any_, Not, SearchError, Term, _Parser, _term, _terms, _Token, _tokens, parse

KEYS_TEXT = "topic, tag, kind, is, flag, prop, rated, mistake, missed"
PROPS_TEXT = "ivl, due, lapses, reps, s, d, r"
OPS_TEXT = ">= <= != > < ="
KINDS_TEXT = "question | followup | drill"
IS_TEXT = "due | new | learn | review | suspended | buried | leech"


def error_of(query: str) -> tuple[str, int, dict]:
    with pytest.raises(SearchError) as caught:
        parse(query)
    return caught.value.code, caught.value.column, caught.value.details


# --- SearchError -------------------------------------------------------------------------------------


def test_search_error_fields_and_message_with_details():
    # SearchError.__init__ mutants: code/column/details stored as given, str() = "col N: CODE {details}"
    # (kills SearchError__init____mutmut_4: message None, and _5: details dropped from the message)
    e = SearchError("search.bad_flag", 6, value="9")
    assert e.code == "search.bad_flag"
    assert e.column == 6
    assert e.details == {"value": "9"}
    assert str(e) == "col 6: search.bad_flag {'value': '9'}"
    assert e.args == ("col 6: search.bad_flag {'value': '9'}",)
    assert isinstance(e, ValueError)


def test_search_error_message_without_details():
    # no details: the message has no trailing dict (the `if details` branch of SearchError.__init__)
    # (kills SearchError__init____mutmut_4 and _6: `{}` appended when there are no details)
    e = SearchError("search.empty_parens", 1)
    assert e.code == "search.empty_parens"
    assert e.column == 1
    assert e.details == {}
    assert str(e) == "col 1: search.empty_parens"


def test_search_error_from_parse_carries_its_message():
    # (kills _term__mutmut_123 _126: bad_flag's column / value detail)
    # parse('a (b') : '(' at column 3, never closed
    with pytest.raises(SearchError) as caught:
        parse("a (b")
    assert str(caught.value) == "col 3: search.unclosed_paren"
    # 'flag:9': the value starts at column 6 (after 'flag:')
    with pytest.raises(SearchError) as caught:
        parse("flag:9")
    assert str(caught.value) == "col 6: search.bad_flag {'value': '9'}"


# --- _tokens -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("query, expected", [
    ("", []),
    ("   ", []),  # only whitespace: no tokens
    ("a", [_Token("word", "a", 1)]),
    ("a bc", [_Token("word", "a", 1), _Token("word", "bc", 3)]),  # 'bc' starts at column 3
    ("a\tb\nc", [_Token("word", "a", 1), _Token("word", "b", 3), _Token("word", "c", 5)]),  # any whitespace
    ("  x", [_Token("word", "x", 3)]),  # leading spaces count in the column
    ("(a)", [_Token("lparen", "(", 1), _Token("word", "a", 2), _Token("rparen", ")", 3)]),
    ("a(b)c", [_Token("word", "a", 1), _Token("lparen", "(", 2), _Token("word", "b", 3),
               _Token("rparen", ")", 4), _Token("word", "c", 5)]),  # parentheses end a word
    ("-a", [_Token("neg", "-", 1), _Token("word", "a", 2)]),
    ("--a", [_Token("neg", "-", 1), _Token("neg", "-", 2), _Token("word", "a", 3)]),  # '-' then '-a'
    ("-(a)", [_Token("neg", "-", 1), _Token("lparen", "(", 2), _Token("word", "a", 3), _Token("rparen", ")", 4)]),
    ("a-b", [_Token("word", "a-b", 1)]),  # a '-' inside a word is part of it
    ('"kv cache" x', [_Token("phrase", "kv cache", 1), _Token("word", "x", 12)]),  # closing quote at 10
    ('""', [_Token("phrase", "", 1)]),
    # a phrase ends at the next quote, not the last one in the query (_tokens__mutmut_74)
    ('"a" "b"', [_Token("phrase", "a", 1), _Token("phrase", "b", 5)]),  # second phrase opens at 5
    ('topic:"llm training"', [_Token("word", "topic:llm training", 1)]),  # a quoted value inside a word
    # a quoted value ends at the next quote, not the last one in the query (_tokens__mutmut_118)
    ('topic:"a" "b"', [_Token("word", "topic:a", 1), _Token("phrase", "b", 11)]),  # second phrase opens at 11
    ('a"b c"d e', [_Token("word", "ab cd", 1), _Token("word", "e", 9)]),  # quotes at 2 and 6; 'e' at 9
    ("or OR And and", [_Token("or", "or", 1), _Token("or", "OR", 4), _Token("and", "And", 7),
                       _Token("and", "and", 11)]),  # or/and in any case; the text keeps its case
    ('"or"', [_Token("phrase", "or", 1)]),  # a quoted or is a phrase, not the operator
    ("orx andy", [_Token("word", "orx", 1), _Token("word", "andy", 5)]),  # only the whole word
    # a phrase ends at its closing quote: the next character starts the next token (_tokens__mutmut_103)
    ('"a"b', [_Token("phrase", "a", 1), _Token("word", "b", 4)]),  # closing quote at 3, 'b' at 4
    ('"a")', [_Token("phrase", "a", 1), _Token("rparen", ")", 4)]),
])
def test_tokens(query, expected):
    # _tokens mutants: kinds, texts and 1-based columns of each token
    # (kills _tokens__mutmut_13 paren text, _36 _54 _55 _61 _62 _63 the neg token's text/column, _98 phrase text,
    # _149 _150 _158 _159 the word/or/and kind, and _74 _103 _118 as marked on their cases)
    assert _tokens(query) == expected


def _within(seconds: float):
    """Fail with TimeoutError instead of looping for ever (a tokenizer that stops advancing)."""
    return within(seconds, "tokenizing")


def test_tokens_x_is_an_ordinary_letter():
    # only '(' and ')' are parentheses: an 'X' starts and continues a word. Kills _tokens__mutmut_10 ('X' made a
    # paren token) and _110 ('X' ends a word: the tokenizer stops advancing and loops, hence the time limit).
    with _within(0.5):
        assert _tokens("Xy aXb") == [_Token("word", "Xy", 1), _Token("word", "aXb", 4)]  # 'aXb' starts at 4


@pytest.mark.parametrize("query, column", [
    ("-", 1),  # '-' at the end of the query
    ("a -", 3),  # '-' at column 3, the last character (i + 1 >= n)
    ("- a", 1),  # '-' followed by a space
    ("a -\tb", 3),  # followed by a tab
    ("-)", 1),  # followed by ')'
    ("(a -)", 4),  # '-' at column 4, then ')'
])
def test_tokens_dangling_minus(query, column):
    # _tokens mutants around `i + 1 >= n or query[i + 1].isspace() or query[i + 1] == ")"` (kills _tokens__mutmut_43)
    with pytest.raises(SearchError) as caught:
        _tokens(query)
    assert (caught.value.code, caught.value.column, caught.value.details) == ("search.dangling_minus", column, {})


@pytest.mark.parametrize("query, column", [
    ('"abc', 1),  # the opening quote at column 1
    ('a "b', 3),  # at column 3
    ('topic:"x', 7),  # a quote inside a word: 'topic:' is 6 characters, the quote is column 7
    ('ab"', 3),  # the quote is the last character
])
def test_tokens_unclosed_quote(query, column):
    with pytest.raises(SearchError) as caught:
        _tokens(query)
    assert (caught.value.code, caught.value.column, caught.value.details) == ("search.unclosed_quote", column, {})


# --- _Parser: trees and precedence -------------------------------------------------------------------


@pytest.mark.parametrize("query, tree", [
    ("", All(())),  # nothing to match: everything
    ("  \t ", All(())),
    ("a", Term("text", "a", 1)),  # a single term is not wrapped
    ("a b", All((Term("text", "a", 1), Term("text", "b", 3)))),  # side by side: and
    ("a b c", All((Term("text", "a", 1), Term("text", "b", 3), Term("text", "c", 5)))),  # flat
    ("a and b", All((Term("text", "a", 1), Term("text", "b", 7)))),  # explicit and; 'b' at 7
    ("a AND b", All((Term("text", "a", 1), Term("text", "b", 7)))),
    ("a or b", Any_((Term("text", "a", 1), Term("text", "b", 6)))),  # 'b' at column 6
    ("a OR b", Any_((Term("text", "a", 1), Term("text", "b", 6)))),
    ("a or b or c", Any_((Term("text", "a", 1), Term("text", "b", 6), Term("text", "c", 11)))),  # flat
    # and binds tighter than or, on either side
    ("a b or c", Any_((All((Term("text", "a", 1), Term("text", "b", 3))), Term("text", "c", 8)))),
    ("a or b c", Any_((Term("text", "a", 1), All((Term("text", "b", 6), Term("text", "c", 8)))))),
    ("a or b and c", Any_((Term("text", "a", 1), All((Term("text", "b", 6), Term("text", "c", 12)))))),
    ("a and b or c", Any_((All((Term("text", "a", 1), Term("text", "b", 7))), Term("text", "c", 12)))),
    # negation binds to one term or group
    ("-a", Not(Term("text", "a", 2))),
    ("-a b", All((Not(Term("text", "a", 2)), Term("text", "b", 4)))),
    ("--a", Not(Not(Term("text", "a", 3)))),
    ("-(a or b)", Not(Any_((Term("text", "a", 3), Term("text", "b", 8))))),
    ("a or -b", Any_((Term("text", "a", 1), Not(Term("text", "b", 7))))),
    # parentheses group, at any depth; a group of one is its term
    ("(a)", Term("text", "a", 2)),
    ("((a))", Term("text", "a", 3)),
    ("(a or b) c", All((Any_((Term("text", "a", 2), Term("text", "b", 7))), Term("text", "c", 10)))),
    ("c (a or b)", All((Term("text", "c", 1), Any_((Term("text", "a", 4), Term("text", "b", 9)))))),
    ("(a b) or c", Any_((All((Term("text", "a", 2), Term("text", "b", 4))), Term("text", "c", 10)))),
    ("a (b (c or d))", All((Term("text", "a", 1),
                            All((Term("text", "b", 4), Any_((Term("text", "c", 7), Term("text", "d", 12)))))))),
    ("(a) and (b)", All((Term("text", "a", 2), Term("text", "b", 10)))),
    # phrases: lower-cased text terms, a colon inside is text
    ('"KV Cache"', Term("text", "kv cache", 1)),
    ('"deck:x" y', All((Term("text", "deck:x", 1), Term("text", "y", 10)))),
    ('"or"', Term("text", "or", 1)),  # a quoted or is text
    ('-"a b"', Not(Term("text", "a b", 2))),
])
def test_parse_trees(query, tree):
    # _Parser.parse/either/both/negated/atom mutants: the exact tree, columns included
    # (kills _term__mutmut_6: free text not lower-cased / not a text Term, via the 'a' case; _Parser.atom__mutmut_83:
    # a phrase Term's column, via '"KV Cache"')
    assert parse(query) == tree


def test_parser_state_and_methods():
    # _Parser.__init__ / peek / take mutants: starts at the first token, peek does not advance, None at the end
    # (kills _Parser.take__mutmut_1, _Parser.__init____mutmut_1: query not kept)
    p = _Parser("a (b")
    assert p.query == "a (b"
    assert p.i == 0
    assert p.tokens == [_Token("word", "a", 1), _Token("lparen", "(", 3), _Token("word", "b", 4)]
    assert p.peek() == _Token("word", "a", 1)
    assert p.peek() == _Token("word", "a", 1)
    assert p.take() == _Token("word", "a", 1)
    assert p.i == 1
    assert p.take() == _Token("lparen", "(", 3)
    assert p.take() == _Token("word", "b", 4)
    assert p.i == 3
    assert p.peek() is None


def test_atom_missing_term_column_is_one_past_the_end():
    # _Parser.atom with no token left: missing_term at len(query) + 1 ('ab c' has 4 characters -> 5).
    # parse never gets there (every caller checks first), so the parser is driven directly.
    # (kills _Parser.atom__mutmut_3 to _10: the None check, its code and its column)
    p = _Parser("ab c")
    p.take()
    p.take()
    with pytest.raises(SearchError) as caught:
        p.atom()
    assert (caught.value.code, caught.value.column, caught.value.details) == ("search.missing_term", 5, {})


@pytest.mark.parametrize("query, code, column", [
    ("or", "search.or_needs_terms", 1),
    ("x AND", "search.and_needs_terms", 3),  # 'AND' at column 3
])
def test_atom_refuses_operators(query, code, column):
    # _Parser.atom's own or/and check (parse's callers check before it): driven directly at the operator
    # (kills _Parser.atom__mutmut_21 to _37: the or/and check, the code chosen for each, its column)
    p = _Parser(query)
    p.i = len(p.tokens) - 1
    with pytest.raises(SearchError) as caught:
        p.atom()
    assert (caught.value.code, caught.value.column, caught.value.details) == (code, column, {})


def test_atom_unmatched_close_directly():
    # _Parser.atom at a ')': unmatched_close at its column (2 in 'a)')
    p = _Parser("a)")
    p.i = 1
    with pytest.raises(SearchError) as caught:
        p.atom()
    assert (caught.value.code, caught.value.column) == ("search.unmatched_close", 2)


# --- _Parser: every error and its column -------------------------------------------------------------


@pytest.mark.parametrize("query, code, column", [
    # unmatched ')': where the ')' is
    (")", "search.unmatched_close", 1),
    ("a)", "search.unmatched_close", 2),
    ("a ) b", "search.unmatched_close", 3),
    ("(a))", "search.unmatched_close", 4),  # the second ')' at 4
    ("(a) )", "search.unmatched_close", 5),
    ("a or b) c", "search.unmatched_close", 7),
    # unclosed '(': where the '(' is
    ("(", "search.unclosed_paren", 1),
    ("(a", "search.unclosed_paren", 1),
    ("b (a", "search.unclosed_paren", 3),
    ("(a or b", "search.unclosed_paren", 1),
    ("((a)", "search.unclosed_paren", 1),  # the inner pair closes, the outer '(' at 1 does not
    ("(a (b)", "search.unclosed_paren", 1),
    ("x -(", "search.unclosed_paren", 4),  # '(' at 4 with nothing after it
    ("(topic:a or topic:b", "search.unclosed_paren", 1),
    ("is:new (topic:a", "search.unclosed_paren", 8),  # docs' example shape: '(' at column 8
    # empty parentheses: where the '(' is
    ("()", "search.empty_parens", 1),
    ("a ()", "search.empty_parens", 3),
    ("(())", "search.empty_parens", 2),  # the inner '(' at 2 is empty
    ("-()", "search.empty_parens", 2),
    # or without a term on a side: where the 'or' is
    ("or a", "search.or_needs_terms", 1),
    ("a or", "search.or_needs_terms", 3),
    ("a or or b", "search.or_needs_terms", 3),  # the first 'or' (3) has no right-hand term
    ("a or and b", "search.or_needs_terms", 3),
    ("a or )", "search.or_needs_terms", 3),
    ("(a or)", "search.or_needs_terms", 4),  # 'or' at 4 followed by ')'
    ("(or a)", "search.or_needs_terms", 2),  # first thing in a group
    ("a and or b", "search.and_needs_terms", 3),  # the 'and' at 3 is followed by 'or'
    # and without a term on a side: where the 'and' is
    ("and a", "search.and_needs_terms", 1),
    ("AND a", "search.and_needs_terms", 1),
    ("a and", "search.and_needs_terms", 3),
    ("a and and b", "search.and_needs_terms", 3),
    ("(a and)", "search.and_needs_terms", 4),
    ("a or and", "search.or_needs_terms", 3),
    ("a b or and c", "search.or_needs_terms", 5),  # 'or' at 5, then 'and'
    ("(and a)", "search.and_needs_terms", 2),
    # '-' before an operator: where the '-' is
    ("-or a", "search.dangling_minus", 1),
    ("a -and b", "search.dangling_minus", 3),
    ("a -OR b", "search.dangling_minus", 3),
    # empty phrase: where its opening quote is
    ('""', "search.empty_text", 1),
    ('" "', "search.empty_text", 1),  # only a space: empty too
    ('a "  "', "search.empty_text", 3),
])
def test_parser_errors(query, code, column):
    # _Parser.parse/either/both/negated/atom mutants: exact code and column (no details on these)
    # (kills _Parser.negated__mutmut_8, _11 to _14, _17 to _22 via '-or a' and 'a -and b': a '-' before an
    # operator is refused at the '-' with dangling_minus; _Parser.either__mutmut_13 to _16 via 'a or and b' and
    # '(a or)'; _Parser.both__mutmut_37 to _42 via 'a and or b', 'a and and b', '(a and)': the operator's own
    # code at its own column, not the next token's)
    assert error_of(query) == (code, column, {})


# --- _term: each key ---------------------------------------------------------------------------------


@pytest.mark.parametrize("query, term", [
    ("Hello", Term("text", "hello", 1)),  # free text, lower-cased
    ("x 1:a", All((Term("text", "x", 1), Term("text", "1:a", 3)))),  # not a key: text
    (":a", Term("text", ":a", 1)),
    ("topic:Serv*", Term("topic", "Serv*", 1)),  # topic value kept as typed (matching ignores case later)
    ("TOPIC:moe", Term("topic", "moe", 1)),  # the key is lower-cased
    ('topic:"llm training"', Term("topic", "llm training", 1)),
    ('topic:"a\nb"', Term("topic", "a\nb", 1)),  # a quoted newline is part of the value (re.S)
    ("tag:Zero", Term("tag", "Zero", 1)),
    ("tag:a:b", Term("tag", "a:b", 1)),  # only the first colon splits key from value
    ("Mistake:zero3-Single", Term("mistake", "zero3-Single", 1)),
    ("missed:Point*", Term("missed", "Point*", 1)),
    ("x topic:a", All((Term("text", "x", 1), Term("topic", "a", 3)))),  # the term's column is its token's
    ("kind:Drill", Term("kind", "drill", 1)),  # kind value lower-cased
    ("kind:question", Term("kind", "question", 1)),
    ("KIND:followup", Term("kind", "followup", 1)),
    ("is:DUE", Term("is", "due", 1)),
    ("is:leech", Term("is", "leech", 1)),
    ("Is:New", Term("is", "new", 1)),
    ("flag:0", Term("flag", 0, 1)),  # 0 = no flag: the range starts at 0
    ("flag:4", Term("flag", 4, 1)),  # the range ends at 4
    ("flag:2", Term("flag", 2, 1)),
    ("rated:1", Term("rated", (1, None), 1)),  # no rating: None
    ("rated:36500", Term("rated", (36500, None), 1)),  # MAX_RATED_DAYS itself is allowed
    ("rated:7:1", Term("rated", (7, 1), 1)),
    ("rated:7:4", Term("rated", (7, 4), 1)),
    ("rated:12:3", Term("rated", (12, 3), 1)),
    ("x rated:2", All((Term("text", "x", 1), Term("rated", (2, None), 3)))),
    ("prop:ivl>=3", Term("prop", ("ivl", ">=", 3.0), 1)),
    ("prop:IVL>3", Term("prop", ("ivl", ">", 3.0), 1)),  # prop name lower-cased
    ("Prop:ivl<=21", Term("prop", ("ivl", "<=", 21.0), 1)),
    ("prop:ivl!=0", Term("prop", ("ivl", "!=", 0.0), 1)),
    ("prop:ivl<5", Term("prop", ("ivl", "<", 5.0), 1)),
    ("prop:ivl=5", Term("prop", ("ivl", "=", 5.0), 1)),
    ("prop:ivl>1.5", Term("prop", ("ivl", ">", 1.5), 1)),  # ivl takes decimals
    ("prop:due=-1", Term("prop", ("due", "=", -1.0), 1)),  # negative whole numbers: yesterday
    ("prop:due<0", Term("prop", ("due", "<", 0.0), 1)),
    ("prop:lapses>3", Term("prop", ("lapses", ">", 3.0), 1)),
    ("prop:reps>10", Term("prop", ("reps", ">", 10.0), 1)),
    ("prop:s>30.25", Term("prop", ("s", ">", 30.25), 1)),
    ("prop:d>0.8", Term("prop", ("d", ">", 0.8), 1)),
    ("prop:r<0.8", Term("prop", ("r", "<", 0.8), 1)),
    ("prop:R<-0.5", Term("prop", ("r", "<", -0.5), 1)),
])
def test_term_values(query, term):
    # _term mutants: key, value (lower-cased where the key says so) and column of each Term
    # (kills _term__mutmut_58 topic value, _83 kind lower-casing, _109 is lower-casing, _131 flag:0 in range,
    # _182 rated without rating, _289 _291 _295 _296 the prop Term's name/op/float number)
    assert parse(query) == term


@pytest.mark.parametrize("query, kind", [
    ("prop:ivl>=3", float), ("prop:due=1", float), ("flag:3", int), ("rated:7:2", int),
])
def test_term_value_types(query, kind):
    # _term mutants: prop numbers are floats (3 == 3.0 would hide an int), flag and rated values ints
    term = parse(query)
    value = term.value[2] if term.key == "prop" else term.value[-1] if term.key == "rated" else term.value
    assert type(value) is kind


def test_term_direct():
    # _term on a token: the Term's column is the token's (here 7), the value's column counts from it
    assert _term(_Token("word", "IS:Buried", 7)) == Term("is", "buried", 7)
    with pytest.raises(SearchError) as caught:
        _term(_Token("word", "flag:9", 7))
    assert (caught.value.code, caught.value.column, caught.value.details) == ("search.bad_flag", 12, {"value": "9"})


@pytest.mark.parametrize("query, code, column, details", [
    # unknown key: at the token; the key as typed and the known keys
    ("deck:x", "search.unknown_key", 1, {"key": "deck", "keys": KEYS_TEXT}),
    ("a b Deck:x", "search.unknown_key", 5, {"key": "Deck", "keys": KEYS_TEXT}),
    ("my_key:", "search.unknown_key", 1, {"key": "my_key", "keys": KEYS_TEXT}),  # unknown before empty
    # empty value: where the value would start (after 'key:'), the key lower-cased
    ("topic:", "search.empty_value", 7, {"key": "topic"}),  # 'topic:' is 6 characters
    ("x TAG:", "search.empty_value", 7, {"key": "tag"}),  # token at 3, + len('TAG') + 1
    ("is:", "search.empty_value", 4, {"key": "is"}),
    ("flag:", "search.empty_value", 6, {"key": "flag"}),
    ("prop:", "search.empty_value", 6, {"key": "prop"}),
    ("rated:", "search.empty_value", 7, {"key": "rated"}),
    ("mistake:", "search.empty_value", 9, {"key": "mistake"}),
    ('kind:""', "search.empty_value", 6, {"key": "kind"}),  # quoted nothing is no value
    # kind/is: a value not among the choices, as typed
    ("kind:x", "search.bad_choice", 6, {"key": "kind", "value": "x", "choices": KINDS_TEXT}),
    ("a Kind:Cards", "search.bad_choice", 8, {"key": "kind", "value": "Cards", "choices": KINDS_TEXT}),
    ("is:old", "search.bad_choice", 4, {"key": "is", "value": "old", "choices": IS_TEXT}),
    ("IS:Fresh", "search.bad_choice", 4, {"key": "is", "value": "Fresh", "choices": IS_TEXT}),
    # flag: 0..4 whole numbers only
    ("flag:5", "search.bad_flag", 6, {"value": "5"}),  # one past the range
    ("flag:x", "search.bad_flag", 6, {"value": "x"}),
    ("flag:-1", "search.bad_flag", 6, {"value": "-1"}),  # '-' is no digit
    ("flag:1.0", "search.bad_flag", 6, {"value": "1.0"}),
    ("x flag:10", "search.bad_flag", 8, {"value": "10"}),  # token at 3, 'flag:' -> value at 8
    # rated days: 1..36500, at the value
    ("rated:0", "search.bad_rated_days", 7, {"value": "0", "most": 36500}),  # below 1
    ("rated:36501", "search.bad_rated_days", 7, {"value": "36501", "most": 36500}),  # above MAX_RATED_DAYS
    ("rated:x", "search.bad_rated_days", 7, {"value": "x", "most": 36500}),
    ("rated::1", "search.bad_rated_days", 7, {"value": "", "most": 36500}),  # no days before the colon
    ("rated:-1", "search.bad_rated_days", 7, {"value": "-1", "most": 36500}),
    ("rated:0:1", "search.bad_rated_days", 7, {"value": "0", "most": 36500}),  # days checked first
    # rating: 1..4, at the rating (value column + len(days) + 1)
    ("rated:7:0", "search.bad_rating", 9, {"value": "0"}),  # below 1; 'rated:7:' is 8 characters
    ("rated:7:5", "search.bad_rating", 9, {"value": "5"}),  # above 4
    ("rated:7:", "search.bad_rating", 9, {"value": ""}),  # a colon and no rating
    ("rated:10:x", "search.bad_rating", 10, {"value": "x"}),  # two-digit days: rating at 10
    ("rated:7:1:2", "search.bad_rating", 9, {"value": "1:2"}),  # only the first colon splits
    ("x rated:30:9", "search.bad_rating", 12, {"value": "9"}),  # token at 3 -> value at 9 -> rating 12
    # prop: unknown name, at the value
    ("prop:foo", "search.unknown_prop", 6, {"name": "foo", "props": PROPS_TEXT}),
    ("prop:Foo", "search.unknown_prop", 6, {"name": "Foo", "props": PROPS_TEXT}),  # name as typed
    ("prop:>3", "search.unknown_prop", 6, {"name": ">3", "props": PROPS_TEXT}),  # no name: the whole value
    ("prop:foo>3", "search.unknown_prop", 6, {"name": "foo", "props": PROPS_TEXT}),
    ("prop:FOO>=3", "search.unknown_prop", 6, {"name": "FOO", "props": PROPS_TEXT}),
    ("x prop:zz<1", "search.unknown_prop", 8, {"name": "zz", "props": PROPS_TEXT}),  # token at 3
    # prop: a known name without an operator, at the character after the name
    ("prop:ivl", "search.prop_operator", 9, {"name": "ivl", "ops": OPS_TEXT}),  # 'prop:ivl' is 8 characters
    ("prop:IVL~3", "search.prop_operator", 9, {"name": "IVL", "ops": OPS_TEXT}),  # name as typed
    ("prop:s", "search.prop_operator", 7, {"name": "s", "ops": OPS_TEXT}),
    ("x prop:lapses3", "search.prop_operator", 14, {"name": "lapses", "ops": OPS_TEXT}),  # 3 + 5 + 6
    # prop: not a number, at the number (value column + len(name) + len(op))
    ("prop:ivl>x", "search.prop_number", 10, {"name": "ivl", "value": "x"}),
    ("prop:ivl>=x", "search.prop_number", 11, {"name": "ivl", "value": "x"}),  # two-character operator
    ("prop:IVL>", "search.prop_number", 10, {"name": "ivl", "value": ""}),  # name lower-cased here
    ("prop:ivl>3x", "search.prop_number", 10, {"name": "ivl", "value": "3x"}),  # the whole text must be a number
    ("prop:ivl>.5", "search.prop_number", 10, {"name": "ivl", "value": ".5"}),
    ("prop:ivl>5.", "search.prop_number", 10, {"name": "ivl", "value": "5."}),
    ("prop:ivl>+1", "search.prop_number", 10, {"name": "ivl", "value": "+1"}),
    ("prop:ivl==3", "search.prop_number", 10, {"name": "ivl", "value": "=3"}),  # op '=', number '=3'
    ('prop:ivl>"1\n"', "search.prop_number", 10, {"name": "ivl", "value": "1\n"}),  # a newline in the number
    ("prop:r<=x", "search.prop_number", 9, {"name": "r", "value": "x"}),
    # prop: due/lapses/reps take whole numbers only, at the number
    ("prop:due>1.5", "search.prop_whole", 10, {"name": "due", "value": "1.5"}),
    ("prop:lapses>=2.0", "search.prop_whole", 14, {"name": "lapses", "value": "2.0"}),  # 6 + 6 + 2
    ("prop:Reps<3.5", "search.prop_whole", 11, {"name": "reps", "value": "3.5"}),  # 6 + 4 + 1
    ("prop:due=-0.5", "search.prop_whole", 10, {"name": "due", "value": "-0.5"}),
])
def test_term_errors(query, code, column, details):
    # _term mutants: each validation's exact code, column and details
    # (kills _term__mutmut_26 _27 _35 _37 unknown_key; _41 _44 empty_value; _69 _70 _71 _80 _95 _96 _97 _106
    # bad_choice; _152 _153 rated days; _171 _174 rating; _200 _220 _221 _230 prop_operator; _205 to _217
    # _242 _243 _251 _253 unknown_prop; _261 _262 prop_number; _271 _272 _275 _276 _281 _282 prop_whole;
    # and _tokens__mutmut_121 via 'kind:""', a quoted empty value)
    assert error_of(query) == (code, column, details)


# --- _terms: the tree's terms (the matcher names 'x__terms' share the `_term` prefix) ----------------


def test_terms_walks_not_all_and_any():
    # _terms__mutmut_1 (a Not's child not walked) and _2 (All/Any_ children not walked): every Term of
    # '-topic:a (b or c)' in order, the negated one included (its column 2 = after the '-')
    tree = parse("-topic:a (b or c)")
    assert tree == All((Not(Term("topic", "a", 2)), Any_((Term("text", "b", 11), Term("text", "c", 16)))))
    assert list(_terms(tree)) == [Term("topic", "a", 2), Term("text", "b", 11), Term("text", "c", 16)]
    assert list(_terms(Not(Term("topic", "x", 2)))) == [Term("topic", "x", 2)]
