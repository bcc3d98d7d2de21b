"""Scene context for the waypoint prompt: random, human oracle, and the Same-Model run
(``model:RUN_DIR``), refused unless it is the same model's finished SocialNav-SUB run on the
same data."""

from __future__ import annotations

import json

import pytest

from socialbench.benchmarks.socialnav_waypoint.context import (
    check_context,
    check_same_model,
    context_answers,
    context_block,
    read_context_run,
)
from socialbench.errors import UsageError
from socialbench.types import HumanVotes, Item, Question

OBST = Question(
    "q_obstructing_end_position_p1",
    "q_obstructing_end_position",
    "Spatial reasoning",
    "single",
    "At the end frame, is person 1's position in the way of the robot's path to the goal?",
    ("yes", "no"),
    person=1,
)
ACT = Question(
    "q_robot_suggested_action_p1",
    "q_robot_suggested_action",
    "Social reasoning",
    "single",
    "In the future (after the end of the video), the robot should ____ person 1 as it makes progress towards the goal.",
    ("avoid", "overtake", "not consider", "follow", "yield to"),
    person=1,
)
OTHER = Question("q_robot_affected_p1", "q_robot_affected", "Social reasoning", "single", "?", ("yes", "no"), person=1)
ITEM = Item(
    "s1",
    (OBST, ACT, OTHER),
    {
        OBST.key: HumanVotes(("no", "yes"), (0.25, 0.75), 4),
        ACT.key: HumanVotes(("avoid",), (1.0,), 4),
        OTHER.key: HumanVotes(("no",), (1.0,), 4),
    },
)


def test_human_oracle_gives_the_modes_of_the_two_questions():
    assert [(q.key, a) for q, a in context_answers(ITEM, "human-oracle")] == [(OBST.key, "yes"), (ACT.key, "avoid")]


def test_random_answers_are_valid_and_seeded():
    a = context_answers(ITEM, "random", seed=3)
    assert all(ans in q.options for q, ans in a) and a == context_answers(ITEM, "random", seed=3)


def test_the_block_reads_as_sentences():
    block = context_block(context_answers(ITEM, "human-oracle"))
    assert block.splitlines()[1:] == [
        "- At the end frame, is person 1's position in the way of the robot's path to the goal? yes",
        "- In the future (after the end of the video), the robot should avoid person 1 as it makes progress towards the goal.",
    ]


@pytest.mark.parametrize("bad", ["oracle", "model:", "model"])
def test_unknown_sources_are_refused(bad):
    with pytest.raises(UsageError, match="--context"):
        check_context(bad)


# --------------------------------------------------------------------------- Same-Model runs

MODEL = "openai:m@http://h"
IDENTITY = "openai|m|http://h"
FINGERPRINT = "f" * 64
RUN = {
    "benchmark": "socialnav-sim",
    "model": MODEL,
    "model_identity": IDENTITY,
    "dataset_fingerprint": FINGERPRINT,
    "method": "independent",
    "images": "img-with-bev",
    "perturb": None,
    "status": "complete",
}


def _record(key: str, parsed: str | None, error: str | None = None) -> dict:
    return {
        "item_id": "s1",
        "question_key": key,
        "raw": json.dumps({"answer": parsed}),
        "parsed": parsed,
        "parse_method": "json" if parsed is not None else None,
        "error": error,
        "latency_s": 0.0,
        "usage": {},
    }


def context_run(tmp_path, answers=(("no", None), ("yield to", None)), **run_json):
    """A SocialNav-SUB run folder answering ITEM's two context questions (``answers``: (parsed,
    error) for OBST and ACT; None leaves the question out) with run.json RUN updated by
    ``run_json``; returns its ``--context`` value."""
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps({**RUN, **run_json}))
    lines = [_record(q.key, *a) for q, a in zip((OBST, ACT), answers, strict=True) if a is not None]
    lines.append(_record(OTHER.key, "yes"))
    (folder / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    return f"model:{folder}"


def same_model(value: str, **this_run):
    """:func:`check_same_model` of ``value`` for a run of MODEL on FINGERPRINT, clean, unless
    ``this_run`` says otherwise."""
    facts = {"model": MODEL, "model_identity": IDENTITY, "perturb": None, "data_fingerprint": FINGERPRINT}
    return check_same_model(read_context_run(value), items=[ITEM], **{**facts, **this_run})


def test_the_same_models_run_supplies_its_answers(tmp_path):
    answers = same_model(context_run(tmp_path))
    pairs = context_answers(ITEM, "model:x", model_answers=answers)
    assert [(q.key, a) for q, a in pairs] == [(OBST.key, "no"), (ACT.key, "yield to")]


def test_the_accepted_run_is_described_without_its_path(tmp_path):
    desc = read_context_run(context_run(tmp_path)).describe()
    assert desc["kind"] == "same-model" and desc["model"] == MODEL and str(tmp_path) not in json.dumps(desc)


def test_another_models_run_is_refused(tmp_path):
    with pytest.raises(UsageError, match=r"holds the answers of openai:m@http://h, not of this run's model other"):
        same_model(context_run(tmp_path), model="other", model_identity="openai|other|http://h")


def test_a_run_without_model_identity_is_compared_by_spec(tmp_path):
    value = context_run(tmp_path, model_identity=None)
    with pytest.raises(UsageError, match="not of this run's model other"):
        same_model(value, model="other")


def test_a_run_on_other_data_is_refused(tmp_path):
    with pytest.raises(UsageError, match="was made on other data"):
        same_model(context_run(tmp_path), data_fingerprint="0" * 64)


def test_a_run_of_another_benchmark_is_refused(tmp_path):
    with pytest.raises(UsageError, match="is a roboteq-bj run, not SocialNav-SUB"):
        read_context_run(context_run(tmp_path, benchmark="roboteq-bj"))


def test_a_waypoint_run_is_refused(tmp_path):
    with pytest.raises(UsageError, match="is a socialnav-waypoint run"):
        read_context_run(context_run(tmp_path, benchmark="socialnav-waypoint"))


@pytest.mark.parametrize("status", ["running", "interrupted", "finished_with_errors"])
def test_a_killed_or_unfinished_run_is_refused(tmp_path, status):
    with pytest.raises(UsageError, match=f"did not finish \\(run.json status '{status}'"):
        read_context_run(context_run(tmp_path, status=status))


@pytest.mark.parametrize("method", ["cot-gt", "scene-context"])
def test_a_run_whose_answers_are_not_the_models_is_refused(tmp_path, method):
    with pytest.raises(UsageError, match=f"is a --method {method} run"):
        read_context_run(context_run(tmp_path, method=method))


def test_a_run_with_another_perturbation_is_refused(tmp_path):
    value = context_run(tmp_path, perturb={"name": "blur", "strength": 1.0})
    with pytest.raises(UsageError, match="was made with perturbation"):
        same_model(value)


def test_an_epochs_parent_folder_is_refused_naming_an_epoch(tmp_path):
    with pytest.raises(UsageError, match="give one of its epoch folders, e.g. model:.*epoch-1"):
        read_context_run(context_run(tmp_path, epoch_dirs=["epoch-1", "epoch-2"]))


def test_a_missing_context_answer_is_refused(tmp_path):
    with pytest.raises(UsageError, match="lacks the model's answer to 1 of the 2 context questions"):
        same_model(context_run(tmp_path, answers=(("no", None), None)))


def test_an_invalid_context_answer_is_refused(tmp_path):
    with pytest.raises(UsageError, match="q_robot_suggested_action_p1: no valid answer"):
        same_model(context_run(tmp_path, answers=(("no", None), (None, None))))


def test_a_failed_context_answer_is_refused(tmp_path):
    with pytest.raises(UsageError, match="q_obstructing_end_position_p1: timeout"):
        same_model(context_run(tmp_path, answers=((None, "timeout"), ("avoid", None))))


def test_a_samples_file_is_refused_for_want_of_run_json(tmp_path):
    value = context_run(tmp_path)
    with pytest.raises(UsageError, match="is a file, not a run folder"):
        read_context_run(value + "/samples.jsonl")


def test_a_folder_without_run_json_is_refused(tmp_path):
    value = context_run(tmp_path)
    (tmp_path / "sub" / "run.json").unlink()
    with pytest.raises(UsageError, match="has no run.json"):
        read_context_run(value)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{", "has an unreadable run.json"),
        ("[1]", "not a JSON object"),
        (json.dumps({**RUN, "model": 3}), "has no usable 'model' in run.json"),
        (json.dumps({**RUN, "dataset_fingerprint": None}), "has no usable 'dataset_fingerprint'"),
        (json.dumps({**RUN, "model_identity": ["x"]}), "model_identity that is not text"),
        (json.dumps({**RUN, "benchmark": {"a": 1}}), "has no usable 'benchmark'"),
    ],
)
def test_a_run_json_of_the_wrong_form_is_refused_in_one_line(tmp_path, text, reason):
    value = context_run(tmp_path)
    (tmp_path / "sub" / "run.json").write_text(text)
    with pytest.raises(UsageError, match=reason) as info:
        read_context_run(value)
    assert "\n" not in str(info.value)


def test_unreadable_samples_are_refused_in_one_line(tmp_path):
    value = context_run(tmp_path)
    (tmp_path / "sub" / "samples.jsonl").write_text("not json\n")
    with pytest.raises(UsageError, match="has an unreadable samples.jsonl") as info:
        read_context_run(value)
    assert "\n" not in str(info.value)


def test_model_context_answers_need_the_checked_answers():
    with pytest.raises(ValueError, match="check_same_model"):
        context_answers(ITEM, "model:x", model_answers={})
