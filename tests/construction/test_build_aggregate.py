"""Majority vote, escalation, agreement statistics and the image-necessity filter."""

import json
import math

import pytest

from socialbench.construction.aggregate import (
    aggregate_grounding,
    read_resolutions,
    aggregate_verification,
    aggregate_judgment,
    annotator_accuracy,
    fleiss_kappa,
    image_necessity,
    krippendorff_alpha_nominal,
    load_text_only_predictions,
    plurality,
)
from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.errors import DataError

# Fleiss (1971) as worked on Wikipedia: 10 subjects, 14 raters, 5 categories; kappa = 0.210.
FLEISS_TABLE = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
                [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]


def test_fleiss_kappa_textbook_example():
    assert fleiss_kappa(FLEISS_TABLE) == pytest.approx(0.20993, abs=1e-5)


def test_fleiss_kappa_by_hand_small_case():
    # 2 items, 3 raters: [2 yes, 1 no], [3 yes]. P_i = 1/3, 1; P_bar = 2/3; p = 5/6, 1/6;
    # P_e = 26/36; kappa = (2/3 - 26/36) / (1 - 26/36) = -0.2
    assert fleiss_kappa([[2, 1], [3, 0]]) == pytest.approx(-0.2)


def test_krippendorff_alpha_textbook_example():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders, 12 units,
    # missing values; nominal alpha = 0.743.
    n = None
    coders = [[1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
              [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n], [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n]]
    assert krippendorff_alpha_nominal(list(zip(*coders))) == pytest.approx(0.743, abs=5e-4)


def test_krippendorff_alpha_by_hand_small_case():
    # units (a, a), (a, b): o_aa = 2, o_ab = o_ba = 1, n_a = 3, n_b = 1, n = 4;
    # alpha = 1 - (n - 1) * 2 / (2 * 3 * 1) = 0
    assert krippendorff_alpha_nominal([("a", "a"), ("a", "b")]) == pytest.approx(0.0)


def test_perfect_agreement_on_one_category_is_undefined():
    assert math.isnan(fleiss_kappa([[3, 0], [3, 0]]))


def test_plurality_escalates_three_way_split():
    assert plurality(["proper", "improper", "invalid"])[0] is None
    winner, counts, conf = plurality(["proper", "improper", "proper"])
    assert winner == "proper" and conf == pytest.approx(2 / 3)


def _rows(votes):
    return [{"item_id": item, "k": k, "annotator": f"a{i}", "label": lab, "facets": fac}
            for (item, k), labs in votes.items() for i, (lab, fac) in enumerate(labs)]


BEHAVIORS = [{"id": "s1", "image": "a.png", "question": "q", "subset": "synthetic", "category": "C", "subcategory": "S",
              "behaviors": [{"k": 1, "text": "Wave", "facets": ["politeness"]}, {"k": 2, "text": "Shove", "facets": ["safety"]},
                            {"k": 3, "text": "Fly", "facets": []}, {"k": 4, "text": "Odd", "facets": []},
                            {"k": 5, "text": "Rare", "facets": []}]}]
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
    assert b[1]["label"] == "proper" and b[1]["votes"] == ["proper", "proper", "improper"] and b[1]["confidence"] == pytest.approx(0.6667, abs=1e-4)
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
    assert q["answer"] == ["A", "C"] and q["votes"] == [["A", "C"], ["A"], ["A", "C"]] and q["confidence"] == pytest.approx(0.6667, abs=1e-4)
    assert res.removed == [{"id": "g2", "reason": "invalid", "invalid_votes": 2, "n_annotators": 3}]
    assert [e["id"] for e in res.escalations] == ["g3"]


def test_image_necessity_drops_what_text_only_runs_get_right(tmp_path):
    scenes = [{"id": "s1", "behaviors": [{"k": 1, "label": "proper", "text": "a"}, {"k": 2, "label": "improper", "text": "b"},
                                         {"k": 3, "label": "proper", "text": "c"}]}]
    samples = [{"item_id": "s1", "question_key": "b1", "parsed": "proper"},
               {"item_id": "s1", "question_key": "b2", "parsed": "proper"},
               {"item_id": "s1", "question_key": "b3", "parsed": None}]
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    runs = load_text_only_predictions([tmp_path / "run"])
    kept, dropped = image_necessity(scenes, runs)
    assert [b["k"] for b in kept[0]["behaviors"]] == [2, 3]
    assert dropped == [{"id": "s1#b1", "reason": "image_necessity", "label": "proper", "text_only_correct": 1.0,
                        "runs": 1, "text": "a"}]


def test_image_necessity_with_several_runs_needs_the_share():
    scenes = [{"id": "s", "behaviors": [{"k": 1, "label": "proper", "text": "a"}]}]
    runs = [{("s", 1): "proper"}, {("s", 1): "improper"}]
    assert image_necessity(scenes, runs, min_correct=1.0)[1] == []
    kept, dropped = image_necessity(scenes, runs, min_correct=0.5)
    assert kept == [] and [d["reason"] for d in dropped] == ["image_necessity", "scene_without_behaviors"]


def test_verification_picks_the_majority_image_and_lists_neither_for_revision():
    reviews = [{"id": v, "original": f"{v}/round0.png", "final": f"{v}/round1.png", "status": "passed", "scenario": {}}
               for v in ("v1", "v2", "v3")]
    reviews.append({"id": "v4", "original": "v4/round0.png", "final": "v4/round0.png", "status": "passed", "scenario": {}})
    votes = {"v1": ["edited", "edited", "original"], "v2": ["neither", "neither", "edited"], "v3": ["original", "edited", "neither"]}
    rows = [{"item_id": v, "annotator": f"a{i}", "choice": c, "instructions": "remove the poster" if c == "neither" else ""}
            for v, cs in votes.items() for i, c in enumerate(cs)]
    res = aggregate_verification(reviews, rows)
    assert [(c["id"], c["image"]) for c in res["chosen"]] == [("v1", "v1/round1.png"), ("v4", "v4/round0.png")]
    assert [(r["id"], r["instructions"]) for r in res["revise"]] == [("v2", ["remove the poster", "remove the poster"])]
    assert [e["id"] for e in res["escalations"]] == ["v3"]


def _edited(*ids):
    return [{"id": v, "original": f"{v}/round0.png", "final": f"{v}/round1.png", "status": "passed", "scenario": {}}
            for v in ids]


def _choices(votes):
    return [{"item_id": v, "annotator": f"a{i}", "choice": c, "instructions": ""}
            for v, cs in votes.items() for i, c in enumerate(cs)]


def test_verification_lists_an_edited_image_nobody_annotated():
    res = aggregate_verification(_edited("v1", "v2"), _choices({"v1": ["edited"] * 3}))
    assert [c["id"] for c in res["chosen"]] == ["v1"]
    assert [(u["id"], u["reason"], u["n_annotators"]) for u in res["unannotated"]] == [("v2", "unannotated", 0)]


def test_verification_lists_an_image_with_too_few_annotators():
    res = aggregate_verification(_edited("v1"), _choices({"v1": ["edited", "edited"]}), min_annotators=3)
    assert res["chosen"] == [] and res["revise"] == [] and res["escalations"] == []
    (u,) = res["unannotated"]
    assert (u["id"], u["reason"], u["n_annotators"], u["needed"]) == ("v1", "insufficient_annotators", 2, 3)


# --------------------------------------------------------------------------- expert resolutions

KNOWN = {"behaviors": [("s1", 1), ("s1", 4)], "questions": ["g1"]}


def _resolution_file(tmp_path, *lines):
    path = tmp_path / "resolutions.jsonl"
    path.write_text("".join((json.dumps(x) if x is not None else "") + "\n" for x in lines))
    return path


def test_read_resolutions_returns_checked_decisions(tmp_path):
    path = _resolution_file(tmp_path, {"item_id": "s1", "k": 4, "decision": "improper"},
                            {"item_id": "g1", "answer": ["C", "A"]})
    assert read_resolutions(path, **KNOWN) == ({("s1", 4): "improper"}, {"g1": ["A", "C"]})


@pytest.mark.parametrize("line, expected", [
    ({"item_id": "g1", "decision": "improper"}, 'needs "k"'),  # a judgment decision without k
    ({"item_id": "g1", "answer": "a"}, "'a'"),
    ({"item_id": "g1", "answer": []}, "non-empty"),
    ({"item_id": "g1", "answer": ["A", "E"]}, "'E'"),
    ({"item_id": "g1", "answer": ["a"]}, "'a'"),
    ({"item_id": "s1", "k": 1, "decision": "invalid"}, "proper, improper, discard"),
    ({"item_id": "s1", "k": "one", "decision": "proper"}, "not an integer"),
    ({"item_id": "s1", "k": 9, "decision": "proper"}, "s1#b9 is not among"),
    ({"item_id": "g9", "answer": ["A"]}, "'g9' is not among"),
    ({"k": 1, "decision": "proper"}, "no item_id"),
], ids=["judgment-without-k", "lower-case-string", "empty", "unknown-letter", "lower-case-letter",
        "bad-judgment-label", "bad-k", "unknown-behavior", "unknown-question", "no-item"])
def test_read_resolutions_rejects_a_bad_line_naming_file_and_line(tmp_path, line, expected):
    path = _resolution_file(tmp_path, {"item_id": "s1", "k": 1, "decision": "proper"}, None, line)
    with pytest.raises(DataError) as e:
        read_resolutions(path, **KNOWN)
    (problem,) = e.value.problems
    assert problem.file == str(path) and problem.line == 3 and problem.fix
    assert expected in problem.message


def test_read_resolutions_rejects_conflicting_repeats(tmp_path):
    path = _resolution_file(tmp_path, {"item_id": "g1", "answer": ["A"]}, {"item_id": "g1", "answer": "discard"})
    with pytest.raises(DataError) as e:
        read_resolutions(path, **KNOWN)
    assert "already resolved" in str(e.value) and ":2" in str(e.value)


@pytest.mark.parametrize("decision", ["improper", "a", [], ["A", "X"]])
def test_grounding_aggregation_refuses_a_resolution_that_is_not_an_answer(decision):
    items = [{"id": "g1", "image": "x.png", "question": "q"}]
    rows = [{"item_id": "g1", "annotator": a, "selection": [s], "invalid": False} for a, s in (("u1", "A"), ("u2", "B"))]
    with pytest.raises(ValueError):
        aggregate_grounding(items, rows, resolutions={"g1": decision})


def test_judgment_aggregation_refuses_an_unknown_resolution():
    with pytest.raises(ValueError):
        aggregate_judgment(BEHAVIORS, _rows(VOTES), resolutions={("s1", 4): "maybe"})


# --------------------------------------------------------------------------- the aggregate command


def _verification_work(work, votes):
    write_jsonl(work / "review.jsonl", _edited("v1", "v2", "v3"))
    write_jsonl(work / "annotation" / "verification" / "annotations.jsonl",
                [{**r, "id": f"{r['item_id']}@{r['annotator']}"} for r in _choices(votes)])


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
