"""The extraction ladder: JSON, then strict, then lenient; invalid is never a guessed option."""

import pytest

from socialbench.prompting.parsing import ParseResult, find_json_object, parse_answer

POS = ["ahead of", "to the left of", "to the right of", "behind"]
DIR = ["moving ahead", "turning left", "turning right"]
YN = ["yes", "no"]


def test_plain_json_is_parsed_by_the_json_rung():
    r = parse_answer('{"answer": "to the left of"}', POS)
    assert (r.value, r.method) == ("to the left of", "json")


def test_json_inside_code_fence_with_prose():
    r = parse_answer('Sure!\n```json\n{"answer": "behind"}\n```\nHope it helps.', POS)
    assert (r.value, r.method) == ("behind", "json")


def test_json_value_is_matched_case_and_space_insensitively():
    r = parse_answer('{"answer": "  To The Left Of. "}', POS)
    assert r.value == "to the left of"


def test_multi_select_json_list_becomes_canonical_order():
    r = parse_answer('{"answer": ["turning right", "moving ahead"]}', DIR, multi=True)
    assert (r.value, r.method) == (["moving ahead", "turning right"], "json")


def test_multi_select_single_string_is_one_selection():
    r = parse_answer('{"answer": "turning left"}', DIR, multi=True)
    assert r.value == ["turning left"]


def test_strict_pattern_without_valid_json():
    r = parse_answer("answer: yes", YN)
    assert (r.value, r.method) == ("yes", "strict")


def test_bare_option_is_strict():
    r = parse_answer('"No."', YN)
    assert (r.value, r.method) == ("no", "strict")


def test_lenient_single_mention_in_prose():
    r = parse_answer("Looking at frame 1, person 2 is clearly to the right of the robot.", POS)
    assert (r.value, r.method) == ("to the right of", "lenient")


def test_lenient_ignores_option_contained_in_a_longer_option():
    r = parse_answer("The goal is to the left", ["ahead", "to the left", "to the right"])
    assert r.value == "to the left"


def test_two_mentioned_options_are_invalid_not_guessed():
    r = parse_answer("It could be ahead of or behind the robot.", POS)
    assert (r.value, r.method) == (None, None)


def test_json_with_unknown_option_and_no_other_signal_is_invalid():
    r = parse_answer('{"answer": "left"}', POS)
    assert r.value is None


def test_empty_and_none_text_are_invalid():
    assert parse_answer("", YN).value is None
    assert parse_answer(None, YN).value is None


def test_find_json_object_takes_first_balanced_object():
    assert find_json_object('text {"a": 1} more {"b": 2}') == {"a": 1}


def test_strict_multi_select_bare_list_keeps_every_option():
    r = parse_answer("answer: moving ahead, turning left", DIR, multi=True)
    assert (r.value, r.method) == (["moving ahead", "turning left"], "strict")


def test_strict_single_takes_text_before_a_comma():
    r = parse_answer("Answer: no, the person walks away", YN)
    assert (r.value, r.method) == ("no", "strict")


@pytest.mark.parametrize(
    "text, options, multi",
    [
        ("I cannot determine this; there is no clear view of person 3.", YN, False),
        ("Answer: no idea", YN, False),
        ("The answer is not yes", YN, False),
        ('{"answer": "unknown"} (no person 3 visible)', YN, False),
        ('{"reasoning": "the answer: yes", "answer": "maybe"}', YN, False),
        ("answer: yes, no", YN, False),
        ('answer: "ahead of", "behind"', POS, False),
        ('{"answer": ["moving ahead", "straight"]}', DIR, True),
        ("The robot is moving ahead and is not turning left or turning right.", DIR, True),
        ("It is unclear whether person 2 is to the left of the robot.", POS, False),
        ("Person 4 is not behind the robot.", POS, False),
    ],
)
def test_refusals_negations_and_conflicts_are_invalid(text, options, multi):
    assert parse_answer(text, options, multi=multi) == ParseResult(None, None)


def test_json_answer_sentence_maps_to_its_one_option():
    r = parse_answer('{"answer": "Person 3 is to the left of the robot"}', POS)
    assert (r.value, r.method) == ("to the left of", "lenient")


@pytest.mark.parametrize(
    "reply", ["[" * 100_000, '{"answer": ' + "[" * 100_000, '{"a":' * 100_000, "answer: " + "[" * 100_000 + "]"]
)
def test_reply_nested_too_deeply_to_decode_is_invalid(reply):
    assert parse_answer(reply, YN) == ParseResult(None, None)


def _parse_within(seconds, *args, **kwargs):
    """parse_answer(*args), failing (not hanging) if it runs past ``seconds``: a generous
    bound for work that takes milliseconds unless a pattern backtracks quadratically."""
    import signal

    def expired(signum, frame):
        raise AssertionError(f"parse_answer ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        return parse_answer(*args, **kwargs)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGALRM"), reason="POSIX signals")
def test_answer_field_with_a_long_run_of_spaces_is_split_without_backtracking():
    reply = "answer: behind" + " " * 200_000 + "x"
    assert _parse_within(60, reply, POS) == ParseResult("behind", "lenient")
