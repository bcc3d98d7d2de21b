"""Run directory: append-and-flush, torn-line repair, clear errors, canonical compaction."""

import json

import pytest

from socialbench.errors import DataError
from socialbench.runner.store import RunStore, read_samples
from socialbench.types import SampleRecord


def rec(item: str, key: str, parsed="yes", error=None) -> SampleRecord:
    return SampleRecord(item, key, '{"answer": "yes"}', parsed, "json", error, 0.1, {"prompt_tokens": 1, "completion_tokens": 1})


def test_appended_records_are_readable_before_close(tmp_path):
    s = RunStore(tmp_path)
    s.append(rec("a", "q1"))
    assert [r.question_key for r in read_samples(tmp_path / "samples.jsonl")] == ["q1"]


def test_torn_last_line_is_cut_and_earlier_lines_kept(tmp_path):
    s = RunStore(tmp_path)
    s.append(rec("a", "q1"))
    s.close()
    with open(tmp_path / "samples.jsonl", "a") as fh:
        fh.write('{"item_id": "a", "question_ke')
    done = RunStore(tmp_path).load_samples()
    assert list(done) == [("a", "q1")]
    assert (tmp_path / "samples.jsonl").read_text().endswith("}\n")


def test_malformed_middle_line_is_an_error_naming_the_line(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.write_text(json.dumps(rec("a", "q1").to_json()) + "\nnot json\n" + json.dumps(rec("a", "q2").to_json()) + "\n")
    with pytest.raises(DataError) as e:
        read_samples(p)
    assert e.value.problems[0].line == 2


def test_latest_record_per_question_wins(tmp_path):
    s = RunStore(tmp_path)
    s.append(rec("a", "q1", parsed=None, error="timeout"))
    s.append(rec("a", "q1"))
    assert RunStore(tmp_path).load_samples()[("a", "q1")].error is None


def test_compact_orders_and_deduplicates(tmp_path):
    s = RunStore(tmp_path)
    for k in ("q2", "q1", "q2"):
        s.append(rec("a", k))
    out = s.compact([("a", "q1"), ("a", "q2")])
    assert [r.question_key for r in out] == ["q1", "q2"]
    assert len((tmp_path / "samples.jsonl").read_text().splitlines()) == 2


def test_complete_last_line_without_newline_gets_one_before_appending(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.write_text(json.dumps(rec("a", "q1").to_json()))
    s = RunStore(tmp_path)
    s.load_samples()
    s.append(rec("a", "q2"))
    s.close()
    assert [r.question_key for r in read_samples(p)] == ["q1", "q2"]


def test_compact_after_load_writes_what_the_file_held_plus_appends(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.write_text(json.dumps(rec("a", "q1").to_json()) + "\n" + json.dumps(rec("a", "q2", parsed=None, error="timeout").to_json()) + "\n")
    s = RunStore(tmp_path)
    s.load_samples()
    s.append(rec("a", "q2"))
    s.append(rec("a", "q3"))
    out = s.compact([("a", "q3"), ("a", "q2"), ("a", "q1")])
    on_disk = read_samples(p)
    assert [r.to_json() for r in on_disk] == [r.to_json() for r in out]
    assert [(r.question_key, r.error) for r in on_disk] == [("q3", None), ("q2", None), ("q1", None)]


def test_a_record_written_when_an_interrupt_arrives_survives_compaction(tmp_path):
    s = RunStore(tmp_path)
    s.load_samples()
    s.append(rec("a", "q1"))
    real = s._fh

    class InterruptAfterFlush:
        def write(self, text):
            return real.write(text)

        def flush(self):
            real.flush()
            raise KeyboardInterrupt

        def close(self):
            real.close()

    s._fh = InterruptAfterFlush()
    with pytest.raises(KeyboardInterrupt):
        s.append(rec("a", "q2"))
    out = s.compact([("a", "q1"), ("a", "q2")])
    assert [r.question_key for r in out] == ["q1", "q2"]
    assert [r.question_key for r in read_samples(tmp_path / "samples.jsonl")] == ["q1", "q2"]
