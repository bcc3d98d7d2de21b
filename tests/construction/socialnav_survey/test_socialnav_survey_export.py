"""`socialbench build socialnav-survey`: the Label Studio project of a dataset's human study,
written whole or not at all; bad input is one line naming the file and the fix."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from socialbench.benchmarks.socialnav_sub.bank import expand_questions
from survey_fixtures import BANK, PERSON, SCENE


def _info(data: Path) -> list[dict]:
    return json.loads((data / "prompts" / "sample_info.json").read_text())["samples"]


def test_export_writes_config_tasks_project_and_manifest(data, tmp_path, run) -> None:
    code, out, _ = run("build", "socialnav-survey", "--data", data, "--out", tmp_path / "s")
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == [
        "README.md",
        "config.xml",
        "project.json",
        "survey.json",
        "tasks.json",
    ]
    assert "3 scenarios" in out[0]


def test_one_task_per_scenario_in_sample_list_order(exported, data) -> None:
    _, tasks = exported
    assert [t["data"]["sample_id"] for t in tasks] == [s["folderpath"] for s in _info(data)]


def test_tasks_show_the_release_composites(exported, data) -> None:
    _, tasks = exported
    for t in tasks:
        sid = t["data"]["sample_id"]
        for i in range(10):
            rel = f"prompts/{sid}/sample_with_bev_{i}.png"
            assert t["data"]["image_paths"][i] == rel and (data / rel).is_file()
            assert t["data"][f"image_{i}"] == f"/data/local-files/?d={rel}"


def test_task_people_carry_the_prompt_texts_of_each_person(exported, data) -> None:
    _, tasks = exported
    people = {s["folderpath"]: s["n_people"] for s in _info(data)}
    for t in tasks:
        d = t["data"]
        questions = {q.key: q.text for q in expand_questions(BANK, people[d["sample_id"]])}
        assert [p["label"] for p in d["people"]] == list(range(1, people[d["sample_id"]] + 1))
        for p in d["people"]:
            assert {b: p[b] for b in PERSON} == {b: questions[f"{b}_p{p['label']}"] for b in PERSON}
        assert {b: d[b] for b in SCENE} == {b: questions[b] for b in SCENE}


def test_tasks_carry_the_survey_instructions(exported) -> None:
    _, tasks = exported
    text = tasks[0]["data"]["instructions"]
    for block in ("survey_instructions", "movement_instructions", "navigation_action_instructions"):
        assert "\n".join(BANK.blocks[block]) in text


def test_project_asks_k_annotations_for_every_task(exported) -> None:
    survey, tasks = exported
    project = json.loads((survey / "project.json").read_text())
    assert project["maximum_annotations"] == 4 and project["overlap_cohort_percentage"] == 100
    assert project["label_config"] == (survey / "config.xml").read_text().rstrip("\n")
    assert {t["data"]["annotators"] for t in tasks} == {4}


def test_default_k_is_five_as_the_paper(data, tmp_path, run) -> None:
    run("build", "socialnav-survey", "--data", data, "--out", tmp_path / "s")
    assert json.loads((tmp_path / "s" / "project.json").read_text())["maximum_annotations"] == 5


def test_fewer_than_two_annotators_is_refused(data, tmp_path, run) -> None:
    code, _, err = run("build", "socialnav-survey", "--data", data, "--out", tmp_path / "s", "--annotators", 1)
    assert code == 1 and len(err) == 1 and "--annotators" in err[0]
    assert not (tmp_path / "s").exists()


def test_data_uri_refs_embed_the_composite_bytes(data, tmp_path, run) -> None:
    run("build", "socialnav-survey", "--data", data, "--out", tmp_path / "s", "--image-refs", "data-uri")
    task = json.loads((tmp_path / "s" / "tasks.json").read_text())[0]["data"]
    raw = base64.b64decode(task["image_3"].split(",", 1)[1])
    assert raw == (data / task["image_paths"][3]).read_bytes()


def test_missing_composite_is_one_line_naming_it_and_the_fix(data, tmp_path, run) -> None:
    sid = _info(data)[1]["folderpath"]
    gone = data / "prompts" / sid / "sample_with_bev_7.png"
    gone.unlink()
    code, _, err = run("build", "socialnav-survey", "--data", data, "--out", tmp_path / "s")
    assert code == 1 and len(err) == 1
    assert str(gone) in err[0] and "socialbench data render" in err[0]
    assert not (tmp_path / "s").exists()


def test_folder_without_sample_list_names_the_file(data, tmp_path, run) -> None:
    for rel in ("prompts/sample_info.json", "sample_info.json", "human_labels/sample_info.json"):
        (data / rel).unlink()
    code, _, err = run("build", "socialnav-survey", "--data", data, "--out", tmp_path / "s")
    assert code == 1 and len(err) == 1 and "sample_info.json" in err[0] and "fix:" in err[0]


def test_a_non_empty_folder_that_is_not_a_survey_is_left_alone(data, tmp_path, run) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "notes.txt").write_text("mine")
    code, _, err = run("build", "socialnav-survey", "--data", data, "--out", tmp_path / "s")
    assert code == 1 and len(err) == 1 and "--out" in err[0]
    assert [p.name for p in (tmp_path / "s").iterdir()] == ["notes.txt"]


def test_an_existing_survey_is_replaced_only_with_overwrite(exported, data, run) -> None:
    survey, _ = exported
    code, _, err = run("build", "socialnav-survey", "--data", data, "--out", survey)
    assert code == 1 and "--overwrite" in err[0]
    assert json.loads((survey / "project.json").read_text())["maximum_annotations"] == 4
    code, _, _ = run("build", "socialnav-survey", "--data", data, "--out", survey, "--overwrite")
    assert code == 0
    assert json.loads((survey / "project.json").read_text())["maximum_annotations"] == 5
    assert [p.name for p in survey.parent.iterdir() if p.name.startswith(".")] == []
