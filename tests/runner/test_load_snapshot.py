"""Dataset snapshots: a re-run unpickles the loaded dataset instead of parsing the folder,
only while every file is unchanged, and never runs code from a snapshot."""

from __future__ import annotations

import json
import logging
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from socialbench.errors import DataError
from socialbench.runner import load_snapshot
from socialbench.runner.load_snapshot import SnapshotStore, folder_signature, loaded_dataset


@dataclass(frozen=True)
class Loaded:
    root: Path
    lines: tuple[str, ...]


class Reader:
    """A benchmark whose dataset is the lines of ``data/*.txt``; counts its loads, logs a
    warning for an empty file."""

    name = "reader"
    snapshot_types: tuple[type, ...] = (Loaded,)

    def __init__(self, mode: str = "plain") -> None:
        self.mode = mode
        self.loads = 0

    def load_identity(self) -> dict[str, Any]:
        return {"mode": self.mode}

    def load(self, data: Path, *, require_images: bool, limit: int | None) -> Loaded:
        self.loads += 1
        if not data.is_dir():
            raise DataError.single(str(data), "", "no such folder", "give the dataset folder")
        lines: list[str] = []
        for f in sorted(data.glob("*.txt")):
            text = f.read_text()
            if not text:
                logging.getLogger("socialbench.tests.reader").warning("%s is empty", f.name)
            lines.extend(text.splitlines())
        return Loaded(data.resolve(), tuple(lines[:limit] if limit is not None else lines))


def _data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.txt").write_text("one\ntwo\n")
    (data / "b.txt").write_text("three\n")
    return data


def _load(bench: Reader, data: Path, cache: Path | None, **kw: Any) -> Any:
    kw.setdefault("racy_ns", 0)
    with loaded_dataset(bench, data, require_images=False, limit=kw.pop("limit", None), cache=cache, **kw) as loaded:
        return loaded


def _snapshots(cache: Path) -> list[Path]:
    return sorted((cache / "datasets").glob("*.snapshot"))


def test_a_second_load_comes_from_the_snapshot(tmp_path: Path) -> None:
    data, bench = _data(tmp_path), Reader()
    first = _load(bench, data, tmp_path / "cache")
    second = _load(bench, data, tmp_path / "cache")
    assert (bench.loads, second) == (1, first)


def test_a_changed_file_is_loaded_again(tmp_path: Path) -> None:
    data, bench = _data(tmp_path), Reader()
    _load(bench, data, tmp_path / "cache")
    (data / "b.txt").write_text("four\n")
    assert (_load(bench, data, tmp_path / "cache").lines, bench.loads) == (("one", "two", "four"), 2)


def test_an_added_file_is_loaded_again(tmp_path: Path) -> None:
    data, bench = _data(tmp_path), Reader()
    _load(bench, data, tmp_path / "cache")
    (data / "c.txt").write_text("five\n")
    assert _load(bench, data, tmp_path / "cache").lines[-1] == "five"


def test_a_stale_snapshot_is_replaced(tmp_path: Path) -> None:
    data, bench = _data(tmp_path), Reader()
    _load(bench, data, tmp_path / "cache")
    (data / "c.txt").write_text("five\n")
    _load(bench, data, tmp_path / "cache")
    _load(bench, data, tmp_path / "cache")
    assert (bench.loads, len(_snapshots(tmp_path / "cache"))) == (2, 1)


def test_racy_files_leave_no_snapshot(tmp_path: Path) -> None:
    data, bench = _data(tmp_path), Reader()
    _load(bench, data, tmp_path / "cache", racy_ns=10**18)
    assert _snapshots(tmp_path / "cache") == []


def test_another_identity_has_its_own_snapshot(tmp_path: Path) -> None:
    data = _data(tmp_path)
    _load(Reader("plain"), data, tmp_path / "cache")
    other = Reader("other")
    _load(other, data, tmp_path / "cache")
    assert (other.loads, len(_snapshots(tmp_path / "cache"))) == (1, 2)


def test_another_limit_has_its_own_snapshot(tmp_path: Path) -> None:
    data, bench = _data(tmp_path), Reader()
    _load(bench, data, tmp_path / "cache")
    assert _load(bench, data, tmp_path / "cache", limit=1).lines == ("one",)


def test_a_benchmark_without_snapshot_types_loads_every_time(tmp_path: Path) -> None:
    data, bench = _data(tmp_path), Reader()
    bench.snapshot_types = ()
    _load(bench, data, tmp_path / "cache")
    _load(bench, data, tmp_path / "cache")
    assert (bench.loads, _snapshots(tmp_path / "cache")) == (2, [])


def test_no_cache_folder_loads_every_time(tmp_path: Path) -> None:
    data, bench = _data(tmp_path), Reader()
    _load(bench, data, None)
    _load(bench, data, None)
    assert bench.loads == 2


def test_loader_warnings_are_logged_again_from_the_snapshot(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    data, bench = _data(tmp_path), Reader()
    (data / "empty.txt").write_text("")
    _load(bench, data, tmp_path / "cache")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="socialbench"):
        _load(bench, data, tmp_path / "cache")
    assert (bench.loads, [(r.name, r.getMessage()) for r in caplog.records]) == (
        1,
        [("socialbench.tests.reader", "empty.txt is empty")],
    )


def test_a_missing_folder_gets_the_loaders_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such folder"):
        _load(Reader(), tmp_path / "absent", tmp_path / "cache")


def test_a_cache_that_cannot_be_written_is_skipped(tmp_path: Path) -> None:
    data, blocker = _data(tmp_path), tmp_path / "blocker"
    blocker.write_text("a file where the cache folder would be")
    assert _load(Reader(), data, blocker).lines == ("one", "two", "three")


def _only_snapshot(cache: Path) -> Path:
    (path,) = _snapshots(cache)
    return path


def test_a_corrupt_snapshot_is_reported_and_replaced(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    data, bench = _data(tmp_path), Reader()
    _load(bench, data, tmp_path / "cache")
    path = _only_snapshot(tmp_path / "cache")
    path.write_bytes(path.read_bytes()[:-20])
    with caplog.at_level(logging.WARNING, logger="socialbench"):
        reloaded = _load(bench, data, tmp_path / "cache")
    assert (reloaded.lines, bench.loads, "unusable" in caplog.text) == (("one", "two", "three"), 2, True)
    assert _load(bench, data, tmp_path / "cache") == reloaded and bench.loads == 2


CALLED: list[str] = []


def _payload() -> None:
    CALLED.append("ran")


class _Tampered:
    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (_payload, ())


def test_a_snapshot_naming_other_code_is_refused_without_running_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data, bench = _data(tmp_path), Reader()
    _load(bench, data, tmp_path / "cache")
    path = _only_snapshot(tmp_path / "cache")
    magic, head, _ = path.read_bytes().split(b"\n", 2)
    path.write_bytes(b"\n".join([magic, head, pickle.dumps(_Tampered())]))
    with caplog.at_level(logging.WARNING, logger="socialbench"):
        loaded = _load(bench, data, tmp_path / "cache")
    assert (CALLED, loaded.lines, "_payload" in caplog.text) == ([], ("one", "two", "three"), True)


def test_the_signature_changes_with_a_file_time(tmp_path: Path) -> None:
    data = _data(tmp_path)
    before = folder_signature([data]).digest
    st = (data / "a.txt").stat()
    os.utime(data / "a.txt", ns=(st.st_atime_ns, st.st_mtime_ns - 10**9))
    assert folder_signature([data]).digest != before


def test_the_signature_leaves_out_pycache(tmp_path: Path) -> None:
    data = _data(tmp_path)
    (data / "__pycache__").mkdir()
    before = folder_signature([data]).digest
    (data / "__pycache__" / "x.pyc").write_bytes(b"written by an import")
    assert folder_signature([data]).digest == before


def test_the_store_reads_back_what_it_wrote(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path, racy_ns=0)
    sig = load_snapshot.FolderSignature("abc", 0)
    value = Loaded(tmp_path, ("x",))
    assert store.write("k", sig, value, [(30, "socialbench.x", "w")])
    assert store.read("k", sig, [Loaded]) == (value, [(30, "socialbench.x", "w")])


def test_the_store_ignores_a_snapshot_of_another_signature(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path, racy_ns=0)
    store.write("k", load_snapshot.FolderSignature("abc", 0), Loaded(tmp_path, ()), [])
    assert store.read("k", load_snapshot.FolderSignature("abd", 0), [Loaded]) is None


def test_the_snapshot_header_is_json(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path, racy_ns=0)
    store.write("k", load_snapshot.FolderSignature("abc", 0), Loaded(tmp_path, ()), [])
    _, head, _ = store.path("k").read_bytes().split(b"\n", 2)
    assert json.loads(head) == {"signature": "abc", "log": []}


def _eval(data: Path, out: Path, renders: Path, perturb: str | None = None) -> dict[str, Any]:
    from socialbench.benchmarks.options import EvalOptions
    from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
    from socialbench.models.registry import ModelOptions, create_model
    from socialbench.runner.run import RunRequest, run_eval

    req = RunRequest(
        benchmark_name="socialnav-sub",
        data=data,
        model_spec="mock:first-option",
        out=out,
        options=EvalOptions(perturb=perturb),
        show_progress=False,
        render_cache=renders,
        image_workers=0,
    )
    return run_eval(req, SocialNavSub(), create_model("mock:first-option", ModelOptions())).metrics["scores"]


@pytest.mark.parametrize("perturb", [None, "mirror"])
def test_a_rerun_of_an_eval_loads_from_the_snapshot_and_scores_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, perturb: str | None
) -> None:
    from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
    from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset

    monkeypatch.setattr(load_snapshot, "RACY_NS", 0)
    data = write_synthetic_dataset(tmp_path / "data", n_samples=2, people=[1, 2], seed=3)
    first = _eval(data, tmp_path / "a", tmp_path / "renders", perturb)
    loads: list[Path] = []
    real = SocialNavSub.load
    monkeypatch.setattr(SocialNavSub, "load", lambda self, *a, **k: loads.append(a[0]) or real(self, *a, **k))
    assert (_eval(data, tmp_path / "b", tmp_path / "renders", perturb), loads) == (first, [])


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
def test_a_snapshot_that_is_no_regular_file_is_a_miss_without_reading_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    data, bench = _data(tmp_path), Reader()
    _load(bench, data, tmp_path / "cache")
    path = _only_snapshot(tmp_path / "cache")
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)  # nobody writes: reading it would block forever
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")  # reading it whole would exhaust memory
    else:
        path.mkdir()
    with caplog.at_level(logging.WARNING, logger="socialbench"):
        loaded = _load(bench, data, tmp_path / "cache")
    assert (loaded.lines, bench.loads) == (("one", "two", "three"), 2)
    assert "not a regular file" in caplog.text


def test_a_snapshot_larger_than_the_cap_is_a_miss(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, bench = _data(tmp_path), Reader()
    _load(bench, data, tmp_path / "cache")
    monkeypatch.setattr(load_snapshot, "MAX_SNAPSHOT_BYTES", 8)
    with caplog.at_level(logging.WARNING, logger="socialbench"):
        loaded = _load(bench, data, tmp_path / "cache")
    assert (loaded.lines, bench.loads, "bytes" in caplog.text) == (("one", "two", "three"), 2, True)
