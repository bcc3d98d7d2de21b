"""Record formats every layer reads: ``samples.jsonl`` lines and dataset fingerprints."""

import json

import pytest

from socialbench.errors import DataError
from socialbench.records import fingerprint_files, read_samples
from socialbench.types import SampleRecord


def rec(item: str, key: str) -> SampleRecord:
    return SampleRecord(
        item, key, '{"answer": "yes"}', "yes", "json", None, 0.1, {"prompt_tokens": 1, "completion_tokens": 1}
    )


def test_malformed_middle_line_is_an_error_naming_the_line(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.write_text(json.dumps(rec("a", "q1").to_json()) + "\nnot json\n" + json.dumps(rec("a", "q2").to_json()) + "\n")
    with pytest.raises(DataError) as e:
        read_samples(p)
    assert e.value.problems[0].line == 2


def test_a_file_whose_only_line_is_not_a_record_is_an_error(tmp_path):
    p = tmp_path / "predictions.jsonl"
    p.write_bytes(b"\xff\xfe{")  # no newline: not a torn write after good records
    with pytest.raises(DataError) as e:
        read_samples(p)
    assert e.value.problems[0].line == 1


def test_a_fifo_in_place_of_samples_is_refused_without_blocking(tmp_path):
    import os

    p = tmp_path / "samples.jsonl"
    os.mkfifo(p)
    with pytest.raises(DataError) as e:
        read_samples(p)
    assert "not a regular file" in e.value.problems[0].message


def test_a_fingerprint_changes_with_a_label_files_bytes(tmp_path):
    (tmp_path / "labels.json").write_text("{}")
    before = fingerprint_files([tmp_path / "labels.json"], tmp_path)
    (tmp_path / "labels.json").write_text('{"a": 1}')
    assert fingerprint_files([tmp_path / "labels.json"], tmp_path) != before


def test_a_records_extra_is_written_and_read_back(tmp_path):
    rec = SampleRecord("s1", "q", '{"answer": "A"}', "A", "json", None, 0.1, {}, extra={"waypoints": {"answer": "A"}})
    (tmp_path / "samples.jsonl").write_text(json.dumps(rec.to_json()) + "\n")
    assert read_samples(tmp_path / "samples.jsonl")[0].extra == {"waypoints": {"answer": "A"}}


def test_a_record_without_extra_keeps_its_keys():
    rec = SampleRecord("s1", "q", None, None, None, "timeout", 0.0, {})
    assert "extra" not in rec.to_json() and SampleRecord.from_json(rec.to_json()).extra is None


def test_a_records_finish_reason_and_retry_causes_are_written_and_read_back(tmp_path):
    from dataclasses import replace

    cut = replace(rec("a", "q1"), finish_reason="length", retry_causes=("timeout", "rate_limit"))
    p = tmp_path / "samples.jsonl"
    p.write_text(json.dumps(cut.to_json()) + "\n")
    (back,) = read_samples(p)
    assert (back.finish_reason, back.truncated, back.retry_causes) == ("length", True, ("timeout", "rate_limit"))


def test_a_retry_causes_field_that_is_not_a_list_of_strings_is_an_error_naming_it(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.write_text(json.dumps({**rec("a", "q1").to_json(), "retry_causes": "timeout"}) + "\n")
    with pytest.raises(DataError, match="retry_causes"):
        read_samples(p)
