"""SocialNav-SUB declares the most images one of its requests carries (``vllm:`` sizes its
per-prompt image limit from it): what a run really sends, in every ``--images`` mode."""

from __future__ import annotations

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.runner.run import RunRequest, run_eval
from socialbench.vision.images import ImagePolicy


@pytest.mark.parametrize("images", ["img-with-bev", "img", "bev"])
def test_declared_images_per_request_are_the_most_a_run_sends(tmp_path, images: str) -> None:
    bench, data = get_benchmark("socialnav-sim")
    options = EvalOptions(limit=1, extra={"images": images})
    model = MockModel("mock:first", lambda r: first_option_answer(r.prompt))
    req = RunRequest(
        "socialnav-sim",
        data,
        model.spec,
        tmp_path / "run",
        options,
        cache_path=None,
        show_progress=False,
        image_workers=0,
        image_policy=ImagePolicy(max_side=64),
    )
    assert run_eval(req, bench, model).complete
    assert bench.max_images_per_request(bench.check_options(options)) == max(len(r.images) for r in model.calls)
