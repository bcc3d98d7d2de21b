"""Run-folder files read back from anyone: every hostile shape is one line naming the file,
the line, the field and the fix (samples.jsonl records and run.json)."""

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from socialbench.errors import DataError
from socialbench.records import read_run_json, read_samples
from socialbench.types import SampleRecord


def good() -> dict:
    return SampleRecord("s1", "q1", '{"answer": "yes"}', "yes", "json", None, 0.1, {"prompt_tokens": 1}).to_json()


def write_lines(path: Path, *objs: object) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


def one_problem(exc: pytest.ExceptionInfo[DataError]):
    assert len(exc.value.problems) == 1 and "\n" not in str(exc.value)
    return exc.value.problems[0]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("item_id", ["s1"]),
        ("question_key", 3),
        ("latency_s", "0.1"),
        ("usage", {"prompt_tokens": "12"}),
        ("parsed", {"answer": "yes"}),
        ("attempts", "2"),
        ("cached", "no"),
        ("raw", 5),
    ],
)
def test_a_field_of_the_wrong_type_is_one_line_naming_file_line_and_field(tmp_path, field, value):
    p = write_lines(tmp_path / "samples.jsonl", good(), {**good(), field: value})
    with pytest.raises(DataError) as e:
        read_samples(p)
    problem = one_problem(e)
    assert (problem.file, problem.line, problem.field) == (str(p), 2, field) and problem.fix


def test_a_missing_item_id_names_the_field(tmp_path):
    rec = good()
    del rec["item_id"]
    p = write_lines(tmp_path / "samples.jsonl", rec, good())
    with pytest.raises(DataError) as e:
        read_samples(p)
    assert one_problem(e).field == "item_id" and "missing" in str(e.value)


def test_a_line_that_is_a_list_is_not_a_record(tmp_path):
    p = write_lines(tmp_path / "samples.jsonl", [good()], good())
    with pytest.raises(DataError) as e:
        read_samples(p)
    assert one_problem(e).line == 1 and "expected a JSON object" in str(e.value)


def test_a_wrong_typed_complete_last_line_is_not_taken_for_a_torn_write(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.write_text(json.dumps(good()) + "\n" + json.dumps({**good(), "item_id": 7}), encoding="utf-8")
    with pytest.raises(DataError) as e:
        read_samples(p, repair=True)
    assert one_problem(e).field == "item_id"
    assert p.read_text(encoding="utf-8").count("\n") == 1  # nothing cut


def test_invalid_utf8_in_a_middle_line_names_the_line(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.write_bytes(json.dumps(good()).encode() + b'\n{"item_id": "\xff"}\n' + json.dumps(good()).encode() + b"\n")
    with pytest.raises(DataError) as e:
        read_samples(p)
    assert one_problem(e).line == 2 and "UTF-8" in str(e.value)


def test_a_torn_multibyte_character_at_the_end_is_a_torn_write(tmp_path):
    p = tmp_path / "samples.jsonl"
    whole = json.dumps(good()).encode() + b"\n"
    torn = (json.dumps(good())[:-1] + ', "note": "é"}').encode("utf-8")[:-3]  # ends inside the é
    assert torn.endswith(b"\xc3")
    p.write_bytes(whole + torn)
    assert len(read_samples(p, repair=True)) == 1 and p.read_bytes() == whole


def test_json_nested_100000_levels_is_one_line(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.write_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n")
    with pytest.raises(DataError) as e:
        read_samples(p)
    assert "nested more than" in one_problem(e).message


def test_nan_latency_is_refused(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.write_text(json.dumps(good()).replace("0.1", "NaN") + "\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        read_samples(p)
    assert "NaN" in one_problem(e).message


def test_samples_linked_to_dev_zero_is_refused(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.symlink_to("/dev/zero")
    with pytest.raises(DataError) as e:
        read_samples(p)
    assert "not a regular file" in one_problem(e).message


def test_a_folder_in_place_of_samples_is_refused(tmp_path):
    (tmp_path / "samples.jsonl").mkdir()
    with pytest.raises(DataError) as e:
        read_samples(tmp_path / "samples.jsonl")
    assert "not a regular file" in one_problem(e).message


def test_a_complete_last_line_without_newline_is_repaired_not_through_a_link(tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text(json.dumps(good()) + "\n" + json.dumps(good())[:10], encoding="utf-8")
    before = outside.read_bytes()
    run = tmp_path / "run"
    run.mkdir()
    (run / "samples.jsonl").symlink_to(outside)
    with pytest.raises(Exception) as e:
        read_samples(run / "samples.jsonl", repair=True)
    assert "symbolic link" in str(e.value) and outside.read_bytes() == before


# run.json --------------------------------------------------------------------------------


def run_json(tmp_path: Path, doc: object) -> Path:
    p = tmp_path / "run.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    return p


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        ({"benchmark": ["socialnav-sub"]}, "benchmark"),
        ({"model": 3}, "model"),
        ({"limit": "10"}, "limit"),
        ({"limit": True}, "limit"),
        ({"limit": 0}, "limit"),
        ({"sessions": {"0": {}}}, "sessions"),
        ({"sessions": [{"requests": "5"}]}, "sessions[0].requests"),
        ({"sessions": [{"engine": {"retries": [1]}}]}, "sessions[0].engine.retries"),
        ({"perturb": {"name": "blur", "strength": "high"}}, "perturb.strength"),
        ({"generation_adapted": []}, "generation_adapted"),
        ({"options": "cot"}, "options"),
    ],
)
def test_a_run_json_field_of_the_wrong_type_is_one_line(tmp_path, doc, field):
    p = run_json(tmp_path, {"benchmark": "socialnav-sub", "model": "mock:first-option", **doc})
    with pytest.raises(DataError) as e:
        read_run_json(p)
    problem = one_problem(e)
    assert (problem.file, problem.field) == (str(p), field) and problem.fix


def test_a_run_json_that_is_not_an_object_is_refused(tmp_path):
    with pytest.raises(DataError) as e:
        read_run_json(run_json(tmp_path, ["a"]))
    assert "expected a JSON object" in one_problem(e).message


def test_a_run_json_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "run.json")
    with pytest.raises(DataError) as e:
        read_run_json(tmp_path / "run.json")
    assert "not a regular file" in one_problem(e).message


def test_a_run_json_linked_to_dev_zero_is_refused(tmp_path):
    (tmp_path / "run.json").symlink_to("/dev/zero")
    with pytest.raises(DataError):
        read_run_json(tmp_path / "run.json")


def test_a_well_typed_run_json_is_returned(tmp_path):
    doc = {"benchmark": "socialnav-sub", "limit": None, "sessions": [{"requests": 3, "engine": {"retries": 0}}]}
    assert read_run_json(run_json(tmp_path, doc)) == doc


# property: any record of random shape is read back or refused with one line ---------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_fields = st.sampled_from(["item_id", "question_key", "raw", "parsed", "latency_s", "usage", "attempts", "cached"])


@settings(max_examples=80, deadline=None)
@given(changes=st.dictionaries(_fields, _json, max_size=4))
def test_records_of_random_shape_are_read_or_refused_in_one_line(tmp_path_factory, changes):
    p = write_lines(tmp_path_factory.mktemp("r") / "samples.jsonl", {**good(), **changes})
    try:
        (record,) = read_samples(p)
    except DataError as exc:
        assert len(exc.problems) == 1 and exc.problems[0].line == 1 and exc.problems[0].field in changes
        return
    assert isinstance(record.item_id, str) and isinstance(record.question_key, str)
    assert isinstance(record.latency_s, float) and all(isinstance(v, (int, float)) for v in record.usage.values())


_run_fields = st.sampled_from(["benchmark", "model", "limit", "seed", "sessions", "perturb", "options", "status"])


@settings(max_examples=80, deadline=None)
@given(changes=st.dictionaries(_run_fields, _json, max_size=4))
def test_run_json_of_random_shape_is_read_or_refused_in_one_line(tmp_path_factory, changes):
    p = run_json(tmp_path_factory.mktemp("r"), {"benchmark": "socialnav-sub", "sessions": [], **changes})
    try:
        run = read_run_json(p)
    except DataError as exc:
        assert len(exc.problems) == 1 and exc.problems[0].field.split(".")[0].split("[")[0] in changes
        return
    assert isinstance(run.get("benchmark", ""), str) and isinstance(run.get("sessions", []), list)
    limit = run.get("limit")
    assert limit is None or (isinstance(limit, int) and not isinstance(limit, bool) and limit >= 1)
