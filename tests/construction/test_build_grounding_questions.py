"""Stage 1 of the grounding construction: the scaffolding prompt, strict parsing of the
model's reply, and unusable replies kept as failures of their topic (never guessed)."""

import json

import pytest

from build_fixtures import write_scenes
from socialbench.construction.grounding_questions import question_prompt, single_stage_prompt, validate_question
from socialbench.construction.jsonl import read_jsonl
from socialbench.construction.llm import OutputError
from socialbench.construction.stage_output import failures_path
from socialbench.testing.openai_server import ScriptedOpenAIServer
from socialbench.testing.responders import last_user_text, valid_responder


def _reply(**changes):
    """The valid responder's Stage 1 reply with ``changes`` applied (None deletes a field)."""
    body = {"messages": [{"role": "user", "content": question_prompt("Where should you wait?")}]}
    obj = json.loads(valid_responder(body))
    for key, value in changes.items():
        if value is None:
            obj.pop(key)
        else:
            obj[key] = value
    return obj


def test_prompt_asks_for_the_papers_two_outputs():
    prompt = question_prompt("Which guest should you serve first?")
    assert "Proposed topic: Which guest should you serve first?" in prompt
    assert "standardized spatial grounding question title" in prompt and "image editing instruction" in prompt
    assert "At least one annotation must correspond to a correct answer" in prompt
    assert "plausible but suboptimal" in prompt and "multiple-select" in prompt


def test_single_stage_prompt_carries_the_topic():
    assert "Spatial grounding topic: Where should you wait?" in single_stage_prompt("Where should you wait?")


def test_valid_reply_is_normalised():
    got = validate_question(_reply(answer=["c", "A"]))
    assert got["answer"] == ["A", "C"] and [r["label"] for r in got["regions"]] == ["A", "B", "C", "D"]


@pytest.mark.parametrize("field", ["question", "editing_instruction", "options", "regions", "answer"])
def test_reply_without_a_field_is_missing_fields(field):
    with pytest.raises(OutputError) as exc:
        validate_question(_reply(**{field: None}))
    assert exc.value.kind == "missing_fields"


@pytest.mark.parametrize(
    "changes",
    [
        {"editing_instruction": "Overlay boxes A, B and C on the floor."},
        {"answer": ["E"]},
        {"options": {"A": "a", "B": "b", "C": "c"}},
        {"regions": [{"label": x, "shape": "box", "box": [0.1, 0.1, 0.2, 0.2]} for x in "ABC"]},
        {"regions": [{"label": x, "shape": "box", "box": [0.1, 0.1, 1.2, 0.2]} for x in "ABCD"]},
    ],
    ids=["instruction-misses-D", "answer-not-a-letter", "option-D-missing", "region-D-missing", "outside-image"],
)
def test_unusable_reply_is_invalid_output(changes):
    with pytest.raises(OutputError) as exc:
        validate_question(_reply(**changes))
    assert exc.value.kind == "invalid_output"


def _broken_stage_one(body):
    """Stage 1 replies lack region D; everything else is answered validly."""
    if last_user_text(body).startswith("You write spatial grounding questions"):
        obj = json.loads(valid_responder(body))
        obj["regions"] = obj["regions"][:3]
        return json.dumps(obj)
    return valid_responder(body)


def test_bad_replies_are_failures_and_a_rerun_retries_them(cli, work, llm_args):
    write_scenes(work, n=1)
    with ScriptedOpenAIServer(responder=_broken_stage_one) as srv:
        llm = [*llm_args(srv), "--parse-retries", "1"]
        assert cli("topics", "--source", "model", *llm, "--work", work).exit_code == 0
        res = cli("grounding-questions", *llm, "--work", work)
        assert res.exit_code == 2, res.output
        failures = read_jsonl(failures_path(work / "grounding_questions.jsonl"), require_id=False)
        assert {f["kind"] for f in failures} == {"invalid_output"} and len(failures) == 2
        assert not (work / "grounding_questions.jsonl").exists()  # nothing guessed
        srv.responder = valid_responder
        assert cli("grounding-questions", *llm, "--work", work).exit_code == 0
    assert len(read_jsonl(work / "grounding_questions.jsonl")) == 2
