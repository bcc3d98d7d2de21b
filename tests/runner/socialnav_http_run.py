"""One SocialNav-SUB run (its first sample) of an ``openai:`` model against a local server,
as the runner tests over HTTP make it; each test picks the concurrency, retries and cache."""

from __future__ import annotations

from pathlib import Path

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, RunResult, run_eval


def run_first_sample(
    data: Path,
    out: Path,
    model: OpenAICompatModel,
    *,
    concurrency: int,
    retry: RetryPolicy,
    cache_path: Path | None = None,
) -> RunResult:
    """Run ``model`` on the first sample of the SocialNav-SUB folder ``data`` into ``out``."""
    req = RunRequest(
        benchmark_name="socialnav-sub",
        data=data,
        model_spec=model.spec,
        out=out,
        options=EvalOptions(limit=1),
        concurrency=concurrency,
        retry=retry,
        cache_path=cache_path,
        show_progress=False,
    )
    return run_eval(req, SocialNavSub(), model)
