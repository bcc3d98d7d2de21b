"""Beam-merge scenario generation end to end against the scripted chat server."""

import json

from socialbench.construction.jsonl import read_jsonl
from socialbench.testing.openai_server import ok


def _run(cli, work, srv, llm_args, *extra):
    return cli("scenarios", "--work", work, *llm_args(srv), "--beams", "3", "-k", "4", *extra)


def test_beam_merge_writes_scenarios_and_reports_removals(cli, work, chat_server, llm_args):
    res = _run(cli, work, chat_server, llm_args)
    assert res.exit_code == 0, res.output
    beams = read_jsonl(work / "scenarios" / "beams.jsonl")
    assert sorted(b["id"] for b in beams) == [f"{s}/b0{i}" for s in ("hotel", "restaurant") for i in range(3)]
    scen = read_jsonl(work / "scenarios.jsonl")
    removed = read_jsonl(work / "scenarios.removed.jsonl")
    # 2 subcategories x 3 beams x 4 scenarios; the merge model drops one per subcategory and the
    # local filter catches the planted near-copy (beam 1, scenario 1) of each subcategory
    assert len(scen) == 24 - 2 - 2
    reasons = sorted((r["id"], r["reason"]) for r in removed)
    assert reasons == [
        ("hotel/b01-1", "local-near-duplicate"),
        ("hotel/b02-4", "merge-model"),
        ("restaurant/b01-1", "local-near-duplicate"),
        ("restaurant/b02-4", "merge-model"),
    ]
    local = next(r for r in removed if r["id"] == "restaurant/b01-1")
    assert local["duplicate_of"] == "restaurant/b00-1" and local["similarity"] >= 0.5


def test_each_scenario_carries_all_fields_and_taxonomy(cli, work, chat_server, llm_args):
    assert _run(cli, work, chat_server, llm_args).exit_code == 0
    for s in read_jsonl(work / "scenarios.jsonl"):
        assert all(s[f] for f in ("title", "description", "spi_rationale", "decision_point"))
        assert s["category"] == "Retail, Hospitality & Consumer Services"
        assert s["subcategory_id"] == s["id"].split("/")[0]


def test_merge_request_goes_to_the_merge_model(cli, work, chat_server, llm_args):
    assert (
        _run(cli, work, chat_server, llm_args, "--merge-model", f"openai:merger@{chat_server.base_url}").exit_code == 0
    )
    models = [(r["model"], r["messages"][-1]["content"][:60]) for r in chat_server.requests]
    merge_models = {m for m, t in models if "deduplicating" in t}
    assert merge_models == {"merger"}
    assert {m for m, t in models if "deduplicating" not in t} == {"scripted"}


def test_invalid_json_reply_is_repaired(cli, work, chat_server, llm_args):
    chat_server.push(ok("Sure! Here are some scenarios: none"))
    res = _run(cli, work, chat_server, llm_args, "--only", "restaurant")
    assert res.exit_code == 0, res.output
    assert len(read_jsonl(work / "scenarios" / "beams.jsonl")) == 3
    repairs = [
        r for r in chat_server.requests if "Your previous reply could not be used" in r["messages"][-1]["content"]
    ]
    assert len(repairs) == 1 and "not a valid JSON object" in repairs[0]["messages"][-1]["content"]


def test_missing_fields_are_recorded_and_the_merge_waits(cli, work, chat_server, llm_args):
    yaml = (work / "taxonomy.yaml").read_text().replace("{id: hotel, name: Hotel", "{id: hotel, name: Broken Hotel")
    (work / "taxonomy.yaml").write_text(yaml)
    assert cli("taxonomy", "--work", work).exit_code == 0
    res = _run(cli, work, chat_server, llm_args, "--parse-retries", "1")
    assert res.exit_code == 2
    failures = read_jsonl(work / "scenarios" / "beams.failures.jsonl")
    assert {f["id"] for f in failures} == {"hotel/b00", "hotel/b01", "hotel/b02"}
    assert {f["kind"] for f in failures} == {"missing_fields"} and all(f["attempts"] == 2 for f in failures)
    assert [m["id"] for m in read_jsonl(work / "scenarios" / "merged.jsonl")] == ["restaurant"]
    summary = json.loads((work / "summaries" / "scenarios.json").read_text())
    assert summary["failure_kinds"] == {"missing_fields": 3}
    assert any("hotel: 0 of 3 beams done" in n for n in summary["notes"])


def test_rerun_retries_only_what_failed(cli, work, chat_server, llm_args):
    yaml = (work / "taxonomy.yaml").read_text()
    (work / "taxonomy.yaml").write_text(yaml.replace("name: Hotel", "name: Broken Hotel"))
    cli("taxonomy", "--work", work)
    assert _run(cli, work, chat_server, llm_args, "--parse-retries", "0").exit_code == 2
    (work / "taxonomy.yaml").write_text(yaml)  # the fixture now answers the hotel beams properly
    cli("taxonomy", "--work", work)
    before = chat_server.count
    res = _run(cli, work, chat_server, llm_args)
    assert res.exit_code == 0, res.output
    new = chat_server.requests[before:]
    beam_prompts = [r["messages"][-1]["content"] for r in new if "You design" in r["messages"][-1]["content"]]
    assert len(beam_prompts) == 3 and all("Subcategory: Hotel" in p for p in beam_prompts)
    assert all("(Request variant 1.)" in p for p in beam_prompts)  # a failed request is varied on retry
    assert sum("deduplicating" in r["messages"][-1]["content"] for r in new) == 1
    assert {m["id"] for m in read_jsonl(work / "scenarios" / "merged.jsonl")} == {"restaurant", "hotel"}
