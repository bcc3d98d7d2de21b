"""Run directory: append-and-flush, torn-line repair, clear errors, canonical compaction."""

import errno
import json
import os

import pytest

import socialbench.runner.store as store_module
from socialbench.errors import StorageError
from socialbench.records import read_samples
from socialbench.runner.store import RunStore
from socialbench.types import SampleRecord


def rec(item: str, key: str, parsed="yes", error=None) -> SampleRecord:
    return SampleRecord(
        item, key, '{"answer": "yes"}', parsed, "json", error, 0.1, {"prompt_tokens": 1, "completion_tokens": 1}
    )


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
    p.write_text(
        json.dumps(rec("a", "q1").to_json())
        + "\n"
        + json.dumps(rec("a", "q2", parsed=None, error="timeout").to_json())
        + "\n"
    )
    s = RunStore(tmp_path)
    s.load_samples()
    s.append(rec("a", "q2"))
    s.append(rec("a", "q3"))
    out = s.compact([("a", "q3"), ("a", "q2"), ("a", "q1")])
    on_disk = read_samples(p)
    assert [r.to_json() for r in on_disk] == [r.to_json() for r in out]
    assert [(r.question_key, r.error) for r in on_disk] == [("q3", None), ("q2", None), ("q1", None)]


def test_a_record_written_when_an_interrupt_arrives_survives_compaction(tmp_path, monkeypatch):
    s = RunStore(tmp_path)
    s.load_samples()
    s.append(rec("a", "q1"))
    real = store_module._write_all

    def interrupt_after_write(fd, data):
        real(fd, data)
        raise KeyboardInterrupt

    monkeypatch.setattr(store_module, "_write_all", interrupt_after_write)
    with pytest.raises(KeyboardInterrupt):
        s.append(rec("a", "q2"))
    monkeypatch.setattr(store_module, "_write_all", real)
    out = s.compact([("a", "q1"), ("a", "q2")])
    assert [r.question_key for r in out] == ["q1", "q2"]
    assert [r.question_key for r in read_samples(tmp_path / "samples.jsonl")] == ["q1", "q2"]


def disk_full_after(n_calls):
    """A _write_all that works ``n_calls`` times, then writes half its bytes and fails
    with ENOSPC, as a filling disk does."""
    real = store_module._write_all
    calls = []

    def write(fd, data):
        calls.append(data)
        if len(calls) > n_calls:
            real(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd, data)

    return write


def test_full_disk_append_names_the_file_and_the_fix(tmp_path, monkeypatch):
    s = RunStore(tmp_path)
    monkeypatch.setattr(store_module, "_write_all", disk_full_after(1))
    s.append(rec("a", "q1"))
    with pytest.raises(StorageError) as e:
        s.append(rec("a", "q2"))
    assert str(tmp_path / "samples.jsonl") in str(e.value) and "free some space" in str(e.value)


def test_after_a_failed_append_no_record_follows_the_torn_line(tmp_path, monkeypatch):
    s = RunStore(tmp_path)
    monkeypatch.setattr(store_module, "_write_all", disk_full_after(1))
    s.append(rec("a", "q1"))
    with pytest.raises(StorageError):
        s.append(rec("a", "q2"))
    monkeypatch.undo()  # space is freed, but this store stays stopped
    with pytest.raises(StorageError):
        s.append(rec("a", "q3"))
    s.close()
    assert [r.question_key for r in RunStore(tmp_path).load_samples().values()] == ["q1"]


def test_run_directory_under_a_file_is_a_storage_error(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(StorageError) as e:
        RunStore(tmp_path / "f" / "run")
    assert str(tmp_path / "f" / "run") in str(e.value) and "is a file" in str(e.value)


def test_read_only_run_directory_is_a_storage_error(tmp_path, monkeypatch):
    real_open = os.open

    def read_only_open(path, flags, *args, **kwargs):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(store_module.os, "open", read_only_open)
    with pytest.raises(StorageError) as e:
        RunStore(tmp_path).lock()
    assert str(tmp_path) in str(e.value) and "not writable" in str(e.value)


def test_failed_run_json_write_keeps_the_previous_one(tmp_path, monkeypatch):
    s = RunStore(tmp_path)
    s.write_run({"status": "running"})
    monkeypatch.setattr(
        store_module.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left on device"))
    )
    with pytest.raises(StorageError):
        s.write_run({"status": "complete"})
    assert json.loads((tmp_path / "run.json").read_text()) == {"status": "running"}
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary file left


def test_sends_are_counted_per_session_with_retries(tmp_path):
    s = RunStore(tmp_path)
    for session, attempt in [(0, 1), (0, 1), (0, 2), (1, 1)]:
        s.count_send(session, attempt)
    s.close()
    assert RunStore(tmp_path).read_sends() == {0: {"requests": 3, "retries": 1}, 1: {"requests": 1, "retries": 0}}


def test_a_torn_last_send_line_is_not_counted(tmp_path):
    s = RunStore(tmp_path)
    s.count_send(0, 1)
    s.close()
    with open(tmp_path / "requests.log", "ab") as fh:
        fh.write(b"0")
    assert RunStore(tmp_path).read_sends() == {0: {"requests": 1, "retries": 0}}


# a run folder with links planted in it --------------------------------------------------


@pytest.mark.parametrize("name", ["samples.jsonl", ".lock", "requests.log", "run.json", "metrics.json"])
def test_a_run_file_linked_outside_is_refused_before_anything_is_written(tmp_path, name):
    from socialbench.files.atomic_write import LinkRefused

    outside = tmp_path / "outside"
    outside.write_text(json.dumps(rec("x", "q").to_json()) + "\n")
    before = outside.read_bytes()
    run = tmp_path / "run"
    run.mkdir()
    (run / name).symlink_to(outside)
    with pytest.raises(LinkRefused) as e:
        RunStore(run).lock()
    assert str(run / name) in str(e.value) and "remove the link" in str(e.value)
    assert outside.read_bytes() == before


def test_an_append_never_writes_through_a_link_planted_after_the_lock(tmp_path):
    outside = tmp_path / "outside"
    outside.write_text("keep\n")
    run = tmp_path / "run"
    s = RunStore(run)
    s.lock()
    (run / "samples.jsonl").symlink_to(outside)
    with pytest.raises(StorageError):
        s.append(rec("a", "q1"))
    s.unlock()
    assert outside.read_text() == "keep\n"


def test_compaction_never_opens_a_planted_tmp_link(tmp_path):
    outside = tmp_path / "outside"
    outside.write_text("keep\n")
    run = tmp_path / "run"
    s = RunStore(run)
    s.append(rec("a", "q1"))
    (run / "samples.jsonl.tmp").symlink_to(outside)
    s.compact([("a", "q1")])
    assert outside.read_text() == "keep\n" and len(read_samples(run / "samples.jsonl")) == 1


def test_a_run_json_of_the_wrong_types_is_a_data_error(tmp_path):
    from socialbench.errors import DataError

    (tmp_path / "run.json").write_text(json.dumps({"sessions": "all"}))
    with pytest.raises(DataError) as e:
        RunStore(tmp_path).read_run()
    assert e.value.problems[0].field == "sessions"


def test_a_requests_log_fifo_is_refused_without_blocking(tmp_path):
    from socialbench.errors import DataError

    os.mkfifo(tmp_path / "requests.log")
    with pytest.raises(DataError):
        RunStore(tmp_path).read_sends()


def test_a_requests_log_linked_to_dev_zero_is_refused(tmp_path):
    from socialbench.errors import DataError

    (tmp_path / "requests.log").symlink_to("/dev/zero")
    with pytest.raises(DataError):
        RunStore(tmp_path).read_sends()
