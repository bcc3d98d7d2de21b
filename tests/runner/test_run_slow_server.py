"""A run against a slow server that queues requests (issue 28 §4, the retry storm): streamed
replies let every attempt socialbench gives up on free the server, and the attempts stay
within questions x max attempts."""

import json
from pathlib import Path

from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.records import read_samples
from socialbench.runner.engine import RetryPolicy
from socialbench.testing.slow_server import SlowOpenAIServer
from socialnav_http_run import run_first_sample

MAX_ATTEMPTS = 6


def _run(data: Path, out: Path, url: str, stream: bool):
    # 2 workers x 0.2 s a reply and 15 questions sent 16 at once: the last ones queue > 1 s,
    # past the 0.5 s first-byte timeout, whatever the machine's speed (slower only waits longer)
    options = ModelOptions(timeout_s=60.0, first_byte_timeout_s=0.5, extra=(("stream", str(stream).lower()),))
    model = OpenAICompatModel("m", url, options)
    retry = RetryPolicy(max_attempts=MAX_ATTEMPTS, base_delay_s=0.01, max_delay_s=0.05, timeout_s=60.0)
    return run_first_sample(data, out, model, concurrency=16, retry=retry, cache_path=None)


def test_streamed_attempts_given_up_on_leave_no_work_at_the_server(small_socialnav, tmp_path):
    with SlowOpenAIServer(workers=2, tokens=20, token_s=0.01) as srv:
        res = _run(small_socialnav, tmp_path / "r", srv.base_url, stream=True)
        counts = srv.wait_idle()  # dropped at once: nothing left queued or generating
    questions = res.metrics["run"]["questions"]
    records = read_samples(tmp_path / "r" / "samples.jsonl")
    assert res.stats["concurrency"]["cuts"] >= 1  # the first-byte timeouts happened
    assert counts["finished_for_nobody"] == 0
    # the images probe (streamed too) reaches the server but is counted apart from the questions'
    probes = json.loads((tmp_path / "r" / "run.json").read_text())["sessions"][-1]["probe_requests"]
    assert counts["received"] - probes == res.stats["requests"] <= questions * MAX_ATTEMPTS
    assert len({(r.item_id, r.question_key) for r in records}) == questions


def test_whole_replies_given_up_on_are_generated_for_nobody(small_socialnav, tmp_path):
    """The control: the same run without streaming leaves the server working for nobody."""
    with SlowOpenAIServer(workers=2, tokens=20, token_s=0.01) as srv:
        _run(small_socialnav, tmp_path / "r", srv.base_url, stream=False)
        counts = srv.wait_idle()
    assert counts["finished_for_nobody"] > 0
