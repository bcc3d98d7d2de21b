"""RobotEQ declares the most images one of its requests carries (``vllm:`` sizes its
per-prompt image limit from it): what a run really sends."""

from __future__ import annotations

from pathlib import Path

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.runner.run import RunRequest, run_eval


@pytest.mark.parametrize("strategy", ["standard", "no-image"])
def test_declared_images_per_request_are_the_most_a_run_sends(release: Path, tmp_path: Path, strategy: str) -> None:
    bench, _ = get_benchmark("roboteq-bj")
    options = EvalOptions(extra={"strategy": strategy})
    model = MockModel("mock:first", lambda r: first_option_answer(r.prompt))
    req = RunRequest("roboteq-bj", release, model.spec, tmp_path / "run", options, cache_path=None, show_progress=False)
    assert run_eval(req, bench, model).complete
    assert bench.max_images_per_request(bench.check_options(options)) == max(len(r.images) for r in model.calls)


def test_a_run_keeps_the_papers_image_policy(release: Path, tmp_path: Path) -> None:
    """RobotEQ keeps longest side 768, JPEG 90 (SocialNav-SUB's 512×512 is not its setting)."""
    import json

    bench, _ = get_benchmark("roboteq-bj")
    model = MockModel("mock:first", lambda r: first_option_answer(r.prompt))
    req = RunRequest("roboteq-bj", release, model.spec, tmp_path / "run", EvalOptions(), show_progress=False)
    assert run_eval(req, bench, model).complete
    policy = json.loads((tmp_path / "run" / "run.json").read_text())["image_policy"]
    assert policy == {"max_side": 768, "format": "JPEG", "quality": 90}
