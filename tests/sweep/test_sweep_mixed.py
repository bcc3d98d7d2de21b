"""A sweep over both benchmark families (SocialNav-SUB and RobotEQ, each ignoring the other's
axis) runs every cell, and `report` over its folder writes one report per family."""

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "benchmarks" / "roboteq"))

from roboteq_fixtures import build_release  # noqa: E402
from socialbench.benchmarks.base import get_benchmark  # noqa: E402
from socialbench.cli import main  # noqa: E402
from socialbench.runner.eval_options import eval_defaults  # noqa: E402
from socialbench.sweep.commands import estimate_requests  # noqa: E402
from sweep_fixtures import run_dirs  # noqa: E402


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mixed")
    release = build_release(tmp / "robot-eq")
    plan = tmp / "plan.yaml"
    plan.write_text(
        "models: [baseline:random]\n"
        f"benchmarks: [{{name: socialnav-sim, ignore_axes: [strategy]}}, {{name: roboteq-bj, data: '{release}', ignore_axes: [method]}}]\n"
        "axes: {method: [independent, cot], strategy: [standard, cot]}\n"
        "options: {limit: 2, no_cache: true, no_render_cache: true}\n"
    )
    code = run_cli("sweep", str(plan), "--out", str(tmp / "out"))
    return code, tmp / "out", tmp


def test_each_family_crosses_only_its_own_axis(mixed):
    names = sorted(str(d.relative_to(mixed[1])) for d in run_dirs(mixed[1]))
    assert mixed[0] == 0 and names == [
        "roboteq-bj/baseline_random/cot",
        "roboteq-bj/baseline_random/standard",
        "socialnav-sim/baseline_random/cot-img-with-bev",
        "socialnav-sim/baseline_random/independent-img-with-bev",
    ]


def test_report_over_a_mixed_sweep_writes_one_report_per_family(mixed):
    code = run_cli("report", str(mixed[1]), "--out", str(mixed[2] / "rep"), "--format", "md", "--no-plots")
    assert code == 0
    assert (mixed[2] / "rep" / "socialnav" / "report.md").is_file() and (
        mixed[2] / "rep" / "roboteq" / "report.md"
    ).is_file()


def test_dry_run_counts_one_request_per_scene_for_a_mock_that_reads_the_prompt(tmp_path):
    release = build_release(tmp_path / "robot-eq")
    bench, _ = get_benchmark("roboteq-bj")
    dataset = bench.load(release, require_images=False, limit=None)
    values = {**eval_defaults(), "benchmark": "roboteq-bj", "model": "mock:first-option", "data": release}
    assert estimate_requests(bench, dataset, values) == (7, 3)
