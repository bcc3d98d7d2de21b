"""`socialbench build socialnav-answers`: a survey's Label Studio export (in Label Studio's
JSON export format, made here without a server) into the release's human answer files;
`eval` scores against them; bad exports are one line naming the file, the field and the
fix, with nothing written."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from socialbench.testing.label_studio_survey import distribution_of, expected_distributions, fake_export, plan

K = 4


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _write(tmp_path: Path, export: list[dict], name: str = "export.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(export))
    return path


@pytest.fixture
def answered(exported, tmp_path):
    """(tasks, the plan of K annotators, the export file)."""
    _, tasks = exported
    p = plan(tasks, K, seed=5)
    return tasks, p, _write(tmp_path, fake_export(tasks, p))


def _common(data: Path, sid: str) -> dict:
    return json.loads((data / "human_labels" / sid / "common_answers.json").read_text())


def test_distributions_equal_what_the_annotators_entered(answered, data, run) -> None:
    tasks, p, export = answered
    code, _, err = run("build", "socialnav-answers", export, "--data", data)
    assert code == 0, err
    for sid, per in expected_distributions(tasks, p).items():
        common = _common(data, sid)
        assert len(common) == 3 * len(per)
        for key, counts in per.items():
            assert distribution_of(common, key) == ({a: c / K for a, c in counts.items()}, K), key


def test_answers_are_listed_by_decreasing_count(answered, data, run) -> None:
    tasks, p, export = answered
    run("build", "socialnav-answers", export, "--data", data)
    for sid in p:
        common = _common(data, sid)
        for key in (k for k in common if not k.endswith(("_probabilities", "_n_answers"))):
            probs = common[f"{key}_probabilities"]
            assert probs == sorted(probs, reverse=True)


def test_multiple_select_answers_list_their_options_in_option_order(answered, data, run) -> None:
    _, p, export = answered
    run("build", "socialnav-answers", export, "--data", data)
    order = ["moving ahead", "turning left", "turning right"]
    for sid in p:
        for answer in _common(data, sid)["q_robot_moving_direction"]:
            assert answer == sorted(answer, key=order.index)


def test_raw_answers_hold_each_annotators_answers(answered, data, run) -> None:
    tasks, p, export = answered
    run("build", "socialnav-answers", export, "--data", data)
    sid = tasks[0]["data"]["sample_id"]
    raw = json.loads((data / "human_labels" / sid / "raw_answers.json").read_text())
    assert raw["n_annotators"] == K and [a["annotator"] for a in raw["annotators"]] == ["101", "102", "103", "104"]
    first = raw["annotators"][0]["answers"]
    assert first["q_person_action_p1"] == p[sid][0]["q_person_action__r0"][0]
    assert sorted(first["q_robot_moving_direction"]) == sorted(p[sid][0]["q_robot_moving_direction"])


def test_the_dataset_validates_and_eval_scores_against_the_imported_answers(answered, data, run, tmp_path) -> None:
    tasks, p, export = answered
    run("build", "socialnav-answers", export, "--data", data)
    code, _, err = run("data", "validate", "-b", "socialnav-sub", "--data", data)
    assert code == 0, err
    code, _, err = run("eval", "-b", "socialnav-sub", "-d", data, "-m", "human:oracle", "--out", tmp_path / "run")
    assert code == 0, err
    shares = [max(c.values()) / K for per in expected_distributions(tasks, p).values() for c in per.values()]
    scores = json.loads((tmp_path / "run" / "metrics.json").read_text())["scores"]["model"]["All"]
    assert scores["n"] == len(shares)
    assert scores["PA"] == pytest.approx(sum(shares) / len(shares))


def test_agreement_statistics_are_written_per_question(answered, data, run) -> None:
    tasks, p, export = answered
    code, out, _ = run("build", "socialnav-answers", export, "--data", data)
    doc = json.loads((data / "human_labels" / "survey_answers.json").read_text())
    per = [c for d in expected_distributions(tasks, p).values() for k, c in d.items() if k.startswith("q_robot_action")]
    q = doc["agreement"]["questions"]["q_robot_action"]
    assert q["items"] == len(per)
    assert q["majority_share"] == pytest.approx(sum(max(c.values()) / K for c in per) / len(per), abs=1e-6)
    assert isinstance(q["krippendorff_alpha"], float)
    assert doc["annotators_per_scenario"] == {sid: K for sid in p}
    assert "Krippendorff's alpha" in out[1]


def test_the_labels_there_before_are_kept_aside(answered, data, run) -> None:
    before = _snapshot(data / "human_labels")
    _, _, export = answered
    _, out, _ = run("build", "socialnav-answers", export, "--data", data)
    assert _snapshot(data / "human_labels.before-survey") == before
    assert "human_labels.before-survey" in out[-1]


def test_importing_again_replaces_the_earlier_import_without_another_copy(answered, exported, data, run, tmp_path):
    tasks, _, export = answered
    run("build", "socialnav-answers", export, "--data", data)
    other = plan(tasks, K, seed=99)
    code, _, _ = run(
        "build", "socialnav-answers", _write(tmp_path, fake_export(tasks, other), "e2.json"), "--data", data
    )
    assert code == 0
    sid = tasks[0]["data"]["sample_id"]
    want = expected_distributions(tasks, other)[sid]["q_robot_action_p1"]
    assert distribution_of(_common(data, sid), "q_robot_action_p1")[0] == {a: c / K for a, c in want.items()}
    assert sorted(p.name for p in data.iterdir() if p.name.startswith("human_labels")) == [
        "human_labels",
        "human_labels.before-survey",
    ]


def test_cancelled_annotations_are_left_out(answered, data, run, tmp_path) -> None:
    tasks, p, _ = answered
    export = fake_export(tasks, p)
    skipped = copy.deepcopy(export[0]["annotations"][0])
    skipped.update(id=1, completed_by=999, was_cancelled=True, result=[])
    export[0]["annotations"].append(skipped)
    code, out, _ = run("build", "socialnav-answers", _write(tmp_path, export), "--data", data)
    assert code == 0 and "1 skipped" in out[0]
    raw = json.loads((data / "human_labels" / tasks[0]["data"]["sample_id"] / "raw_answers.json").read_text())
    assert "999" not in [a["annotator"] for a in raw["annotators"]]


def test_an_annotators_latest_annotation_counts(answered, data, run, tmp_path) -> None:
    tasks, p, _ = answered
    export = fake_export(tasks, p)
    sid = tasks[0]["data"]["sample_id"]
    later = copy.deepcopy(export[0]["annotations"][0])
    later["id"] += 5000
    later["updated_at"] = "2026-02-01T10:00:00Z"
    for r in later["result"]:
        if r["from_name"] == "q_robot_action__r0":
            r["value"]["choices"] = ["yielding to"]
    export[0]["annotations"].append(later)
    code, out, _ = run("build", "socialnav-answers", _write(tmp_path, export), "--data", data)
    assert code == 0 and "1 superseded" in out[0]
    raw = json.loads((data / "human_labels" / sid / "raw_answers.json").read_text())
    assert raw["annotators"][0]["answers"]["q_robot_action_p1"] == "yielding to"


# ------------------------------------------------------------------ bad exports: one line, nothing written


def _refused(run, data: Path, export: Path, *extra: object) -> str:
    before = _snapshot(data)
    code, _, err = run("build", "socialnav-answers", export, "--data", data, *extra)
    assert code == 1
    assert len(err) == 1, err
    assert _snapshot(data) == before
    assert [p.name for p in data.iterdir() if p.name.startswith(".")] == []
    assert str(export) in err[0] and "fix:" in err[0]
    return err[0]


def test_export_of_another_project_is_one_line(data, run, tmp_path) -> None:
    roboteq = [
        {"id": i, "data": {"kind": "judgment", "item_id": f"s{i}", "k": 1, "behavior": "wave"}, "annotations": []}
        for i in range(1, 6)
    ]
    line = _refused(run, data, _write(tmp_path, roboteq))
    assert "[task 1.data.kind]" in line and "5 of 5 tasks" in line and "another Label Studio project" in line
    assert "socialbench build socialnav-survey" in line


def test_export_with_missing_tasks_is_one_line(answered, data, run, tmp_path) -> None:
    tasks, p, _ = answered
    export = fake_export(tasks, p)
    gone = export.pop(1)["data"]["sample_id"]
    line = _refused(run, data, _write(tmp_path, export))
    assert "[tasks]" in line and "1 of 3 scenarios" in line and gone in line and "Export" in line


def test_scenario_with_fewer_than_k_annotators_is_one_line(answered, data, run, tmp_path) -> None:
    tasks, p, _ = answered
    export = fake_export(tasks, p)
    del export[2]["annotations"][1:]
    del export[0]["annotations"][3:]
    line = _refused(run, data, _write(tmp_path, export))
    assert "2 scenario(s) have fewer than 4 annotators" in line and "collect the missing annotations" in line


def test_min_annotators_accepts_a_smaller_panel(answered, data, run, tmp_path) -> None:
    tasks, p, _ = answered
    export = fake_export(tasks, p)
    del export[0]["annotations"][3:]
    line = _refused(run, data, _write(tmp_path, export))
    assert "--min-annotators 3" in line
    code, _, _ = run("build", "socialnav-answers", tmp_path / "export.json", "--data", data, "--min-annotators", 3)
    assert code == 0
    assert _common(data, tasks[0]["data"]["sample_id"])["q_robot_action_p1_n_answers"] == 3


def test_export_of_a_survey_of_another_dataset_is_one_line(answered, data, run, tmp_path) -> None:
    tasks, p, _ = answered
    export = fake_export(tasks, p)
    for t in export:
        t["data"]["survey_id"] = "0123456789abcdef"
    line = _refused(run, data, _write(tmp_path, export))
    assert "data.survey_id" in line and "another dataset" in line and "--data" in line


def test_unanswered_question_names_the_task_annotation_and_control(answered, data, run, tmp_path) -> None:
    tasks, p, _ = answered
    export = fake_export(tasks, p)
    ann = export[0]["annotations"][2]
    ann["result"] = [r for r in ann["result"] if r["from_name"] != "q_person_affected__r0"]
    line = _refused(run, data, _write(tmp_path, export))
    assert f"[task 1.annotation {ann['id']}.result.q_person_affected__r0]" in line and "not answered" in line


def test_choice_that_is_not_an_option_names_the_control(answered, data, run, tmp_path) -> None:
    tasks, p, _ = answered
    export = fake_export(tasks, p)
    for r in export[1]["annotations"][0]["result"]:
        if r["from_name"] == "q_goal_position_end":
            r["value"]["choices"] = ["behind"]
    line = _refused(run, data, _write(tmp_path, export))
    assert "result.q_goal_position_end]" in line and "'behind'" in line


def test_single_choice_with_two_choices_is_refused(answered, data, run, tmp_path) -> None:
    tasks, p, _ = answered
    export = fake_export(tasks, p)
    for r in export[1]["annotations"][0]["result"]:
        if r["from_name"] == "q_obstructing_path__r0":
            r["value"]["choices"] = ["yes", "no"]
    line = _refused(run, data, _write(tmp_path, export))
    assert "q_obstructing_path__r0" in line and "exactly one of" in line


def test_task_whose_people_differ_from_the_dataset_is_refused(answered, data, run, tmp_path) -> None:
    tasks, p, _ = answered
    export = fake_export(tasks, p)
    export[0]["data"]["people"] = export[0]["data"]["people"][:-1] + [{"label": 9}]
    line = _refused(run, data, _write(tmp_path, export))
    assert "[task 1.data.people]" in line


def test_an_export_that_is_not_a_list_of_tasks_is_one_line(data, run, tmp_path) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"tasks": []}))
    line = _refused(run, data, path)
    assert "not a list of tasks" in line


def test_min_annotators_below_two_is_refused(answered, data, run) -> None:
    _, _, export = answered
    code, _, err = run("build", "socialnav-answers", export, "--data", data, "--min-annotators", 1)
    assert code == 1 and len(err) == 1 and "--min-annotators" in err[0]
