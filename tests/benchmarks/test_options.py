"""Benchmark options: each benchmark's dataclass, its run-folder variant, and the refusal of
options and values it does not take."""

from __future__ import annotations

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions, in_variant, option_fields, recorded_options
from socialbench.benchmarks.roboteq.options import JudgmentOptions, RobotEQOptions
from socialbench.benchmarks.socialnav_sub.options import SocialNavOptions
from socialbench.benchmarks.socialnav_waypoint.options import WaypointOptions
from socialbench.errors import UsageError


@pytest.mark.parametrize(
    "options, perturbation, variant",
    [
        (SocialNavOptions(), None, "independent-img-with-bev"),
        (SocialNavOptions(method="cot", images="bev"), None, "cot-bev"),
        (RobotEQOptions(strategy="rag"), None, "rag"),
        (JudgmentOptions(per_behavior=True), None, "standard-per-behavior"),
        (RobotEQOptions(), "blur2", "standard-blur2"),
        (WaypointOptions(context="model:runs/a b"), "blur1", "independent-img-with-bev-blur1-context-model_runs_a_b"),
    ],
)
def test_variants_name_run_folders_as_before(options, perturbation, variant):
    assert options.variant(perturbation) == variant


def test_an_explicit_default_of_another_benchmarks_option_is_refused():
    bench, _ = get_benchmark("roboteq-bj")
    with pytest.raises(UsageError, match="--images is a SocialNav-SUB and SocialNav waypoint option"):
        bench.check_options(EvalOptions(images="img-with-bev"))


def test_a_value_outside_the_choices_is_refused_naming_them():
    bench, _ = get_benchmark("socialnav-sub")
    with pytest.raises(UsageError, match="--images must be one of img-with-bev, img, bev"):
        bench.check_options(EvalOptions(images="fisheye"))


def test_given_options_become_the_benchmarks_dataclass():
    bench, _ = get_benchmark("roboteq-bj")
    assert bench.check_options(EvalOptions(strategy="rag", rag_k=4)) == JudgmentOptions(strategy="rag", rag_k=4)


def test_options_given_as_none_are_not_given():
    assert dict(EvalOptions(method=None, extra={"context": None}).given) == {}


def test_an_option_missing_from_an_older_run_record_has_its_default():
    run = {"strategy": "rag", "options": {"rag_k": 4}}
    assert recorded_options(JudgmentOptions, run) == {
        "strategy": "rag",
        "rag_backend": "bm25",
        "rag_k": 4,
        "per_behavior": False,
    }


def test_in_variant_tells_which_options_name_the_run_folder():
    assert [f.name for f in option_fields(JudgmentOptions) if in_variant(JudgmentOptions, f.name)] == [
        "strategy",
        "per_behavior",
    ]
