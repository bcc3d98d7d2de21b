"""Closing a stage run: the summary gets the open failures by kind and is written to the work folder."""

import json
import time

from socialbench.construction.stage_output import StageOutput
from socialbench.construction.stage_summary import StageSummary
from socialbench.construction.stages.common import StageRun, close_stage, rel


def test_close_stage_counts_open_failures_by_kind_and_writes_the_summary(tmp_path):
    out = StageOutput(tmp_path / "behaviors.jsonl", "behaviors")
    out.write({"id": "s1"})
    out.fail("s2", "invalid_json", "no JSON object")
    out.fail("s3", "timeout", "no reply")
    out.fail("s1", "timeout", "an earlier failure of a record that has since succeeded")
    run = StageRun(StageSummary(stage="behaviors", input="review.jsonl", output="behaviors.jsonl"), [out])
    failures = close_stage(tmp_path, run, time.perf_counter())
    assert sorted(f["id"] for f in failures) == ["s2", "s3"]
    written = json.loads((tmp_path / "summaries" / "behaviors.json").read_text())
    assert written["n_failed"] == 2 and written["failure_kinds"] == {"invalid_json": 1, "timeout": 1}


def test_rel_names_a_path_inside_the_work_folder_relative_and_one_outside_whole(tmp_path):
    assert rel(tmp_path, tmp_path / "annotation" / "tasks.json") == "annotation/tasks.json"
    assert rel(tmp_path / "work", tmp_path / "specs.jsonl") == str(tmp_path / "specs.jsonl")
