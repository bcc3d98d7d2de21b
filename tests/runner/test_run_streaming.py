"""A run at a server that refuses streaming: every question answered, and run.json says that
replies were asked for whole from then on, with the server's words (issue 28 §4)."""

import json
from collections.abc import Mapping
from typing import Any

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, run_eval
from socialbench.testing.openai_server import Rejection, ScriptedOpenAIServer, ServedModel


def _no_streaming(body: Mapping[str, Any]) -> Rejection | None:
    return Rejection(422, {"detail": "Streaming is not supported"}) if body.get("stream") else None


def test_a_refused_stream_is_recorded_in_run_json_and_every_question_answered(small_socialnav, tmp_path):
    with ScriptedOpenAIServer(served=ServedModel("no-streaming", _no_streaming)) as srv:
        model = OpenAICompatModel("m", srv.base_url, ModelOptions(timeout_s=10.0))
        req = RunRequest(
            benchmark_name="socialnav-sub",
            data=small_socialnav,
            model_spec=model.spec,
            out=tmp_path / "r",
            options=EvalOptions(limit=1),
            concurrency=1,
            retry=RetryPolicy(max_attempts=2, base_delay_s=0.01, timeout_s=10.0),
            cache_path=None,
            show_progress=False,
        )
        res = run_eval(req, SocialNavSub(), model)
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert res.complete and "Streaming is not supported" in run["generation_adapted"]["stream"]
