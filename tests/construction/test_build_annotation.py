"""Label Studio configs and tasks, and import of Label Studio JSON exports."""

import json
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from socialbench.construction.annotation_config import labeling_config
from socialbench.construction.annotation_import import import_export
from socialbench.construction.annotation_tasks import ImageRefs, grounding_tasks, judgment_tasks
from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.errors import DataError


def _choices(xml, name):
    root = ET.fromstring(xml)
    node = next(c for c in root.iter("Choices") if c.get("name") == name)
    return node.get("choice"), [c.get("value") for c in node.iter("Choice")]


def test_judgment_config_has_three_labels_and_seven_facets():
    xml = labeling_config("judgment")
    assert _choices(xml, "label") == ("single", ["proper", "improper", "invalid"])
    assert _choices(xml, "facets") == (
        "multiple",
        ["safety", "privacy", "proxemics", "cooperation", "politeness", "priority", "sensitivity"],
    )


def test_grounding_config_is_multi_select_with_invalid():
    assert _choices(labeling_config("grounding"), "regions") == ("multiple", ["A", "B", "C", "D", "invalid"])


def test_verification_config_compares_two_images():
    root = ET.fromstring(labeling_config("verification"))
    assert [i.get("value") for i in root.iter("Image")] == ["$original", "$edited"]
    assert _choices(labeling_config("verification"), "choice")[1] == ["original", "edited", "neither"]
    assert any(t.get("name") == "instructions" for t in root.iter("TextArea"))


def _scene(tmp_path):
    Image.new("RGB", (8, 8)).save(tmp_path / "a.png")
    return {
        "id": "s1",
        "image": "a.png",
        "question": "You are a robot. ...",
        "behaviors": [{"k": 1, "text": "Wave", "facets": ["politeness"]}, {"k": 2, "text": "Shove", "facets": []}],
    }


def test_judgment_tasks_one_per_behavior_with_facet_prediction(tmp_path):
    tasks = judgment_tasks([_scene(tmp_path)], ImageRefs(work=tmp_path))
    assert [(t["data"]["item_id"], t["data"]["k"], t["data"]["behavior"]) for t in tasks] == [
        ("s1", 1, "Wave"),
        ("s1", 2, "Shove"),
    ]
    assert tasks[0]["data"]["image"] == "/data/local-files/?d=a.png"
    assert tasks[0]["predictions"][0]["result"][0]["value"] == {"choices": ["politeness"]}
    assert "predictions" not in tasks[1]


def test_data_uri_refs_embed_the_image(tmp_path):
    tasks = judgment_tasks([_scene(tmp_path)], ImageRefs(mode="data-uri", work=tmp_path))
    assert tasks[0]["data"]["image"].startswith("data:image/png;base64,")


def test_grounding_tasks_show_no_answer(tmp_path):
    rec = {
        "id": "g1",
        "image": "a.png",
        "question": "Where?",
        "options": {"A": "door", "B": "table"},
        "proposed_answer": ["A"],
    }
    Image.new("RGB", (8, 8)).save(tmp_path / "a.png")
    (task,) = grounding_tasks([rec], ImageRefs(work=tmp_path))
    assert task["data"]["options_text"] == "A: door\nB: table"
    assert "A" not in json.dumps(
        {
            k: v
            for k, v in task["data"].items()
            if k not in ("options_text", "image", "image_path", "item_id", "kind", "question")
        }
    )


def _ann(aid, who, label, facets=(), cancelled=False, updated="2025-01-01T00:00:00Z"):
    result = [{"from_name": "label", "to_name": "behavior", "type": "choices", "value": {"choices": [label]}}]
    if facets:
        result.append(
            {"from_name": "facets", "to_name": "behavior", "type": "choices", "value": {"choices": list(facets)}}
        )
    return {"id": aid, "completed_by": who, "result": result, "was_cancelled": cancelled, "updated_at": updated}


def test_import_reads_labels_skips_cancelled_and_keeps_the_latest(tmp_path):
    export = [
        {
            "id": 10,
            "data": {"kind": "judgment", "item_id": "s1", "k": 1, "behavior": "Wave"},
            "annotations": [
                _ann(1, 7, "proper", ["politeness"]),
                _ann(2, {"id": 8, "email": "b@x.org"}, "improper"),
                _ann(3, 9, "invalid", cancelled=True),
                _ann(4, 7, "improper", updated="2025-02-01T00:00:00Z"),  # annotator 7 changed their mind
            ],
        }
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    res = import_export([path])
    rows = res.rows["judgment"]
    assert [(r["annotator"], r["label"]) for r in rows] == [("7", "improper"), ("b@x.org", "improper")]
    assert res.cancelled == 1 and res.superseded == 1


def test_import_rejects_labels_outside_the_config(tmp_path):
    export = [
        {
            "id": 1,
            "data": {"kind": "judgment", "item_id": "s1", "k": 1, "behavior": "x"},
            "annotations": [_ann(1, 7, "maybe")],
        }
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    with pytest.raises(DataError) as e:
        import_export([path])
    assert "export.json" in str(e.value) and "maybe" in str(e.value)


def test_cli_export_then_import(cli, work):
    scene = _scene(work)
    write_jsonl(work / "behaviors.jsonl", [scene])
    assert cli("annotate", "export", "--kind", "judgment", "--work", work).exit_code == 0
    tasks = json.loads((work / "annotation" / "judgment" / "tasks.json").read_text())
    ET.fromstring((work / "annotation" / "judgment" / "config.xml").read_text())
    export = [
        {"id": i, **t, "annotations": [_ann(100 + i, who, "proper") for who in (1, 2, 3)]} for i, t in enumerate(tasks)
    ]
    (work / "ls.json").write_text(json.dumps(export))
    res = cli("annotate", "import", work / "ls.json", "--work", work)
    assert res.exit_code == 0, res.output
    rows = read_jsonl(work / "annotation" / "judgment" / "annotations.jsonl")
    assert len(rows) == 6 and {r["k"] for r in rows} == {1, 2}


def _write_export(tmp_path, name, tasks):
    path = tmp_path / name
    path.write_text(json.dumps(tasks))
    return path


def test_import_keeps_verification_and_grounding_rows_of_the_same_item_and_annotator(tmp_path):
    ver = [
        {
            "id": 1,
            "data": {"kind": "verification", "item_id": "park/s-001", "original": "a", "edited": "b"},
            "annotations": [
                {
                    "id": 10,
                    "completed_by": 1,
                    "updated_at": "2024-01-01T10:00:00Z",
                    "result": [{"from_name": "choice", "value": {"choices": ["edited"]}}],
                }
            ],
        }
    ]
    grd = [
        {
            "id": 2,
            "data": {"kind": "grounding", "item_id": "park/s-001", "options_text": "x"},
            "annotations": [
                {
                    "id": 11,
                    "completed_by": 1,
                    "updated_at": "2024-01-01T09:00:00Z",
                    "result": [{"from_name": "regions", "value": {"choices": ["A"]}}],
                }
            ],
        }
    ]
    res = import_export([_write_export(tmp_path, "ver.json", ver), _write_export(tmp_path, "grd.json", grd)])
    assert [r["choice"] for r in res.rows["verification"]] == ["edited"]
    assert [r["selection"] for r in res.rows["grounding"]] == [["A"]]
    assert res.superseded == 0


def test_import_compares_updated_at_as_times_not_text(tmp_path):
    # as text "...:00Z" sorts after "...:00.5Z"; as times the half second is later
    export = [
        {
            "id": 10,
            "data": {"kind": "judgment", "item_id": "s1", "k": 1, "behavior": "Wave"},
            "annotations": [
                _ann(1, 7, "improper", updated="2025-01-01T00:00:00.5Z"),
                _ann(2, 7, "proper", updated="2025-01-01T00:00:00Z"),
            ],
        }
    ]
    res = import_export([_write_export(tmp_path, "export.json", export)])
    assert [r["label"] for r in res.rows["judgment"]] == ["improper"] and res.superseded == 1


def test_import_compares_times_with_different_offsets(tmp_path):
    # 01:00+02:00 is 23:00 UTC of the previous day: earlier than 00:00Z
    export = [
        {
            "id": 10,
            "data": {"kind": "judgment", "item_id": "s1", "k": 1, "behavior": "Wave"},
            "annotations": [
                _ann(2, 7, "proper", updated="2025-01-01T01:00:00+02:00"),
                _ann(1, 7, "improper", updated="2025-01-01T00:00:00Z"),
            ],
        }
    ]
    res = import_export([_write_export(tmp_path, "export.json", export)])
    assert [r["label"] for r in res.rows["judgment"]] == ["improper"]


def test_import_rejects_a_time_that_is_not_iso_8601(tmp_path):
    export = [
        {
            "id": 10,
            "data": {"kind": "judgment", "item_id": "s1", "k": 1, "behavior": "Wave"},
            "annotations": [_ann(1, 7, "proper", updated="yesterday")],
        }
    ]
    with pytest.raises(DataError) as e:
        import_export([_write_export(tmp_path, "export.json", export)])
    assert "export.json" in str(e.value) and "yesterday" in str(e.value) and "updated_at" in str(e.value)
