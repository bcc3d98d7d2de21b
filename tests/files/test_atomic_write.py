"""atomic_write: the new bytes or the old file, never a part, never a stray temp file, never
through a symbolic link."""

import os
from pathlib import Path

import pytest

from socialbench.errors import StorageError
from socialbench.files.atomic_write import (
    LinkRefused,
    ensure_folder,
    open_append,
    open_lock,
    truncate_file,
    write_bytes_atomic,
)


def test_writes_the_bytes_creating_parent_folders(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "f.bin"
    write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"new" and sorted(p.name for p in target.parent.iterdir()) == ["f.bin"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.bin"
    target.write_bytes(b"old")

    def full_disk(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("socialbench.files.atomic_write.os.replace", full_disk)
    with pytest.raises(OSError):
        write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["f.bin"]


# never through a symbolic link -------------------------------------------------------------


def outside_file(tmp_path: Path) -> Path:
    p = tmp_path / "outside.txt"
    p.write_bytes(b"precious")
    return p


def test_a_linked_file_under_root_is_refused_and_its_target_kept(tmp_path: Path) -> None:
    target = outside_file(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "f.json").symlink_to(target)
    with pytest.raises(LinkRefused) as e:
        write_bytes_atomic(out / "f.json", b"new", root=out)
    assert str(out / "f.json") in str(e.value) and "fix:" in str(e.value) and "\n" not in str(e.value)
    assert target.read_bytes() == b"precious" and (out / "f.json").is_symlink()


def test_a_linked_folder_under_root_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "report").symlink_to(elsewhere)
    with pytest.raises(LinkRefused):
        write_bytes_atomic(out / "report" / "tables" / "t.md", b"x", root=out)
    assert list(elsewhere.iterdir()) == []


def test_ensure_folder_creates_each_step_below_root(tmp_path: Path) -> None:
    assert ensure_folder(tmp_path, tmp_path / "a" / "b").is_dir()


def test_ensure_folder_refuses_a_file_on_the_way(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("x")
    with pytest.raises(StorageError):
        ensure_folder(tmp_path, tmp_path / "a" / "b")


def test_a_planted_tmp_link_is_never_opened(tmp_path: Path) -> None:
    target = outside_file(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "f.json.tmp").symlink_to(target)
    write_bytes_atomic(out / "f.json", b"new", root=out)
    assert (out / "f.json").read_bytes() == b"new" and target.read_bytes() == b"precious"


def test_open_append_refuses_a_link(tmp_path: Path) -> None:
    target = outside_file(tmp_path)
    (tmp_path / "log").symlink_to(target)
    with pytest.raises(LinkRefused):
        open_append(tmp_path / "log")
    assert target.read_bytes() == b"precious"


def test_open_append_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "log")
    with pytest.raises(StorageError) as e:
        open_append(tmp_path / "log")
    assert "not a regular file" in str(e.value)


def test_open_lock_neither_follows_nor_truncates(tmp_path: Path) -> None:
    target = outside_file(tmp_path)
    (tmp_path / ".lock").symlink_to(target)
    with pytest.raises(LinkRefused):
        open_lock(tmp_path / ".lock")
    assert target.read_bytes() == b"precious"
    (tmp_path / "own.lock").write_bytes(b"pid")
    os.close(open_lock(tmp_path / "own.lock"))
    assert (tmp_path / "own.lock").read_bytes() == b"pid"


def test_truncate_file_refuses_a_link(tmp_path: Path) -> None:
    target = outside_file(tmp_path)
    (tmp_path / "s").symlink_to(target)
    with pytest.raises(LinkRefused):
        truncate_file(tmp_path / "s", 0)
    assert target.read_bytes() == b"precious"
