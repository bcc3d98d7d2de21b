"""Figure 6(a), humans without the image: the ``judgment-no-image`` annotation kind, its
import, ``aggregate`` attaching the labels as ``votes_no_image`` and ``export`` carrying
them into the dataset."""

import json
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from socialbench.benchmarks.roboteq.loader import load_roboteq
from socialbench.benchmarks.roboteq.schema import TASK_BJ
from socialbench.construction.annotation_config import labeling_config
from socialbench.construction.annotation_import import import_export
from socialbench.construction.annotation_tasks import judgment_no_image_tasks
from socialbench.construction.image_necessity import attach_no_image_votes
from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.errors import DataError, UsageError


def _final(n_scenes=1):
    return [
        {
            "id": f"s{i}",
            "image": f"s{i}.png",
            "question": "You are a hotel robot. What next?",
            "behaviors": [
                {"k": 1, "text": "Knock.", "label": "proper"},
                {"k": 2, "text": "Barge in.", "label": "improper"},
            ],
        }
        for i in range(n_scenes)
    ]


def _label(aid, who, label):
    result = [{"from_name": "label", "to_name": "behavior", "type": "choices", "value": {"choices": [label]}}]
    return {"id": aid, "completed_by": who, "result": result, "was_cancelled": False}


def test_config_shows_no_image_and_offers_proper_or_improper():
    root = ET.fromstring(labeling_config("judgment-no-image"))
    assert not list(root.iter("Image"))
    node = next(root.iter("Choices"))
    assert [c.get("value") for c in node.iter("Choice")] == ["proper", "improper"]


def test_tasks_carry_the_role_and_behavior_but_no_image():
    tasks = judgment_no_image_tasks(_final())
    assert [(t["data"]["item_id"], t["data"]["k"]) for t in tasks] == [("s0", 1), ("s0", 2)]
    assert not any("image" in key for t in tasks for key in t["data"])
    assert tasks[0]["data"]["question"] == "You are a hotel robot. What next?"


def test_sample_is_a_seeded_subset_in_dataset_order():
    scenes = _final(10)
    a = judgment_no_image_tasks(scenes, sample=5, seed=3)
    keys = [(t["data"]["item_id"], t["data"]["k"]) for t in a]
    order = [(s["id"], b["k"]) for s in scenes for b in s["behaviors"]]
    assert len(keys) == 5 and keys == sorted(keys, key=order.index)
    assert keys == [(t["data"]["item_id"], t["data"]["k"]) for t in judgment_no_image_tasks(scenes, sample=5, seed=3)]


def test_import_refuses_invalid_for_a_no_image_task(tmp_path):
    export = [{"id": 1, "data": judgment_no_image_tasks(_final())[0]["data"], "annotations": [_label(1, 7, "invalid")]}]
    (tmp_path / "e.json").write_text(json.dumps(export))
    with pytest.raises(DataError, match="invalid"):
        import_export([tmp_path / "e.json"])


def test_import_keeps_no_image_rows_apart_from_judgment_rows(tmp_path):
    data = judgment_no_image_tasks(_final())[0]["data"]
    export = [
        {"id": 1, "data": data, "annotations": [_label(1, 7, "improper")]},
        {"id": 2, "data": {**data, "kind": "judgment"}, "annotations": [_label(2, 7, "proper")]},
    ]
    (tmp_path / "e.json").write_text(json.dumps(export))
    rows = import_export([tmp_path / "e.json"]).rows
    assert [r["label"] for r in rows["judgment-no-image"]] == ["improper"]
    assert [r["label"] for r in rows["judgment"]] == ["proper"]


def test_attach_adds_labels_per_annotator_and_lists_unmatched_behaviors():
    rows = [
        {"item_id": "s0", "k": 1, "label": "improper", "annotator": "b"},
        {"item_id": "s0", "k": 1, "label": "proper", "annotator": "a"},
        {"item_id": "gone", "k": 4, "label": "proper", "annotator": "a"},
    ]
    scenes, n, unmatched = attach_no_image_votes(_final(), rows)
    assert scenes[0]["behaviors"][0]["votes_no_image"] == ["proper", "improper"]
    assert "votes_no_image" not in scenes[0]["behaviors"][1] and "label" in scenes[0]["behaviors"][0]
    assert (n, unmatched) == (1, ["gone#b4"])


def test_sample_is_refused_for_other_kinds(cli, work):
    res = cli("annotate", "export", "--kind", "judgment", "--sample", "3", "--work", work)
    assert isinstance(res.exception, UsageError) and "--sample applies to --kind judgment-no-image" in str(
        res.exception
    )


def test_no_image_export_needs_the_aggregated_behaviors(cli, work):
    res = cli("annotate", "export", "--kind", "judgment-no-image", "--work", work)
    assert isinstance(res.exception, UsageError) and "build aggregate" in str(res.exception)


def test_pipeline_collects_votes_without_the_image_into_the_dataset(cli, work, tmp_path):
    Image.new("RGB", (8, 8)).save(work / "s0.png")
    write_jsonl(work / "behaviors.jsonl", [{k: v for k, v in s.items()} for s in _final()])
    assert cli("annotate", "export", "--kind", "judgment", "--work", work).exit_code == 0
    tasks = json.loads((work / "annotation" / "judgment" / "tasks.json").read_text())
    labels = {1: "proper", 2: "improper"}
    export = [
        {"id": i, **t, "annotations": [_label(10 * i + w, w, labels[t["data"]["k"]]) for w in (1, 2, 3)]}
        for i, t in enumerate(tasks)
    ]
    (tmp_path / "with.json").write_text(json.dumps(export))
    assert cli("annotate", "import", tmp_path / "with.json", "--work", work).exit_code == 0
    assert cli("aggregate", "--work", work).exit_code == 0
    res = cli("annotate", "export", "--kind", "judgment-no-image", "--sample", "1", "--work", work)
    assert res.exit_code == 0, res.output
    (task,) = json.loads((work / "annotation" / "judgment-no-image" / "tasks.json").read_text())
    assert "<Image" not in (work / "annotation" / "judgment-no-image" / "config.xml").read_text()
    no_image = [{"id": 1, **task, "annotations": [_label(90 + w, w, "proper") for w in (4, 5)]}]
    (tmp_path / "without.json").write_text(json.dumps(no_image))
    assert cli("annotate", "import", tmp_path / "without.json", "--work", work).exit_code == 0
    res = cli("aggregate", "--work", work)
    assert res.exit_code == 0 and "1 behavior(s) carry votes_no_image" in res.output
    dest = tmp_path / "dataset"
    assert cli("export", dest, "--work", work).exit_code == 0
    beh = load_roboteq(dest, TASK_BJ, require_images=True).items[0].metadata["behaviors"]
    k = task["data"]["k"]
    assert beh[f"b{k}"]["votes_no_image"] == {"proper": 2}
    assert all("votes_no_image" not in b for key, b in beh.items() if key != f"b{k}")
    assert read_jsonl(work / "aggregated" / "judgment.jsonl")[0]["behaviors"][k - 1]["label"] == labels[k]
