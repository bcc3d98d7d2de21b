"""The topic pool of spatial grounding: Label Studio topic-proposal tasks, their import,
pooling per image, and model-proposed topics as the substitute."""

import json
import xml.etree.ElementTree as ET

import pytest

from build_fixtures import write_scenes
from socialbench.construction.annotation_config import labeling_config
from socialbench.construction.annotation_import import import_export
from socialbench.construction.annotation_tasks import ImageRefs, topic_proposal_tasks
from socialbench.construction.jsonl import read_jsonl
from socialbench.construction.topics import pool_topics, topic_id
from socialbench.errors import DataError, UsageError
from socialbench.testing.openai_server import ScriptedOpenAIServer
from socialbench.testing.responders import valid_responder


def _ls_export(tasks, proposals):
    """A Label Studio JSON export: ``proposals[task index][annotator] = text``."""
    export = []
    for i, t in enumerate(tasks):
        anns = [
            {
                "id": 100 * i + who,
                "completed_by": who,
                "was_cancelled": False,
                "result": [{"from_name": "topics", "to_name": "image", "type": "textarea", "value": {"text": [text]}}],
            }
            for who, text in proposals[i].items()
        ]
        export.append({"id": i, "data": t["data"], "annotations": anns})
    return export


def test_topics_config_is_an_image_with_a_required_text_area():
    root = ET.fromstring(labeling_config("topics"))
    area = next(root.iter("TextArea"))
    assert [i.get("value") for i in root.iter("Image")] == ["$image"]
    assert (area.get("name"), area.get("required")) == ("topics", "true")


def test_topic_tasks_show_the_image_without_the_scenario_text(tmp_path):
    scenes = write_scenes(tmp_path)
    tasks = topic_proposal_tasks(scenes, ImageRefs(work=tmp_path))
    assert [sorted(t["data"]) for t in tasks] == [["image", "image_path", "item_id", "kind"]] * 2
    assert [t["data"]["item_id"] for t in tasks] == ["restaurant/b00-1", "restaurant/b00-2"]


def test_label_studio_round_trip_pools_proposals_per_image(cli, work, tmp_path):
    write_scenes(work)
    assert cli("annotate", "export", "--kind", "topics", "--work", work).exit_code == 0
    tasks = json.loads((work / "annotation" / "topics" / "tasks.json").read_text())
    export = _ls_export(
        tasks,
        [
            {1: "Where should you wait?\n- Which guest first?", 2: "where  should you WAIT?"},
            {1: "1. Where to park the cart?"},
        ],
    )
    (tmp_path / "ls.json").write_text(json.dumps(export))
    assert cli("annotate", "import", tmp_path / "ls.json", "--work", work).exit_code == 0
    res = cli("topics", "--work", work)
    assert res.exit_code == 0, res.output
    pooled = read_jsonl(work / "topics.jsonl")
    assert [(r["scene"], r["topic"], r["proposed_by"]) for r in pooled] == [
        ("restaurant/b00-1", "Where should you wait?", ["1", "2"]),
        ("restaurant/b00-1", "Which guest first?", ["1"]),
        ("restaurant/b00-2", "Where to park the cart?", ["1"]),
    ]


def test_pooled_topics_carry_their_scene_fields(tmp_path):
    scenes = write_scenes(tmp_path, n=1)
    [rec] = pool_topics(scenes, [("restaurant/b00-1", "ann", ["Where should you wait?"])])
    assert (rec["image"], rec["subset"], rec["category"], rec["subcategory"]) == (
        "images/scene1/round0.png",
        "synthetic",
        "Retail, Hospitality & Consumer Services",
        "Restaurant",
    )


def test_topic_id_does_not_depend_on_case_or_spacing():
    assert topic_id("s1", "Where  should you WAIT?") == topic_id("s1", "where should you wait?")


def test_empty_topic_proposal_is_rejected_with_file_and_task(tmp_path):
    scenes = write_scenes(tmp_path, n=1)
    export = _ls_export(topic_proposal_tasks(scenes, ImageRefs(work=tmp_path)), [{1: "  \n "}])
    (tmp_path / "ls.json").write_text(json.dumps(export))
    with pytest.raises(DataError, match="no topic proposed"):
        import_export([tmp_path / "ls.json"])


def test_topics_from_annotators_without_an_import_is_a_usage_error(cli, work):
    write_scenes(work)
    res = cli("topics", "--work", work)
    assert isinstance(res.exception, UsageError) and "annotate export --kind topics" in str(res.exception)


def test_model_proposed_topics_resume_without_new_requests(cli, work, llm_args):
    write_scenes(work)
    with ScriptedOpenAIServer(responder=valid_responder) as srv:
        model = f"openai:scripted@{srv.base_url}"
        args = ["topics", "--source", "model", "--per-scene", "3", *llm_args(srv), "--work", work]
        assert cli(*args).exit_code == 0
        sent = len(srv.requests)
        assert cli(*args).exit_code == 0
        assert len(srv.requests) == sent == 2 + 1  # the 2 scenes' proposals and the images probe
    pooled = read_jsonl(work / "topics.jsonl")
    assert len(pooled) == 6 and {r["proposed_by"][0] for r in pooled} == {f"model:{model}"}


def test_a_model_with_annotator_topics_is_a_usage_error(cli, work, llm_args):
    write_scenes(work)
    with ScriptedOpenAIServer(responder=valid_responder) as srv:
        res = cli("topics", *llm_args(srv), "--work", work)
        assert isinstance(res.exception, UsageError) and len(srv.requests) == 0
