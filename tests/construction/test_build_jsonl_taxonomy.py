"""Stage I/O (resumable JSONL, failures, summaries) and the taxonomy file."""

import json

import pytest
import yaml

from socialbench.construction.file_names import safe_name
from socialbench.construction.jsonl import read_jsonl
from socialbench.construction.stage_output import StageOutput
from socialbench.construction.stage_summary import StageSummary, write_summary
from socialbench.construction.taxonomy import load_taxonomy, shipped_taxonomy_path
from socialbench.errors import DataError


def test_stage_output_skips_done_ids_and_tracks_open_failures(tmp_path):
    so = StageOutput(tmp_path / "out.jsonl")
    so.write({"id": "a", "v": 1})
    so.fail("b", "invalid_json", "no JSON")
    so.fail("c", "timeout")
    again = StageOutput(tmp_path / "out.jsonl")
    assert again.done == {"a"}
    again.write({"id": "b", "v": 2})
    assert [f["id"] for f in again.open_failures()] == ["c"]
    assert again.failure_counts() == {"b": 1, "c": 1}


def test_truncated_last_line_is_dropped_and_overwritten(tmp_path):
    p = tmp_path / "out.jsonl"
    p.write_text('{"id": "a"}\n{"id": "b", "v"')
    so = StageOutput(p)
    assert so.done == {"a"}
    so.write({"id": "b"})
    assert [r["id"] for r in read_jsonl(p)] == ["a", "b"]


def test_a_corrupt_middle_line_is_an_error_naming_the_line(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"id": "a"}\nnot json\n{"id": "c"}\n')
    with pytest.raises(DataError) as e:
        read_jsonl(p)
    assert f"{p}:2" in str(e.value)


def test_summaries_accumulate_tokens_over_reruns(tmp_path):
    write_summary(tmp_path, StageSummary(stage="behaviors", prompt_tokens=10, requests=2, cost_usd=0.5))
    write_summary(tmp_path, StageSummary(stage="behaviors", prompt_tokens=5, requests=1, cost_usd=0.25, n_out=3))
    doc = json.loads((tmp_path / "summaries" / "behaviors.json").read_text())
    assert doc["runs"] == 2 and doc["n_out"] == 3
    assert doc["totals"]["prompt_tokens"] == 15 and doc["totals"]["requests"] == 3 and doc["totals"]["cost_usd"] == 0.75


def test_safe_name():
    assert safe_name("bus-station/b00-3") == "bus-station__b00-3"
    assert safe_name("../x y") == "x_y"


def test_shipped_taxonomy_has_10_categories_and_56_subcategories():
    tax = load_taxonomy()
    assert len(tax.categories) == 10 and len(tax.subcategories) == 56
    assert len({s.id for s in tax.subcategories}) == 56
    assert "Retail, Hospitality & Consumer Services" in {c.name for c in tax.categories}
    assert all(s.role for s in tax.subcategories)


def test_taxonomy_problems_name_the_field(tmp_path):
    doc = yaml.safe_load(shipped_taxonomy_path().read_text())
    doc["categories"][1]["subcategories"][0]["id"] = doc["categories"][0]["subcategories"][0]["id"]
    doc["categories"][2]["name"] = ""
    p = tmp_path / "t.yaml"
    p.write_text(yaml.safe_dump(doc))
    with pytest.raises(DataError) as e:
        load_taxonomy(p)
    text = str(e.value)
    assert "categories[1].subcategories[0].id" in text and "duplicate subcategory id" in text
    assert "categories[2].name" in text


def test_cli_taxonomy_copies_the_editable_file(cli, tmp_path):
    w = tmp_path / "w"
    res = cli("taxonomy", "--work", w)
    assert res.exit_code == 0, res.output
    rows = read_jsonl(w / "taxonomy.jsonl")
    assert len(rows) == 56 and (w / "taxonomy.yaml").is_file()
    assert rows[0]["category"] == "Public Spaces & Urban Infrastructure" and rows[0]["role"]


def test_unique_name_differs_for_ids_that_sanitise_alike():
    from socialbench.construction.file_names import unique_name

    ids = ["cafe s-1", "cafe?s-1", "cafe/s-1", "cafe__s-1", "x.", "x"]
    names = [unique_name(i) for i in ids]
    assert len(set(names)) == len(ids)
    assert unique_name("cafe__s-1") == "cafe__s-1" and unique_name("cafe/s-1").startswith("cafe__s-1-")
    assert all(safe_name(n) == n for n in names)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_jsonl_that_is_no_regular_file_is_refused_without_reading_it(tmp_path, kind):
    import os

    path = tmp_path / "scenarios.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    with pytest.raises(DataError, match="not a regular file"):
        read_jsonl(path)


def test_a_jsonl_line_nested_100000_deep_is_a_bad_line_not_a_recursion_error(tmp_path):
    path = tmp_path / "scenarios.jsonl"
    path.write_text('{"id": "a"}\n' + "[" * 100_000 + "]" * 100_000 + '\n{"id": "b"}\n')
    with pytest.raises(DataError) as e:
        read_jsonl(path)
    assert [p.line for p in e.value.problems] == [2]


def test_append_jsonl_never_writes_through_a_link(tmp_path):
    from socialbench.construction.jsonl import append_jsonl, write_jsonl
    from socialbench.files.atomic_write import LinkRefused

    outside = tmp_path / "outside.jsonl"
    outside.write_text("keep\n")
    (tmp_path / "out.jsonl").symlink_to(outside)
    with pytest.raises(LinkRefused):
        append_jsonl(tmp_path / "out.jsonl", {"id": "a"})
    with pytest.raises(LinkRefused):
        write_jsonl(tmp_path / "out.jsonl", [{"id": "a"}])
    assert outside.read_text() == "keep\n"
