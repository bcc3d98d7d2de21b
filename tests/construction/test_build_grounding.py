"""The grounding construction of App. E end to end against the scripted servers: topics ->
Stage 1 questions -> Stage 2 images (overlay renderer or image-editing model) -> Label
Studio -> aggregate -> an exported dataset whose grounding items carry their scene's
subset and category; the single-stage variant; resuming."""

import json

import pytest
from PIL import Image

from build_fixtures import write_scenes
from socialbench.benchmarks.roboteq.loader import load_roboteq
from socialbench.benchmarks.roboteq.schema import TASK_SG
from socialbench.construction.jsonl import read_jsonl
from socialbench.testing.images_server import ScriptedImagesServer
from socialbench.testing.openai_server import ScriptedOpenAIServer
from socialbench.testing.responders import valid_responder


@pytest.fixture
def valid_server():
    with ScriptedOpenAIServer(responder=valid_responder) as srv:
        yield srv


def _questions(cli, work, llm):
    write_scenes(work)
    for args in (["topics", "--source", "model", *llm], ["grounding-questions", *llm]):
        res = cli(*args, "--work", work)
        assert res.exit_code == 0, (args[0], res.output, res.exception)


def _annotate_all(cli, work, tmp_path, selection):
    """Three annotators select ``selection`` on every grounding task; import and aggregate."""
    assert cli("annotate", "export", "--kind", "grounding", "--work", work).exit_code == 0
    tasks = json.loads((work / "annotation" / "grounding" / "tasks.json").read_text())
    export = [
        {
            "id": i,
            "data": t["data"],
            "annotations": [
                {
                    "id": 10 * i + who,
                    "completed_by": who,
                    "result": [{"from_name": "regions", "type": "choices", "value": {"choices": selection}}],
                }
                for who in (1, 2, 3)
            ],
        }
        for i, t in enumerate(tasks)
    ]
    (tmp_path / "ls.json").write_text(json.dumps(export))
    assert cli("annotate", "import", tmp_path / "ls.json", "--work", work).exit_code == 0
    res = cli("aggregate", "--work", work)
    assert res.exit_code == 0, res.output


def test_two_stage_with_overlays_exports_items_with_their_scene_fields(cli, work, valid_server, llm_args, tmp_path):
    _questions(cli, work, llm_args(valid_server))
    res = cli("grounding-images", "--work", work)
    assert res.exit_code == 0, res.output
    _annotate_all(cli, work, tmp_path, ["A", "C"])
    dest = tmp_path / "dataset"
    res = cli("export", dest, "--work", work)
    assert res.exit_code == 0, res.output
    sg = load_roboteq(dest, TASK_SG, require_images=True)
    assert len(sg.items) == 4
    assert {(i.metadata["subset"], i.metadata["category"]) for i in sg.items} == {
        ("synthetic", "Retail, Hospitality & Consumer Services")
    }
    assert all(i.metadata["answer"] == ["A", "C"] for i in sg.items)


def test_overlay_renderer_draws_the_stage_one_regions(cli, work, valid_server, llm_args):
    _questions(cli, work, llm_args(valid_server))
    assert cli("grounding-images", "--work", work).exit_code == 0
    [item, *_] = read_jsonl(work / "grounding_items.jsonl")
    [question] = [q for q in read_jsonl(work / "grounding_questions.jsonl") if q["id"] == item["id"]]
    assert [r["label"] for r in item["regions"]] == ["A", "B", "C", "D"]
    assert (item["editing_instruction"], item["renderer"]) == (question["editing_instruction"], "overlay")
    with Image.open(work / item["image"]) as drawn, Image.open(work / question["image"]) as source:
        assert drawn.size == source.size and drawn.convert("RGB").tobytes() != source.convert("RGB").tobytes()


def test_image_model_gets_the_editing_instruction(cli, work, valid_server, llm_args):
    _questions(cli, work, llm_args(valid_server))
    with ScriptedImagesServer() as images:
        res = cli("grounding-images", "--image-model", f"img@{images.base_url}", "--work", work)
        assert res.exit_code == 0, res.output
        prompts = sorted(r["prompt"] for r in images.requests)
    questions = read_jsonl(work / "grounding_questions.jsonl")
    assert prompts == sorted(q["editing_instruction"] for q in questions)
    items = read_jsonl(work / "grounding_items.jsonl")
    assert {i["renderer"] for i in items} == {"image-model"} and all((work / i["image"]).is_file() for i in items)


def test_single_stage_sends_the_topic_to_the_image_model(cli, work, valid_server, llm_args):
    write_scenes(work)
    assert cli("topics", "--source", "model", *llm_args(valid_server), "--work", work).exit_code == 0
    with ScriptedImagesServer() as images:
        res = cli("grounding-images", "--single-stage", "--image-model", f"img@{images.base_url}", "--work", work)
        assert res.exit_code == 0, res.output
        prompts = [r["prompt"] for r in images.requests]
    topics = read_jsonl(work / "topics.jsonl")
    items = read_jsonl(work / "grounding_items.single_stage.jsonl")
    assert sorted(i["question"] for i in items) == sorted(t["topic"] for t in topics)
    assert all(i["id"].endswith("-sg-single") for i in items)  # never mixed with two-stage annotations
    assert all(any(t["topic"] in p for p in prompts) for t in topics)
    assert not (work / "grounding_items.jsonl").exists()  # the two-stage output is left alone


def test_single_stage_without_an_image_model_is_refused(cli, work):
    from socialbench.errors import UsageError

    res = cli("grounding-images", "--single-stage", "--work", work)
    assert isinstance(res.exception, UsageError)


def test_rerun_resumes_without_new_requests(cli, work, valid_server, llm_args):
    _questions(cli, work, llm_args(valid_server))
    sent = len(valid_server.requests)
    assert cli("grounding-questions", *llm_args(valid_server), "--work", work).exit_code == 0
    assert len(valid_server.requests) == sent
