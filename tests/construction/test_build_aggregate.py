"""Majority vote, escalation, annotator accuracy and the image-necessity filter."""

import json

import pytest

from socialbench.construction.aggregate import aggregate_judgment
from socialbench.construction.aggregate_grounding import aggregate_grounding
from socialbench.construction.aggregate_verification import aggregate_verification
from socialbench.construction.image_necessity import image_necessity, load_text_only_predictions
from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.construction.voting import annotator_accuracy, plurality
from socialbench.errors import DataError


def test_plurality_escalates_three_way_split():
    assert plurality(["proper", "improper", "invalid"])[0] is None
    winner, counts, conf = plurality(["proper", "improper", "proper"])
    assert winner == "proper" and conf == pytest.approx(2 / 3)


def _rows(votes):
    return [
        {"item_id": item, "k": k, "annotator": f"a{i}", "label": lab, "facets": fac}
        for (item, k), labs in votes.items()
        for i, (lab, fac) in enumerate(labs)
    ]


BEHAVIORS = [
    {
        "id": "s1",
        "image": "a.png",
        "question": "q",
        "subset": "synthetic",
        "category": "C",
        "subcategory": "S",
        "behaviors": [
            {"k": 1, "text": "Wave", "facets": ["politeness"]},
            {"k": 2, "text": "Shove", "facets": ["safety"]},
            {"k": 3, "text": "Fly", "facets": []},
            {"k": 4, "text": "Odd", "facets": []},
            {"k": 5, "text": "Rare", "facets": []},
        ],
    }
]
VOTES = {
    ("s1", 1): [("proper", ["politeness", "cooperation"]), ("proper", ["cooperation"]), ("improper", [])],
    ("s1", 2): [("improper", []), ("improper", []), ("improper", [])],
    ("s1", 3): [("invalid", []), ("invalid", []), ("proper", [])],
    ("s1", 4): [("proper", []), ("improper", []), ("invalid", [])],
    ("s1", 5): [("proper", []), ("proper", [])],
}


def test_judgment_majority_invalid_escalation_and_insufficient():
    res = aggregate_judgment(BEHAVIORS, _rows(VOTES))
    (scene,) = res.scenes
    b = {x["k"]: x for x in scene["behaviors"]}
    assert set(b) == {1, 2}
    assert (
        b[1]["label"] == "proper"
        and b[1]["votes"] == ["proper", "proper", "improper"]
        and b[1]["confidence"] == pytest.approx(0.6667, abs=1e-4)
    )
    assert b[1]["facets"] == ["cooperation"]  # chosen by 2 of 3 annotators
    assert b[2]["facets"] == ["safety"]  # nobody chose facets: the suggestion stays
    assert {r["id"]: r["reason"] for r in res.removed} == {"s1#b3": "invalid", "s1#b5": "insufficient_annotators"}
    assert [e["id"] for e in res.escalations] == ["s1#b4"]


def test_facets_without_a_majority_fall_back_to_the_behavior_stage_suggestion():
    behaviors = [{**BEHAVIORS[0], "behaviors": [{"k": 1, "text": "Wave", "facets": ["politeness"]}]}]
    votes = {("s1", 1): [("proper", ["safety"]), ("proper", ["privacy"]), ("proper", ["proxemics"])]}
    (scene,) = aggregate_judgment(behaviors, _rows(votes)).scenes
    assert scene["behaviors"][0]["facets"] == ["politeness"]


def test_expert_resolution_settles_an_escalation():
    res = aggregate_judgment(BEHAVIORS, _rows(VOTES), resolutions={("s1", 4): "improper"})
    b = {x["k"]: x for x in res.scenes[0]["behaviors"]}
    assert b[4]["label"] == "improper" and b[4]["resolved_by_expert"] and not res.escalations


def test_an_invalid_vote_stays_among_the_votes_written():
    res = aggregate_judgment(BEHAVIORS, _rows(VOTES), resolutions={("s1", 4): "improper"})
    b = {x["k"]: x for x in res.scenes[0]["behaviors"]}
    assert b[4]["votes"] == ["proper", "improper", "invalid"] and b[4]["n_invalid"] == 1


def test_annotator_accuracy_against_consensus():
    res = aggregate_judgment(BEHAVIORS, _rows(VOTES))
    acc = {a["annotator"]: (a["correct"], a["n"]) for a in res.annotators}
    # consensus units: b1 proper, b2 improper, b3 invalid (b4 escalated, b5 insufficient)
    assert acc == {"a0": (3, 3), "a1": (3, 3), "a2": (1, 3)}
    assert res.annotators[-1]["annotator"] == "a2"


def test_gold_labels_override_consensus_for_accuracy():
    table = annotator_accuracy([("u1", "x", "proper"), ("u1", "y", "improper")], {"u1": "proper"}, {"u1": "improper"})
    assert [(t["annotator"], t["accuracy"]) for t in table] == [("y", 1.0), ("x", 0.0)]


def test_grounding_majority_answer_invalid_and_escalation():
    items = [{"id": q, "image": "g.png", "question": "?"} for q in ("g1", "g2", "g3")]
    rows = [
        {"item_id": "g1", "annotator": "a", "selection": ["A", "C"], "invalid": False},
        {"item_id": "g1", "annotator": "b", "selection": ["A"], "invalid": False},
        {"item_id": "g1", "annotator": "c", "selection": ["A", "C"], "invalid": False},
        {"item_id": "g2", "annotator": "a", "selection": [], "invalid": True},
        {"item_id": "g2", "annotator": "b", "selection": ["B"], "invalid": True},
        {"item_id": "g2", "annotator": "c", "selection": ["B"], "invalid": False},
        {"item_id": "g3", "annotator": "a", "selection": ["A"], "invalid": False},
        {"item_id": "g3", "annotator": "b", "selection": ["B"], "invalid": False},
        {"item_id": "g3", "annotator": "c", "selection": ["C"], "invalid": False},
    ]
    res = aggregate_grounding(items, rows)
    (q,) = res.questions
    assert (
        q["answer"] == ["A", "C"]
        and q["votes"] == [["A", "C"], ["A"], ["A", "C"]]
        and q["confidence"] == pytest.approx(0.6667, abs=1e-4)
    )
    assert res.removed == [{"id": "g2", "reason": "invalid", "invalid_votes": 2, "n_annotators": 3}]
    assert [e["id"] for e in res.escalations] == ["g3"]


def test_image_necessity_drops_what_text_only_runs_get_right(tmp_path):
    scenes = [
        {
            "id": "s1",
            "behaviors": [
                {"k": 1, "label": "proper", "text": "a"},
                {"k": 2, "label": "improper", "text": "b"},
                {"k": 3, "label": "proper", "text": "c"},
            ],
        }
    ]
    samples = [
        {"item_id": "s1", "question_key": "b1", "parsed": "proper"},
        {"item_id": "s1", "question_key": "b2", "parsed": "proper"},
        {"item_id": "s1", "question_key": "b3", "parsed": None},
    ]
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    runs = load_text_only_predictions([tmp_path / "run"])
    kept, dropped = image_necessity(scenes, runs)
    assert [b["k"] for b in kept[0]["behaviors"]] == [2, 3]
    assert dropped == [
        {
            "id": "s1#b1",
            "reason": "image_necessity",
            "label": "proper",
            "text_only_correct": 1.0,
            "runs": 1,
            "text": "a",
        }
    ]


def test_image_necessity_with_several_runs_needs_the_share():
    scenes = [{"id": "s", "behaviors": [{"k": 1, "label": "proper", "text": "a"}]}]
    runs = [{("s", 1): "proper"}, {("s", 1): "improper"}]
    assert image_necessity(scenes, runs, min_correct=1.0)[1] == []
    kept, dropped = image_necessity(scenes, runs, min_correct=0.5)
    assert kept == [] and [d["reason"] for d in dropped] == ["image_necessity", "scene_without_behaviors"]


def test_verification_picks_the_majority_image_and_lists_neither_for_revision():
    reviews = [
        {"id": v, "original": f"{v}/round0.png", "final": f"{v}/round1.png", "status": "passed", "scenario": {}}
        for v in ("v1", "v2", "v3")
    ]
    reviews.append(
        {"id": "v4", "original": "v4/round0.png", "final": "v4/round0.png", "status": "passed", "scenario": {}}
    )
    votes = {
        "v1": ["edited", "edited", "original"],
        "v2": ["neither", "neither", "edited"],
        "v3": ["original", "edited", "neither"],
    }
    rows = [
        {"item_id": v, "annotator": f"a{i}", "choice": c, "instructions": "remove the poster" if c == "neither" else ""}
        for v, cs in votes.items()
        for i, c in enumerate(cs)
    ]
    res = aggregate_verification(reviews, rows)
    assert [(c["id"], c["image"]) for c in res["chosen"]] == [("v1", "v1/round1.png"), ("v4", "v4/round0.png")]
    assert [(r["id"], r["instructions"]) for r in res["revise"]] == [("v2", ["remove the poster", "remove the poster"])]
    assert [e["id"] for e in res["escalations"]] == ["v3"]


def _edited(*ids):
    return [
        {"id": v, "original": f"{v}/round0.png", "final": f"{v}/round1.png", "status": "passed", "scenario": {}}
        for v in ids
    ]


def _choices(votes):
    return [
        {"item_id": v, "annotator": f"a{i}", "choice": c, "instructions": ""}
        for v, cs in votes.items()
        for i, c in enumerate(cs)
    ]


def test_verification_lists_an_edited_image_nobody_annotated():
    res = aggregate_verification(_edited("v1", "v2"), _choices({"v1": ["edited"] * 3}))
    assert [c["id"] for c in res["chosen"]] == ["v1"]
    assert [(u["id"], u["reason"], u["n_annotators"]) for u in res["unannotated"]] == [("v2", "unannotated", 0)]


def test_verification_lists_an_image_with_too_few_annotators():
    res = aggregate_verification(_edited("v1"), _choices({"v1": ["edited", "edited"]}), min_annotators=3)
    assert res["chosen"] == [] and res["revise"] == [] and res["escalations"] == []
    (u,) = res["unannotated"]
    assert (u["id"], u["reason"], u["n_annotators"], u["needed"]) == ("v1", "insufficient_annotators", 2, 3)


# --------------------------------------------------------------------------- resolutions in aggregation


@pytest.mark.parametrize("decision", ["improper", "a", [], ["A", "X"]])
def test_grounding_aggregation_refuses_a_resolution_that_is_not_an_answer(decision):
    items = [{"id": "g1", "image": "x.png", "question": "q"}]
    rows = [
        {"item_id": "g1", "annotator": a, "selection": [s], "invalid": False} for a, s in (("u1", "A"), ("u2", "B"))
    ]
    with pytest.raises(ValueError):
        aggregate_grounding(items, rows, resolutions={"g1": decision})


def test_judgment_aggregation_refuses_an_unknown_resolution():
    with pytest.raises(ValueError):
        aggregate_judgment(BEHAVIORS, _rows(VOTES), resolutions={("s1", 4): "maybe"})


# --------------------------------------------------------------------------- the aggregate command


def _resolution_file(tmp_path, *lines):
    path = tmp_path / "resolutions.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def _verification_work(work, votes):
    write_jsonl(work / "review.jsonl", _edited("v1", "v2", "v3"))
    write_jsonl(
        work / "annotation" / "verification" / "annotations.jsonl",
        [{**r, "id": f"{r['item_id']}@{r['annotator']}"} for r in _choices(votes)],
    )


def test_cli_aggregate_lists_unannotated_verification_and_uses_min_annotators(cli, work):
    _verification_work(work, {"v1": ["edited", "edited"], "v2": ["edited"]})
    res = cli("aggregate", "--work", work, "--min-annotators", "2")
    assert res.exit_code == 0, res.output
    assert [c["id"] for c in read_jsonl(work / "aggregated" / "verification.jsonl")] == ["v1"]
    left = read_jsonl(work / "aggregated" / "verification.unannotated.jsonl")
    assert [(u["id"], u["reason"]) for u in left] == [("v2", "insufficient_annotators"), ("v3", "unannotated")]
    summary = json.loads((work / "summaries" / "aggregate.json").read_text())
    assert summary["removed"] == {"verification_insufficient_annotators": 1, "verification_unannotated": 1}


def test_cli_aggregate_rejects_a_resolution_for_an_unknown_question(cli, work):
    _verification_work(work, {"v1": ["edited"] * 3})
    path = _resolution_file(work, {"item_id": "g1", "answer": ["A"]})
    res = cli("aggregate", "--work", work, "--resolutions", path)
    assert isinstance(res.exception, DataError)
    assert "resolutions.jsonl:1" in str(res.exception) and "'g1' is not among" in str(res.exception)
    assert not (work / "aggregated" / "verification.jsonl").exists()


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"item_id": ["s1"], "question_key": "b1", "parsed": "proper"}, "item_id"),
        ({"item_id": "s1", "question_key": 1, "parsed": "proper"}, "question_key"),
    ],
)
def test_a_text_only_run_record_of_the_wrong_type_is_one_line(tmp_path, row, field):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "samples.jsonl").write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(DataError) as e:
        load_text_only_predictions([tmp_path / "run"])
    assert len(e.value.problems) == 1 and e.value.problems[0].field == field and e.value.problems[0].line == 1


@pytest.mark.parametrize(("row", "field"), [({"item_id": "s1", "k": "one"}, "k"), ({"k": 1}, "item_id")])
def test_a_text_only_label_row_of_the_wrong_type_is_one_line(tmp_path, row, field):
    (tmp_path / "labels.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(DataError) as e:
        load_text_only_predictions([tmp_path / "labels.jsonl"])
    assert e.value.problems[0].field == field


def test_a_missing_text_only_run_is_an_error(tmp_path):
    (tmp_path / "run").mkdir()
    with pytest.raises(DataError, match="file not found"):
        load_text_only_predictions([tmp_path / "run"])


def test_a_text_only_run_whose_samples_are_a_fifo_is_refused_without_blocking(tmp_path):
    import os

    (tmp_path / "run").mkdir()
    os.mkfifo(tmp_path / "run" / "samples.jsonl")
    with pytest.raises(DataError, match="not a regular file"):
        load_text_only_predictions([tmp_path / "run"])
