"""``--method cot-gt`` and its §7.9 follow-up ``--gt-without-obstruction``: which spatial and
spatiotemporal answers are the human mode fed forward, and which are the model's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.benchmarks.socialnav_sub.options import OBSTRUCTION_QUESTION, SocialNavOptions
from socialbench.errors import UsageError
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, run_eval
from socialbench.types import Request

FAST = RetryPolicy(max_attempts=2, base_delay_s=0.001, timeout_s=5)


def not_the_mode(request: Request) -> str:
    """Person Goal Obstruction: an option no human chose most; every other question: the
    first option."""
    q = request.question
    if q.base_key == OBSTRUCTION_QUESTION:
        mode = request.item.votes[q.key].mode(q.choices)
        return json.dumps({"answer": next(o for o in q.options if o != mode)})
    return first_option_answer(request.prompt)


def run(data: Path, out: Path, **options: object) -> tuple[MockModel, list[dict]]:
    model = MockModel("mock:not-the-mode", not_the_mode)
    req = RunRequest(
        "socialnav-sub",
        data,
        "mock",
        out,
        EvalOptions(limit=1, **options),
        concurrency=4,
        retry=FAST,
        show_progress=False,
    )
    assert run_eval(req, SocialNavSub(), model).complete
    records = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()]
    return model, records


def earlier_answer(prompt: str, question_text: str) -> str:
    """The answer the CoT block of ``prompt`` gives for the earlier question ``question_text``."""
    after = prompt.split(question_text, 1)[1]
    return json.loads(after[after.index("{") : after.index("}") + 1])["answer"]


@pytest.fixture(scope="module")
def item(small_socialnav: Path):
    return load_socialnav(small_socialnav, require_images=False, limit=1).items[0]


def test_cot_gt_feeds_the_obstruction_human_mode_forward(small_socialnav, tmp_path, item) -> None:
    model, _ = run(small_socialnav, tmp_path / "run", method="cot-gt")
    affected = next(r for r in model.calls if r.question.base_key == "q_robot_affected")
    obstruction = next(
        q for q in item.questions if q.key in affected.question.depends_on and q.base_key == OBSTRUCTION_QUESTION
    )
    mode = item.votes[obstruction.key].mode(obstruction.choices)
    assert earlier_answer(affected.prompt, obstruction.text) == mode


def test_without_obstruction_the_model_answers_it_and_its_answer_is_fed_forward(
    small_socialnav, tmp_path, item
) -> None:
    model, records = run(small_socialnav, tmp_path / "run", method="cot-gt", gt_without_obstruction=True)
    by_key = {r["question_key"]: r for r in records}
    affected = next(r for r in model.calls if r.question.base_key == "q_robot_affected")
    obstruction = next(
        q for q in item.questions if q.key in affected.question.depends_on and q.base_key == OBSTRUCTION_QUESTION
    )
    mode = item.votes[obstruction.key].mode(obstruction.choices)
    fed = earlier_answer(affected.prompt, obstruction.text)
    assert fed != mode and fed == by_key[obstruction.key]["parsed"]
    assert by_key[obstruction.key]["parse_method"] != "human-mode"


def test_without_obstruction_every_other_spatial_answer_is_the_human_mode(small_socialnav, tmp_path, item) -> None:
    model, records = run(small_socialnav, tmp_path / "run", method="cot-gt", gt_without_obstruction=True)
    asked = {r.question.base_key for r in model.calls if r.question.category != "Social reasoning"}
    assert asked == {OBSTRUCTION_QUESTION}
    given = {r["question_key"] for r in records if r["parse_method"] == "human-mode"}
    spatial = {q.key for q in item.questions if q.category != "Social reasoning" and q.base_key != OBSTRUCTION_QUESTION}
    assert given == spatial
    assert any(item.question(k).base_key == "q_obstructing_end_position" for k in given)


def test_without_obstruction_the_other_fed_answers_are_still_the_human_mode(small_socialnav, tmp_path, item) -> None:
    model, _ = run(small_socialnav, tmp_path / "run", method="cot-gt", gt_without_obstruction=True)
    affected = next(r for r in model.calls if r.question.base_key == "q_robot_affected")
    begin = next(
        q
        for q in item.questions
        if q.key in affected.question.depends_on and q.base_key == "q_person_spatial_position_begin"
    )
    assert earlier_answer(affected.prompt, begin.text) == item.votes[begin.key].mode(begin.choices)


def test_the_option_is_recorded_in_run_json_and_the_variant(small_socialnav, tmp_path) -> None:
    run(small_socialnav, tmp_path / "run", method="cot-gt", gt_without_obstruction=True)
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["gt_without_obstruction"] is True
    assert record["variant"] == "cot-gt-no-obstruction-img-with-bev"


def test_the_option_counts_the_obstruction_requests(small_socialnav, item) -> None:
    bench = SocialNavSub()
    ds = load_socialnav(small_socialnav, require_images=False, limit=1)
    plain = bench.estimate_requests(ds, SocialNavOptions(method="cot-gt"), model_reads_prompt=True)
    without = bench.estimate_requests(
        ds, SocialNavOptions(method="cot-gt", gt_without_obstruction=True), model_reads_prompt=True
    )
    assert without - plain == sum(1 for q in item.questions if q.base_key == OBSTRUCTION_QUESTION) > 0


def test_the_option_needs_cot_gt() -> None:
    with pytest.raises(UsageError, match="--gt-without-obstruction is an option of --method cot-gt"):
        SocialNavSub().check_options(EvalOptions(method="cot", gt_without_obstruction=True))
