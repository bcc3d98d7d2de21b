"""The ray executor on a local 2-CPU Ray: the same plan gives the same run directories and
answers as the local executor."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from socialbench.cli import main  # noqa: E402
from socialbench.sweep.executors import (  # noqa: E402
    RAY_TEMP_PREFIX,
    local_ray_temp_dir,
    ray_temp_parent,
    remove_ray_temp_dir,
)
from socialbench.sweep.grid import expand  # noqa: E402
from socialbench.sweep.plan import load_plan  # noqa: E402
from sweep_fixtures import grid_plan, sweep_answers  # noqa: E402

try:
    import ray
except ImportError:  # pragma: no cover - depends on the extras installed
    ray = None

pytestmark = pytest.mark.skipif(ray is None, reason="ray (optional extra ray) is not installed")


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


@pytest.fixture(scope="module")
def local_ray():
    temp_dir = local_ray_temp_dir()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _temp_dir=temp_dir)
    yield
    ray.shutdown()
    remove_ray_temp_dir(temp_dir)


@pytest.fixture(scope="module")
def both(local_ray, tmp_path_factory):
    """The 8-cell grid swept by each executor: (exit codes, answers by cell) per executor."""
    tmp = tmp_path_factory.mktemp("grid")
    plan = grid_plan(tmp)
    result = {}
    for executor in ("local", "ray"):
        code = run_cli("sweep", str(plan), "--executor", executor, "--out", str(tmp / executor))
        result[executor] = (code, sweep_answers(tmp / executor))
    return result


def test_ray_sweep_exits_zero(both):
    assert both["ray"][0] == 0


def test_ray_and_local_write_the_same_run_directories(both):
    assert sorted(both["ray"][1]) == sorted(both["local"][1]) and len(both["ray"][1]) == 8


def test_ray_and_local_give_the_same_answers(both):
    assert both["ray"][1] == both["local"][1]


def test_cell_needing_a_gpu_the_cluster_lacks_fails_at_once(local_ray, tmp_path):
    from socialbench.sweep.executors import run_ray

    plan = tmp_path / "plan.yaml"
    plan.write_text("models: [{spec: baseline:random, num_gpus: 1}]\nbenchmarks: [socialnav-sim]\n")
    (outcome,) = run_ray(expand(load_plan(plan), tmp_path / "o"))
    assert outcome.status == "failed" and "num_gpus 1" in outcome.message


def test_killed_ray_driver_resumes_to_the_local_answers(small_socialnav, tmp_path):
    """SIGKILL the whole process group of a `sweep --executor ray` (driver, its local Ray and
    workers) mid-cell, run it again, and get the answers of an uninterrupted local sweep."""
    import os
    import signal
    import subprocess
    import time

    from socialbench.testing.openai_server import ScriptedOpenAIServer
    from test_sweep_kill_resume import first_samples, plan, sweep_cmd

    with ScriptedOpenAIServer(delay_s=0.02) as server:
        plan_path = plan(tmp_path, small_socialnav, server.base_url)
        subprocess.run(sweep_cmd(plan_path, tmp_path / "ref"), check=True, capture_output=True, timeout=300)
        out = tmp_path / "out"
        cmd = sweep_cmd(plan_path, out) + ["--executor", "ray"]
        before = set(Path(ray_temp_parent()).glob(RAY_TEMP_PREFIX + "*"))
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        t0 = time.time()
        while time.time() - t0 < 180:
            samples = first_samples(out)
            if samples is not None and samples.read_text().count("\n") >= 30:
                break
            if proc.poll() is not None:
                pytest.fail("the sweep ended before it could be killed")
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        for left in set(Path(ray_temp_parent()).glob(RAY_TEMP_PREFIX + "*")) - before:
            remove_ray_temp_dir(str(left))  # the killed cluster's; the rerun removes its own
        subprocess.run(cmd, check=True, capture_output=True, timeout=300)
        assert sweep_answers(out) == sweep_answers(tmp_path / "ref")
