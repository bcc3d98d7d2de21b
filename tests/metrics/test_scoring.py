"""Tests for socialbench.metrics.scoring: PA / CWPA aggregated over items per protocol
(reference socialnav-sub-official.md §e "Aggregation")."""

from __future__ import annotations

import random

import pytest

from agreement_builders import entry, question, votes
from socialbench.metrics.agreement import CATEGORIES, INVALID, ScoringEntry, paper_item_scores
from socialbench.metrics.scoring import score_entries

# --------------------------------------------------------------------------- paper protocol


def _three_entries() -> list[ScoringEntry]:
    social1 = question(key="q_robot_affected_p1")
    social2 = question(key="q_robot_affected_p2")
    goal = question(
        ("ahead", "to the left", "to the right"),
        key="q_goal_position_begin",
        base_key="q_goal_position_begin",
        category="Spatial reasoning",
    )
    return [
        entry(social1, votes({"yes": 3, "no": 1}), "yes"),  # PA 0.75
        entry(social2, votes({"yes": 1, "no": 3}), "yes"),  # PA 0.25
        entry(goal, votes({"ahead": 4}), "to the left"),  # PA 0
    ]


def test_aggregation_rows_and_counts() -> None:
    result = score_entries(_three_entries(), "paper")
    assert set(result) == {"model", "human:average", "human:oracle"}
    for block in result.values():
        assert list(block) == [
            "All",
            "Spatial reasoning",
            "Social reasoning",
            "q_robot_affected",
            "q_goal_position_begin",
        ]
        assert {k: row["n"] for k, row in block.items()} == {
            "All": 3,
            "Spatial reasoning": 1,
            "Social reasoning": 2,
            "q_robot_affected": 2,
            "q_goal_position_begin": 1,
        }
        assert set(block["All"]) == {"PA", "CWPA", "PA_se", "CWPA_se", "n"}
    assert CATEGORIES[1] not in result["model"]  # no spatiotemporal item given


def test_aggregation_micro_average() -> None:
    model = score_entries(_three_entries(), "paper")["model"]
    assert model["All"]["PA"] == pytest.approx((0.75 + 0.25 + 0.0) / 3)
    assert model["Social reasoning"]["PA"] == pytest.approx(0.5)
    # Eq. 2 per item: 0.75/0.75, 0.25/0.75, 0
    assert model["All"]["CWPA"] == pytest.approx((1 + 1 / 3 + 0) / 3)


def test_aggregation_se_ddof_per_protocol() -> None:
    # Social PA values [0.75, 0.25]: sample std 0.3536 -> SE 0.25; population std 0.25 -> SE 0.1768
    paper = score_entries(_three_entries(), "paper")["model"]
    official = score_entries(_three_entries(), "official")["model"]
    assert paper["Social reasoning"]["PA_se"] == pytest.approx(0.25)
    assert official["Social reasoning"]["PA_se"] == pytest.approx(0.25 / 2**0.5)
    assert paper["Spatial reasoning"]["PA_se"] == 0.0  # n = 1


def test_aggregation_skips_items_with_one_human() -> None:
    lone = entry(question(key="q_robot_affected_p3"), votes({"no": 1}), "no")
    entries = _three_entries() + [lone]
    assert score_entries(entries, "paper")["model"]["All"]["n"] == 3


def test_aggregation_rejects_empty_and_unknown_protocol() -> None:
    with pytest.raises(ValueError, match="no entries"):
        score_entries([], "paper")
    with pytest.raises(ValueError, match="unknown protocol"):
        score_entries(_three_entries(), "best")  # type: ignore[arg-type]


def test_error_entry_scores_zero_for_model_in_both_protocols() -> None:
    q, v = question(), votes({"yes": 5, "no": 2})
    failed = entry(q, v, None, raw=None, error="timeout")
    answered = entry(q, v, "no")
    for protocol in ("paper", "official"):
        result = score_entries([failed, answered], protocol)  # type: ignore[arg-type]
        # 0 for the failure (never the first option "yes"), 2/7 for "no"
        assert result["model"]["All"]["PA"] == pytest.approx((0 + 2 / 7) / 2)
        assert result["model"]["All"]["n"] == 2
        assert result["human:oracle"]["All"]["n"] == 2


def test_error_entry_leaves_human_rows_unchanged() -> None:
    q, v = question(), votes({"yes": 5, "no": 2})
    for protocol in ("paper", "official"):
        failed_entry = entry(q, v, None, error="refusal")
        failed = score_entries([failed_entry], protocol)  # type: ignore[arg-type]
        ok = score_entries([entry(q, v, "yes")], protocol)  # type: ignore[arg-type]
        assert failed["human:average"] == ok["human:average"]
        assert failed["human:oracle"] == ok["human:oracle"]


def test_official_protocol_reparses_raw_text() -> None:
    q, v = question(), votes({"yes": 5, "no": 2})
    # raw says "no" although the lenient parser produced "yes"
    result = score_entries([entry(q, v, "yes", raw='{"answer": "no"}')], "official")
    assert result["model"]["All"]["PA"] == pytest.approx(2 / 7)


def test_official_protocol_uses_parsed_invalid_marker_without_raw() -> None:
    q, v = question(), votes({"yes": 2, "no": 5})
    # an official experiment folder stores "INVALID" -> scored as the first option "yes"
    result = score_entries([entry(q, v, INVALID, raw=None)], "official")
    assert result["model"]["All"]["PA"] == pytest.approx(2 / 7)
    assert score_entries([entry(q, v, INVALID)], "paper")["model"]["All"]["PA"] == 0.0


def test_aggregation_sums_each_group_in_entry_order() -> None:
    # Float sums depend on their order; every group's mean must be the sum of its items'
    # scores taken in entry order (metrics.stats.mean_se), the order the reference pushes them.
    rng = random.Random(7)
    options = ("a", "b", "c")
    keys = [("Social reasoning", "q_one"), ("Spatial reasoning", "q_two"), ("Social reasoning", "q_three")]
    entries = []
    for i in range(60):
        category, base = keys[i % 3]
        q = question(options, key=f"{base}_p{i}", base_key=base, category=category)
        counts = {o: rng.randint(1, 7) for o in options}
        entries.append(entry(q, votes(counts), rng.choice(options)))
    result = score_entries(entries, "paper")
    groups: dict[str, list[ScoringEntry]] = {"All": entries}
    for e in entries:
        groups.setdefault(e.question.category, []).append(e)
        groups.setdefault(e.question.base_key, []).append(e)
    for name, members in groups.items():
        values = [paper_item_scores(e.votes, e.question.canonical(e.parsed))["model"].cwpa for e in members]
        assert result["model"][name]["CWPA"] == sum(values) / len(values)  # exact, not approx
