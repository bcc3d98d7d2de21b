"""Folders written whole or not at all (the survey folder, the dataset's human_labels)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from socialbench.construction.socialnav_survey import staging, write
from socialbench.construction.socialnav_survey.staging import discard, publish, staging_folder, write_staged
from socialbench.testing.label_studio_survey import fake_export, plan


def _stage(target: Path, text: str) -> Path:
    stage = staging_folder(target)
    write_staged(stage, "a/file.txt", text.encode())
    return stage


def test_publish_puts_the_staged_folder_in_place(tmp_path: Path) -> None:
    target = tmp_path / "out"
    publish(_stage(target, "new"), target)
    assert (target / "a" / "file.txt").read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_publish_keeps_the_previous_folder_when_asked(tmp_path: Path) -> None:
    target = tmp_path / "out"
    publish(_stage(target, "old"), target)
    publish(_stage(target, "new"), target, previous=tmp_path / "kept")
    assert (target / "a" / "file.txt").read_text() == "new"
    assert (tmp_path / "kept" / "a" / "file.txt").read_text() == "old"


def test_publish_replaces_the_previous_folder_otherwise(tmp_path: Path) -> None:
    target = tmp_path / "out"
    publish(_stage(target, "old"), target)
    publish(_stage(target, "new"), target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_staging_folder_left_by_a_stopped_run_is_removed_by_the_next(tmp_path: Path) -> None:
    target = tmp_path / "out"
    left = _stage(target, "half")
    publish(_stage(target, "new"), target)
    assert not left.exists()


def test_discard_removes_the_staging_folder(tmp_path: Path) -> None:
    stage = _stage(tmp_path / "out", "x")
    discard(stage)
    assert list(tmp_path.iterdir()) == []


def test_an_import_that_fails_while_writing_leaves_the_labels_as_they_were(exported, data, tmp_path, monkeypatch):
    _, tasks = exported
    export = tmp_path / "export.json"
    export.write_text(json.dumps(fake_export(tasks, plan(tasks, 4))))
    before = {p: p.read_bytes() for p in (data / "human_labels").rglob("*") if p.is_file()}
    calls = {"n": 0}
    real = staging.write_staged

    def failing(stage: Path, rel: str, payload: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        real(stage, rel, payload)

    monkeypatch.setattr(write, "write_staged", failing)
    with pytest.raises(OSError):
        write.import_answers(data, [export])
    assert {p: p.read_bytes() for p in (data / "human_labels").rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in data.iterdir() if "human_labels" in p.name) == ["human_labels"]
