"""Disk faults and a bad --cache end in one line naming the path and the fix, exit 1, and
leave what was written before untouched."""

import errno
import json
import os

import pytest

import socialbench.runner.store as store_module
from socialbench.cli import main


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


def eval_args(data, out, *extra):
    return [
        "eval",
        "-b",
        "socialnav-sub",
        "-d",
        str(data),
        "-m",
        "baseline:random",
        "-o",
        str(out),
        "--no-progress",
        *extra,
    ]


def one_error_line(err):
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_run_directory_under_a_file(small_socialnav, tmp_path, capsys):
    (tmp_path / "file").write_text("keep me")
    code = run_cli(*eval_args(small_socialnav, tmp_path / "file" / "run", "--no-cache"))
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(tmp_path / "file" / "run") in line and "fix:" in line
    assert (tmp_path / "file").read_text() == "keep me"


def test_cache_under_a_file(small_socialnav, tmp_path, capsys):
    (tmp_path / "file").write_text("keep me")
    code = run_cli(*eval_args(small_socialnav, tmp_path / "run", "--cache", str(tmp_path / "file" / "c.sqlite")))
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(tmp_path / "file" / "c.sqlite") in line and "--no-cache" in line


def test_render_cache_under_a_file(small_socialnav, tmp_path, capsys):
    (tmp_path / "file").write_text("keep me")
    cache = tmp_path / "file" / "renders"
    args = eval_args(small_socialnav, tmp_path / "run", "--no-cache", "--render-cache", str(cache), "--limit", "1")
    args[args.index("baseline:random")] = "mock:first-option"
    code = run_cli(*args)
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(cache) in line and "--no-render-cache" in line
    assert (tmp_path / "file").read_text() == "keep me" and not (tmp_path / "run").exists()


def test_cache_that_is_not_sqlite_leaves_the_run_untouched(small_socialnav, tmp_path, capsys):
    assert run_cli(*eval_args(small_socialnav, tmp_path / "run", "--no-cache")) == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir() if p.is_file()}
    bad = tmp_path / "notes.txt"
    bad.write_text("these are my notes, not a cache\n" * 200)
    code = run_cli(*eval_args(small_socialnav, tmp_path / "run", "--cache", str(bad)))
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(bad) in line and "not a SQLite" in line
    assert {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir() if p.is_file()} == before
    assert bad.read_text() == "these are my notes, not a cache\n" * 200


def test_read_only_run_directory(small_socialnav, tmp_path, capsys, monkeypatch):
    # root ignores file modes, so the read-only file system is simulated at os.open (run folder only)
    real_open = os.open
    run = str(tmp_path / "run")

    def read_only_open(path, flags, *args, **kwargs):
        if str(path).startswith(run) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(store_module.os, "open", read_only_open)
    code = run_cli(*eval_args(small_socialnav, tmp_path / "run", "--no-cache"))
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(tmp_path / "run") in line and "not writable" in line


def test_full_disk_during_a_run(small_socialnav, tmp_path, capsys, monkeypatch):
    real = store_module._write_all
    writes = []

    def disk_full_after_20(fd, data):
        writes.append(1)
        if len(writes) > 20:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd, data)

    monkeypatch.setattr(store_module, "_write_all", disk_full_after_20)
    code = run_cli(*eval_args(small_socialnav, tmp_path / "run", "--no-cache"))
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(tmp_path / "run") in line and "free some space" in line
    kept = (tmp_path / "run" / "samples.jsonl").read_text().splitlines()
    assert kept and all(json.loads(x)["error"] is None for x in kept)  # what was written stays whole


def test_report_out_under_a_file(small_socialnav, tmp_path, capsys):
    assert run_cli(*eval_args(small_socialnav, tmp_path / "run", "--no-cache")) == 0
    capsys.readouterr()
    (tmp_path / "file").write_text("keep me")
    code = run_cli(
        "report", str(tmp_path / "run"), "--out", str(tmp_path / "file" / "rep"), "--format", "md", "--no-plots"
    )
    line = one_error_line(capsys.readouterr().err)
    assert code == 1 and str(tmp_path / "file" / "rep") in line and "fix:" in line
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "complete"
