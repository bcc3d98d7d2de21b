"""The behaviors stage: candidates per scene image, facets checked, failures recorded."""

import pytest
from PIL import Image

from socialbench.construction.behaviors import validate_behaviors
from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.construction.llm import OutputError
from socialbench.testing.openai_server import ok


def _review(work, statuses):
    rows = []
    for i, status in enumerate(statuses, start=1):
        folder = work / "images" / f"s{i}"
        folder.mkdir(parents=True)
        Image.new("RGB", (40, 30), (i * 40, 50, 60)).save(folder / "round0.png")
        rows.append(
            {
                "id": f"restaurant/b00-{i}",
                "status": status,
                "original": f"images/s{i}/round0.png",
                "final": f"images/s{i}/round0.png",
                "final_round": 0,
                "best_round": 0,
                "rounds": [{"round": 0, "image": f"images/s{i}/round0.png"}],
                "scenario": {
                    "title": f"T{i}",
                    "description": "d",
                    "role": "a restaurant service robot",
                    "category": "Retail, Hospitality & Consumer Services",
                    "subcategory": "Restaurant",
                },
            }
        )
    write_jsonl(work / "review.jsonl", rows)


def test_behaviors_per_accepted_scene_with_image(cli, work, chat_server, llm_args):
    _review(work, ["passed", "rejected", "passed_soft"])
    res = cli("behaviors", "--work", work, *llm_args(chat_server), "--proper", "2", "--improper", "3")
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in read_jsonl(work / "behaviors.jsonl")}
    assert set(rows) == {"restaurant/b00-1", "restaurant/b00-3"}  # the rejected image is skipped
    r = rows["restaurant/b00-1"]
    assert [b["k"] for b in r["behaviors"]] == [1, 2, 3, 4, 5]
    assert [b["suggested_label"] for b in r["behaviors"]] == ["proper"] * 2 + ["improper"] * 3
    assert r["behaviors"][2]["facets"] == ["safety", "proxemics"] and r["subset"] == "synthetic"
    assert r["category"] == "Retail, Hospitality & Consumer Services" and r["question"].startswith(
        "You are a test robot"
    )
    sent = chat_server.requests[0]["messages"][-1]["content"]
    assert any(p.get("type") == "image_url" for p in sent)


def test_unknown_facet_is_rejected():
    check = validate_behaviors(1, 1)
    with pytest.raises(OutputError) as e:
        check(
            {
                "behaviors": [
                    {"text": "a", "suggested_label": "proper", "facets": ["respect"]},
                    {"text": "b", "suggested_label": "improper", "facets": []},
                ]
            }
        )
    assert e.value.kind == "invalid_output" and "respect" in e.value.message


def test_too_few_improper_candidates_is_rejected():
    with pytest.raises(OutputError) as e:
        validate_behaviors(1, 2)(
            {
                "behaviors": [
                    {"text": "a", "suggested_label": "proper"},
                    {"text": "b", "suggested_label": "improper"},
                    {"text": "B ", "suggested_label": "improper"},
                ]
            }
        )  # duplicate text
    assert "1 improper" in e.value.message


def test_malformed_replies_exhaust_retries_and_are_recorded(cli, work, chat_server, llm_args):
    _review(work, ["passed"])
    chat_server.push(ok("no json here"), ok('{"behaviors": []}'), ok("{broken"))
    # no images probe: sent beside the repair requests, it would take one of the scripted replies
    no_probe = ("--model-opt", "check_images=false")
    res = cli("behaviors", "--work", work, *llm_args(chat_server), *no_probe, "--parse-retries", "2")
    assert res.exit_code == 2
    (fail,) = read_jsonl(work / "behaviors.failures.jsonl")
    assert fail["kind"] == "invalid_json" and fail["attempts"] == 3
    assert not (work / "behaviors.jsonl").exists() or read_jsonl(work / "behaviors.jsonl") == []
    assert cli("behaviors", "--work", work, *llm_args(chat_server)).exit_code == 0
    assert len(read_jsonl(work / "behaviors.jsonl")) == 1


def test_an_unreadable_image_fails_its_scene_only(cli, work, chat_server, llm_args):
    _review(work, ["passed", "passed"])
    broken = work / "images" / "s2" / "round0.png"
    good = broken.read_bytes()
    broken.write_bytes(b"not an image")
    res = cli("behaviors", "--work", work, *llm_args(chat_server))
    assert res.exit_code == 2
    assert [r["id"] for r in read_jsonl(work / "behaviors.jsonl")] == ["restaurant/b00-1"]
    (fail,) = read_jsonl(work / "behaviors.failures.jsonl")
    assert (fail["id"], fail["kind"]) == ("restaurant/b00-2", "unreadable_image") and "round0.png" in fail["message"]
    broken.write_bytes(good)  # fixed: the rerun retries the failed scene
    assert cli("behaviors", "--work", work, *llm_args(chat_server)).exit_code == 0
    assert {r["id"] for r in read_jsonl(work / "behaviors.jsonl")} == {"restaurant/b00-1", "restaurant/b00-2"}
