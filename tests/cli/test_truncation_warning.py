"""The end of a run says so when many replies were cut off at the token limit, with the fix
(issue 42)."""

import json

from socialbench.cli.evaluate import sent_note, truncation_warning


def _stats(truncated, completed, cache_hits=0):
    return {"truncated": truncated, "completed": completed, "cache_hits": cache_hits}


def test_a_run_whose_replies_were_all_cut_off_says_so(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps({"generation": {"max_tokens": 256}}))
    text = truncation_warning(_stats(117, 117), tmp_path)
    assert "117 of 117 replies were cut off" in text and "--max-tokens 512" in text


def test_a_run_that_sent_no_limit_is_told_to_give_one(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps({"generation": {}}))
    assert "the server's default applied" in truncation_warning(_stats(30, 39), tmp_path)


def test_a_few_cut_off_replies_say_nothing(tmp_path):
    assert truncation_warning(_stats(1, 117), tmp_path) == ""


def test_cached_answers_are_not_replies_of_this_session(tmp_path):
    assert truncation_warning(_stats(5, 1005, cache_hits=1000), tmp_path) != ""


def test_requests_sent_beside_the_attempts_are_named():
    causes = {"first_attempts": 12, "retries": 0, "refusals_learned": 9, "stream_fallbacks": 0, "probes": 1}
    assert sent_note({"requests_by_cause": causes}) == " · sent 22 (refusals learned 9, probes 1 beside the attempts)"
