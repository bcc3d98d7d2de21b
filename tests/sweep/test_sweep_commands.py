"""`socialbench sweep` with the local executor: a grid of cells, skipping complete cells,
a failing cell that does not stop the others, --dry-run, and `report` over the sweep folder."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from socialbench.benchmarks.base import get_benchmark  # noqa: E402
from socialbench.cli import main  # noqa: E402
from sweep_fixtures import grid_plan, run_dirs, sweep_answers  # noqa: E402


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """The 8-cell grid, swept once with the local executor."""
    tmp = tmp_path_factory.mktemp("sweep")
    code = run_cli("sweep", str(grid_plan(tmp)), "--out", str(tmp / "out"))
    return code, tmp / "out", tmp


def test_grid_sweep_exits_zero(swept):
    assert swept[0] == 0


def test_grid_sweep_writes_one_complete_run_directory_per_cell(swept):
    dirs = run_dirs(swept[1])
    statuses = {json.loads((d / "run.json").read_text())["status"] for d in dirs}
    assert (len(dirs), statuses) == (8, {"complete"})


def test_each_cell_ran_its_own_method(swept):
    for d in run_dirs(swept[1]):
        assert json.loads((d / "run.json").read_text())["method"] == d.name.split("-img")[0]


def test_rerun_skips_complete_cells_and_changes_no_answer(swept, capsys):
    before = sweep_answers(swept[1])
    capsys.readouterr()
    code = run_cli("sweep", str(swept[2] / "plan.yaml"), "--out", str(swept[1]))
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith(("skipped:", "complete:"))]
    assert code == 0 and len(lines) == 8 and all(x.startswith("skipped:") for x in lines)
    assert sweep_answers(swept[1]) == before


def test_report_over_the_sweep_folder_renders_every_cell(swept, tmp_path):
    code = run_cli("report", str(swept[1]), "--out", str(tmp_path / "rep"), "--format", "md,csv", "--no-plots")
    table1 = (tmp_path / "rep" / "report.md").read_text()
    assert code == 0 and table1.count("Baseline") + table1.count("baseline") >= 1
    assert len(list((tmp_path / "rep" / "tables").glob("*.csv"))) > 0


def test_failing_cell_does_not_stop_the_others(tmp_path, capsys):
    code = run_cli(
        "sweep",
        str(grid_plan(tmp_path, models="[replay:/nosuch/samples.jsonl, baseline:random]")),
        "--out",
        str(tmp_path / "o"),
    )
    out = capsys.readouterr().out
    assert code == 2
    assert out.count("failed: ") == 4 and out.count("complete: ") == 4


def test_failed_cell_reports_its_reason(tmp_path, capsys):
    run_cli("sweep", str(grid_plan(tmp_path, models="[replay:/nosuch/samples.jsonl]")), "--out", str(tmp_path / "o"))
    assert "nosuch" in capsys.readouterr().out.split("failed: ")[1].splitlines()[0]


def test_dry_run_counts_requests_from_the_dataset_and_runs_nothing(tmp_path, capsys):
    code = run_cli(
        "sweep",
        str(grid_plan(tmp_path, limit=1, models="['openai:m@http://127.0.0.1:9/v1']")),
        "--out",
        str(tmp_path / "o"),
        "--dry-run",
    )
    out = capsys.readouterr().out
    bench, data = get_benchmark("socialnav-sim")
    questions = len(bench.question_order(bench.load(data, require_images=False, limit=1)))
    assert code == 0 and not (tmp_path / "o").exists()
    assert f"{4 * questions} model requests in all" in out


def test_refused_plan_exits_one_naming_the_key(tmp_path, capsys):
    plan = tmp_path / "plan.yaml"
    plan.write_text("models: [baseline:random]\nbenchmarks: [roboteq-bj]\naxes: {method: [cot]}\n")
    code = run_cli("sweep", str(plan), "--out", str(tmp_path / "o"))
    err = capsys.readouterr().err
    assert code == 1 and "axes.method='cot'" in err and "Traceback" not in err


def test_address_without_ray_executor_is_a_usage_error(tmp_path, capsys):
    code = run_cli("sweep", str(grid_plan(tmp_path)), "--address", "auto")
    assert code == 1 and "--address is for --executor ray" in capsys.readouterr().err


def test_epochs_option_runs_each_cell_as_eval_epochs_does(tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "models: [baseline:random]\nbenchmarks: [socialnav-sim]\n"
        "options: {epochs: 2, limit: 1, no_cache: true, no_render_cache: true}\n"
    )
    code = run_cli("sweep", str(plan), "--out", str(tmp_path / "o"))
    cell = tmp_path / "o" / "socialnav-sim" / "baseline_random" / "independent-img-with-bev"
    combined = json.loads((cell / "run.json").read_text())
    assert code == 0 and combined["epochs"] == 2 and combined["status"] == "complete"
    assert (cell / "epoch-2" / "samples.jsonl").is_file()


@pytest.mark.parametrize("below", ["", "sub/dir"])
def test_an_out_that_is_a_file_is_refused_before_any_cell_runs(tmp_path, capsys, below):
    afile = tmp_path / "afile"
    afile.write_text("x")
    out = afile / below if below else afile
    code = run_cli("sweep", str(grid_plan(tmp_path)), "--out", str(out))
    captured = capsys.readouterr()
    assert code == 1 and "choose another --out folder" in captured.err
    assert "complete: " not in captured.out and "failed: " not in captured.out
