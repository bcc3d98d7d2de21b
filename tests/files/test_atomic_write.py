"""write_bytes_atomic: the new bytes or the old file, never a part and never a stray temp file."""

from pathlib import Path

import pytest

from socialbench.files.atomic_write import write_bytes_atomic


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
