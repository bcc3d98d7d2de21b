"""socialbench behind a real LiteLLM proxy in front of the scripted server (issue 42): the
lost stream is learnt and every question answered, Retry-After survives LiteLLM's renaming,
and a failing backend gets a bounded number of requests.

Skipped unless ``SOCIALBENCH_LITELLM_URL`` (the proxy's ``.../v1``), ``SOCIALBENCH_LITELLM_KEY``
(its master key) and ``SOCIALBENCH_LITELLM_STATS`` (``FAILURE=URL`` pairs: the ``/stats`` of
the upstream behind proxy model ``fFAILURE``) are set. LiteLLM's proxy extra is about a
hundred packages, so ``scripts/litellm_roundtrip.sh`` installs it into a venv of its own,
starts the servers on 127.0.0.1, runs this module and stops them.
"""

from __future__ import annotations

import asyncio
import json
import os
import urllib.request
from pathlib import Path

import pytest

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.models.base import RetryableModelError
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, RunResult, run_eval
from socialbench.types import Request

URL = os.environ.get("SOCIALBENCH_LITELLM_URL", "")
STATS = dict(p.split("=", 1) for p in os.environ.get("SOCIALBENCH_LITELLM_STATS", "").split() if "=" in p)

pytestmark = [
    pytest.mark.litellm,
    pytest.mark.skipif(
        not (URL and os.environ.get("SOCIALBENCH_LITELLM_KEY") and STATS),
        reason="set SOCIALBENCH_LITELLM_URL, SOCIALBENCH_LITELLM_KEY and SOCIALBENCH_LITELLM_STATS "
        "(scripts/litellm_roundtrip.sh does)",
    ),
]


def _model(name: str) -> OpenAICompatModel:
    opts = ModelOptions(timeout_s=60.0, extra=(("api_key_env", "SOCIALBENCH_LITELLM_KEY"),))
    return OpenAICompatModel(name, URL, opts)


def run_first_sample(
    data: Path, out: Path, model: OpenAICompatModel, concurrency: int, retry: RetryPolicy
) -> RunResult:
    req = RunRequest(
        benchmark_name="socialnav-sub",
        data=data,
        model_spec=model.spec,
        out=out,
        options=EvalOptions(limit=1),
        concurrency=concurrency,
        retry=retry,
        show_progress=False,
    )
    return run_eval(req, SocialNavSub(), model)


def generate_once(model: OpenAICompatModel, request: Request) -> None:
    async def go() -> None:
        try:
            await model.generate(request)
        finally:
            await model.aclose()

    asyncio.run(go())


def _upstream_count(failure: str) -> int:
    with urllib.request.urlopen(STATS[failure], timeout=10) as resp:
        return int(json.load(resp)["count"])


def test_a_run_behind_litellm_learns_the_lost_stream_and_answers_all(small_socialnav, tmp_path):
    res = run_first_sample(small_socialnav, tmp_path / "r", _model("fnone"), concurrency=4, retry=RetryPolicy())
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert res.complete and "stream" in run["generation_adapted"]
    assert run["requests_by_cause"]["stream_fallbacks"] >= 1


def test_retry_after_arrives_through_litellm():
    with pytest.raises(RetryableModelError) as err:
        generate_once(_model("f429"), Request(prompt="Q?"))
    assert err.value.kind == "rate_limit" and err.value.retry_after == 1.0


def test_a_failing_backend_behind_litellm_gets_bounded_requests(small_socialnav, tmp_path):
    before = _upstream_count("500")
    retry = RetryPolicy(max_attempts=6, base_delay_s=0.01, max_delay_s=0.05, give_up_after=3)
    res = run_first_sample(small_socialnav, tmp_path / "r", _model("f500"), concurrency=4, retry=retry)
    sent = _upstream_count("500") - before
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    # LiteLLM's own 2 retries make each request 3 upstream; the give-up bounds the requests
    assert run["requests_sent"] <= 3 * 4 + 4 and sent == 3 * run["requests_sent"]
    assert res.metrics["run"]["model_errors"] == res.metrics["run"]["questions"]
