"""``official`` reads a reply as the official GPT path (strict ``json.loads``);
``official-gemini`` as the official Gemini/LLaVA path (the ``{...}`` inside the reply)."""

from __future__ import annotations

import pytest

from socialbench.metrics.agreement import INVALID, ScoringEntry
from socialbench.metrics.official_agreement import official_parse_gemini
from socialbench.metrics.protocols import OFFICIAL, OFFICIAL_GEMINI, protocol_named
from socialbench.types import HumanVotes, Question

YES_NO = Question("q_robot_affected_p1", "q_robot_affected", "Social reasoning", "single", "?", ("yes", "no"))
FIVE_TWO = HumanVotes(("yes", "no"), (5 / 7, 2 / 7), 7)
FENCED = '```json\n{"answer": "no"}\n```'


def _entry(raw: str) -> ScoringEntry:
    return ScoringEntry("s1", YES_NO, FIVE_TWO, "no", raw, None)


def test_the_gemini_path_has_its_own_protocol_name() -> None:
    assert protocol_named("official-gemini") is OFFICIAL_GEMINI


def test_a_fenced_reply_is_invalid_on_the_gpt_path() -> None:
    assert OFFICIAL.valid_answer(_entry(FENCED)) is None


def test_a_fenced_reply_is_read_on_the_gemini_path() -> None:
    assert OFFICIAL_GEMINI.valid_answer(_entry(FENCED)) == "no"


def test_text_around_the_json_is_read_on_the_gemini_path() -> None:
    assert official_parse_gemini('Sure. {"answer": "yes"} Hope that helps.') == "yes"


@pytest.mark.parametrize("raw", ["no", '{"answer": "yes"} and {"answer": "no"}', '{"reply": "no"}'])
def test_what_the_regex_and_json_loads_cannot_read_is_invalid(raw: str) -> None:
    assert official_parse_gemini(raw) == INVALID


def test_an_unreadable_reply_scores_as_the_first_choice_on_both_paths() -> None:
    """The official postprocessing scores INVALID as the first option (§d.5), on both paths."""
    entry = _entry("no")
    assert OFFICIAL_GEMINI.item_scores(entry)["model"] == OFFICIAL.item_scores(entry)["model"]
