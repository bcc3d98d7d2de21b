"""A ``socialbench score --out`` copy of a run is reported as the run itself (issue 39.3): it
keeps the run's provenance (a cot-gt run stays human-derived, never bolded nor ranked) and its
completeness (a killed run stays partial); an official experiment folder made with
``cot_with_gt`` is human-derived; the fix offered for an unscored run works verbatim."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.cli import main
from socialbench.errors import DataError
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.report.compare import compare_runs
from socialbench.report.loading import load_run, load_runs
from socialbench.report.provenance import HUMAN_DERIVED, completeness, section_of
from socialbench.report.socialnav_tables import socialnav_table1
from socialbench.runner.run import RunRequest, run_eval


class TextVLM(MockModel):
    """A stand-in VLM (spec ``vlm:first-option``: reports file it under "VLM")."""

    needs_prompt = False

    def __init__(self) -> None:
        super().__init__("vlm:first-option", lambda r: first_option_answer(r.prompt))


def run_cli(*args: str) -> int:
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return int(e.value.code or 0)


@pytest.fixture(scope="module")
def run_dirs(tmp_path_factory) -> dict[str, Path]:
    """Complete eval runs of the first 3 demo scenes: ``vlm`` (cot) and ``cot-gt``."""
    out = tmp_path_factory.mktemp("scored-copy")
    dirs = {}
    for name, method in (("vlm", "cot"), ("cot-gt", "cot-gt")):
        req = RunRequest(
            "socialnav-sub",
            bundled_demo_data(),
            "m",
            out / name,
            EvalOptions(limit=3, method=method),
            concurrency=8,
            show_progress=False,
            image_workers=0,
        )
        assert run_eval(req, SocialNavSub(), TextVLM()).complete
        dirs[name] = out / name
    return dirs


def _score(pred: Path, out: Path) -> Path:
    assert run_cli("score", "-b", "socialnav-sub", "-p", str(pred), "-d", str(bundled_demo_data()), "-o", str(out)) == 0
    return out


def _killed(run: Path, to: Path, keep: int) -> Path:
    """A copy of ``run`` as SIGKILL leaves it: ``keep`` answers, run.json ``running``, no metrics.json."""
    shutil.copytree(run, to)
    lines = (to / "samples.jsonl").read_text().splitlines(keepends=True)
    (to / "samples.jsonl").write_text("".join(lines[:keep]))
    run_json = json.loads((to / "run.json").read_text())
    run_json["status"] = "running"
    for key in ("ended", "answered"):
        run_json.pop(key, None)
    (to / "run.json").write_text(json.dumps(run_json))
    (to / "metrics.json").unlink()
    return to


def test_a_rescored_cot_gt_run_stays_human_derived(run_dirs, tmp_path):
    scored = load_run(_score(run_dirs["cot-gt"], tmp_path / "s"))
    assert section_of(scored) == HUMAN_DERIVED


def test_table1_never_bolds_a_rescored_cot_gt_run(run_dirs, tmp_path):
    runs = load_runs([run_dirs["vlm"], _score(run_dirs["cot-gt"], tmp_path / "s")])
    t = socialnav_table1(runs)
    (row,) = [r for r in t.rows if r.section == HUMAN_DERIVED]
    assert not any(c.bold for c in row.cells)


def test_compare_does_not_rank_a_rescored_cot_gt_run(run_dirs, tmp_path):
    runs = load_runs([run_dirs["vlm"], _score(run_dirs["cot-gt"], tmp_path / "s")])
    result = compare_runs(runs, seed=0, n_boot=50, n_perm=50)
    ranked = {e["run"] for e in result["leaderboard"] if e["ranked"]}
    assert ranked == {runs[0].label}


def test_a_rescored_killed_run_is_partial(run_dirs, tmp_path):
    killed = _killed(run_dirs["vlm"], tmp_path / "killed", keep=32)
    c = completeness(load_run(_score(killed, tmp_path / "s")))
    assert c.partial and (c.answered, c.status) == (32, "running")


def test_a_rescored_complete_run_is_complete(run_dirs, tmp_path):
    assert not completeness(load_run(_score(run_dirs["vlm"], tmp_path / "s"))).partial


def test_the_fix_offered_for_a_killed_run_works_verbatim(run_dirs, tmp_path):
    killed = _killed(run_dirs["vlm"], tmp_path / "killed", keep=32)
    with pytest.raises(DataError) as exc:
        load_run(killed)
    (command,) = re.findall(r"`(socialbench score [^`]*)`", str(exc.value))
    argv = shlex.split(command)
    assert run_cli(*argv[1:]) == 0
    c = completeness(load_run(killed))
    assert c.partial and c.answered == 32


@pytest.fixture
def official_cot_with_gt(tmp_path) -> Path:
    """An official experiment folder as the harness names a ``method: cot_with_gt`` run."""
    exp = tmp_path / "experiment_3_gpt-4o_cot_with_gt"
    for item in load_socialnav(bundled_demo_data(), limit=2).items:
        answers = {q.key: ([q.options[0]] if q.kind == "multi" else q.options[0]) for q in item.questions}
        (exp / item.item_id).mkdir(parents=True)
        (exp / item.item_id / "question_answers.json").write_text(json.dumps(answers))
    return exp


def test_an_official_cot_with_gt_folder_is_human_derived(official_cot_with_gt):
    run = load_run(official_cot_with_gt, data=bundled_demo_data())
    assert section_of(run) == HUMAN_DERIVED


def test_the_score_output_of_an_official_cot_with_gt_folder_is_human_derived(official_cot_with_gt, tmp_path):
    out = tmp_path / "s"
    argv = ["score", "-b", "socialnav-sub", "-p", str(official_cot_with_gt), "-d", str(bundled_demo_data())]
    assert run_cli(*argv, "--protocol", "official", "-o", str(out)) == 0
    assert section_of(load_run(out)) == HUMAN_DERIVED
