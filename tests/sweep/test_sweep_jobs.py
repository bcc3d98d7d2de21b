"""The local executor's `--jobs`: cells at once in worker processes give the same run
directories as cells one after another, a failing cell stops no other, Ctrl-C saves every
running cell (and the sweep resumes), and --jobs where it does not apply is refused."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from socialbench.cli import main  # noqa: E402
from socialbench.sweep.grid import expand  # noqa: E402
from socialbench.sweep.plan import load_plan  # noqa: E402
from socialbench.testing.openai_server import ScriptedOpenAIServer  # noqa: E402
from sweep_fixtures import grid_plan, run_dirs, sweep_answers  # noqa: E402
from test_sweep_kill_resume import first_samples, plan, sweep_cmd  # noqa: E402


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The 8-cell grid swept with --jobs 1 and --jobs 2: (exit code, answers by cell) each."""
    tmp = tmp_path_factory.mktemp("jobs")
    plan_path = grid_plan(tmp)
    result = {}
    for jobs in ("1", "2"):
        code = run_cli("sweep", str(plan_path), "--jobs", jobs, "--out", str(tmp / jobs))
        result[jobs] = (code, sweep_answers(tmp / jobs))
    return result


def test_two_jobs_sweep_exits_zero(both):
    assert both["2"][0] == 0


def test_one_and_two_jobs_write_the_same_run_directories(both):
    assert sorted(both["2"][1]) == sorted(both["1"][1]) and len(both["2"][1]) == 8


def test_one_and_two_jobs_give_the_same_answers(both):
    assert both["2"][1] == both["1"][1]


def test_failing_cell_does_not_stop_the_others_with_two_jobs(tmp_path, capsys):
    plan_path = grid_plan(tmp_path, models="[replay:/nosuch/samples.jsonl, baseline:random]")
    code = run_cli("sweep", str(plan_path), "--jobs", "2", "--out", str(tmp_path / "o"))
    out = capsys.readouterr().out
    assert code == 2
    assert out.count("failed: ") == 4 and out.count("complete: ") == 4


def test_outcomes_come_back_in_plan_order_with_two_jobs(tmp_path):
    from socialbench.sweep.executors import run_local

    cells = expand(load_plan(grid_plan(tmp_path)), tmp_path / "o")
    outcomes = run_local(cells, jobs=2)
    assert [o.run_dir for o in outcomes] == [str(c.run_dir) for c in cells]


@pytest.fixture(scope="module")
def interrupted(small_socialnav, tmp_path_factory):
    """A `--jobs 2` sweep of scripted-server cells given one SIGINT mid-cell, as Ctrl-C in a
    terminal sends it: (exit code, statuses in run.json, the sweep's folder, the plan, the server)."""
    tmp = tmp_path_factory.mktemp("ctrlc")
    with ScriptedOpenAIServer(delay_s=0.02) as server:
        plan_path = plan(tmp, small_socialnav, server.base_url)
        subprocess.run(sweep_cmd(plan_path, tmp / "ref"), check=True, capture_output=True, timeout=300)
        out = tmp / "out"
        proc = subprocess.Popen(sweep_cmd(plan_path, out) + ["--jobs", "2"], stdout=subprocess.PIPE, text=True)
        t0 = time.time()
        while time.time() - t0 < 120:
            samples = first_samples(out)
            if samples is not None and samples.read_text().count("\n") >= 30:
                break
            if proc.poll() is not None:
                pytest.fail("the sweep ended before it could be interrupted")
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        stdout, _ = proc.communicate(timeout=120)
        statuses = [json.loads((d / "run.json").read_text())["status"] for d in run_dirs(out)]
        rerun = subprocess.run(sweep_cmd(plan_path, out) + ["--jobs", "2"], capture_output=True, timeout=300)
        yield proc.returncode, statuses, stdout, rerun.returncode, sweep_answers(out), sweep_answers(tmp / "ref")


def test_ctrl_c_exits_130_with_every_started_cell_saved(interrupted):
    code, statuses, stdout = interrupted[:3]
    assert code == 130 and "interrupted" in statuses and set(statuses) <= {"interrupted", "complete"}


def test_ctrl_c_reports_the_cells_it_stopped(interrupted):
    assert "interrupted: " in interrupted[2]


def test_interrupted_sweep_resumes_to_the_uninterrupted_answers(interrupted):
    rerun_code, answers, reference = interrupted[3:]
    assert rerun_code == 0 and answers == reference


def test_progress_with_two_jobs_is_refused(tmp_path, capsys):
    code = run_cli("sweep", str(grid_plan(tmp_path)), "--jobs", "2", "--progress", "--out", str(tmp_path / "o"))
    assert code == 1 and "use it with --jobs 1" in capsys.readouterr().err


def test_jobs_with_the_ray_executor_is_refused(tmp_path, capsys):
    code = run_cli("sweep", str(grid_plan(tmp_path)), "--executor", "ray", "--jobs", "2")
    assert code == 1 and "--jobs is for --executor local" in capsys.readouterr().err
