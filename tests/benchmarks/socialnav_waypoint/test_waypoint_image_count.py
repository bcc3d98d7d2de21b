"""The waypoint task declares the most images one of its requests carries (``vllm:`` sizes
its per-prompt image limit from it): what a run really sends."""

from __future__ import annotations

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.models.mock import MockModel
from socialbench.runner.run import RunRequest, run_eval
from socialbench.vision.images import ImagePolicy


def test_declared_images_per_request_are_the_most_a_run_sends(tmp_path) -> None:
    bench, _ = get_benchmark("socialnav-waypoint")
    options = EvalOptions(limit=2)
    model = MockModel("mock:a", lambda r: '{"answer": "A"}')
    req = RunRequest(
        "socialnav-waypoint",
        bench.default_data(),
        model.spec,
        tmp_path / "run",
        options,
        cache_path=None,
        show_progress=False,
        image_workers=0,
        image_policy=ImagePolicy(max_side=64),
    )
    assert run_eval(req, bench, model).complete
    assert bench.max_images_per_request(bench.check_options(options)) == max(len(r.images) for r in model.calls) == 11
