"""The review loop: Table 3 criteria, the mandatory-revision rule, edits, rounds kept, resume."""

import pytest

from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.construction.llm import OutputError
from socialbench.construction.review_criteria import HARD, KEYS, edit_prompt, revision_decision, validate_review


def _matrix(**failed):
    return {k: k not in failed for k in KEYS}


def test_criteria_are_table3_with_two_hard():
    assert KEYS == (
        "scenario_faithfulness",
        "factual_correctness",
        "detail_quality",
        "pov_constraint",
        "no_forbidden_graphics",
        "json_consistency",
        "social_cue_visibility",
    )
    assert HARD == {"factual_correctness", "json_consistency"}


@pytest.mark.parametrize(
    "failed, mandatory",
    [
        ((), False),
        (("factual_correctness",), True),  # a Hard criterion
        (("json_consistency",), True),
        (("detail_quality", "pov_constraint", "no_forbidden_graphics"), False),  # three Soft
        (("detail_quality", "pov_constraint", "no_forbidden_graphics", "social_cue_visibility"), True),  # four failed
    ],
)
def test_mandatory_revision_rule(failed, mandatory):
    got_failed, got = revision_decision(_matrix(**{k: 1 for k in failed}))
    assert got is mandatory and sorted(got_failed) == sorted(failed)


def test_reasons_for_passed_criteria_fail_json_consistency():
    reply = {
        "scenario_summary": "s",
        "matrix": _matrix(detail_quality=1),
        "reasons": {"detail_quality": "too small", "pov_constraint": "fine"},
    }
    v = validate_review(reply)
    assert v["matrix"]["json_consistency"] is False
    assert "reasons given for passed criteria: pov_constraint" in v["consistency_problems"]
    assert revision_decision(v["matrix"])[1] is True


def test_matrix_without_a_criterion_is_malformed():
    m = _matrix()
    del m["pov_constraint"]
    with pytest.raises(OutputError) as e:
        validate_review({"scenario_summary": "s", "matrix": m, "reasons": {}})
    assert e.value.kind == "missing_fields" and "pov_constraint" in e.value.message


def test_edit_prompt_lists_the_fixes():
    v = validate_review(
        {
            "scenario_summary": "s",
            "matrix": _matrix(factual_correctness=1),
            "reasons": {"factual_correctness": "six fingers"},
        }
    )
    text = edit_prompt("A lobby.", v, True)
    assert (
        "must be corrected" in text
        and "- factual_correctness: six fingers" in text
        and "Intended image: A lobby." in text
    )


def _setup(cli, work, images_server, titles):
    write_jsonl(
        work / "image_prompts.jsonl",
        [
            {"id": f"restaurant/b00-{i}", "image_prompt": f"Prompt {t}", "scenario": {"title": t, "description": "d"}}
            for i, t in enumerate(titles, start=1)
        ],
    )
    res = cli("images", "--work", work, "--image-model", f"img@{images_server.base_url}", "--size", "40x30")
    assert res.exit_code == 0, res.output


def _review(cli, work, chat_server, images_server, llm_args, *extra):
    return cli(
        "review",
        "--work",
        work,
        *llm_args(chat_server),
        "--image-model",
        f"img@{images_server.base_url}",
        "--retry-delay",
        "0.01",
        *extra,
    )


def test_failed_hard_criterion_is_edited_then_passes(cli, work, chat_server, images_server, llm_args):
    _setup(cli, work, images_server, ["Glass on table"])
    res = _review(cli, work, chat_server, images_server, llm_args)
    assert res.exit_code == 0, res.output
    (rec,) = read_jsonl(work / "review.jsonl")
    assert rec["status"] == "passed" and rec["final_round"] == 1
    assert rec["original"].endswith("round0.png") and rec["final"].endswith("round1.png")
    r0, r1 = rec["rounds"]
    assert r0["review"]["mandatory"] and r0["review"]["failed"] == ["factual_correctness"]
    assert "six fingers" in r0["edit_prompt"] and r1["review"]["failed"] == []
    (edit,) = [q for q in images_server.requests if q["endpoint"] == "edits"]
    assert "six fingers" in edit["prompt"]
    assert (work / rec["final"]).is_file() and (work / rec["original"]).is_file()


def test_loop_stops_after_max_rounds_and_keeps_every_round(cli, work, chat_server, images_server, llm_args):
    _setup(cli, work, images_server, ["Stubborn artifact"])
    assert _review(cli, work, chat_server, images_server, llm_args, "--max-rounds", "2").exit_code == 0
    (rec,) = read_jsonl(work / "review.jsonl")
    assert rec["status"] == "rejected" and [r["round"] for r in rec["rounds"]] == [0, 1, 2]
    assert sum(q["endpoint"] == "edits" for q in images_server.requests) == 2
    steps = read_jsonl(work / "review_steps.jsonl")
    assert [s["kind"] for s in steps] == ["review", "edit", "review", "edit", "review"]


def test_soft_failures_alone_are_not_edited_by_default(cli, work, chat_server, images_server, llm_args):
    _setup(cli, work, images_server, ["Soft focus"])
    assert _review(cli, work, chat_server, images_server, llm_args).exit_code == 0
    (rec,) = read_jsonl(work / "review.jsonl")
    assert rec["status"] == "passed_soft" and len(rec["rounds"]) == 1
    assert not any(q["endpoint"] == "edits" for q in images_server.requests)


def test_resume_continues_inside_an_images_loop(cli, work, chat_server, images_server, llm_args):
    _setup(cli, work, images_server, ["Glass on table"])
    assert _review(cli, work, chat_server, images_server, llm_args).exit_code == 0
    steps = read_jsonl(work / "review_steps.jsonl")
    write_jsonl(work / "review_steps.jsonl", steps[:2])  # killed after the edit, before the second review
    (work / "review.jsonl").unlink()
    chat_before, img_before = chat_server.count, images_server.count
    assert _review(cli, work, chat_server, images_server, llm_args).exit_code == 0
    # only the round-1 review, and the images probe its answer starts (models/openai_images_check.py)
    assert chat_server.count - chat_before == 1 + 1 and images_server.count == img_before
    (rec,) = read_jsonl(work / "review.jsonl")
    assert rec["status"] == "passed" and rec["final_round"] == 1
