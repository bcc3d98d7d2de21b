"""Resolving RobotEQ ``--data``: a local folder, or a hub snapshot via huggingface_hub."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from socialbench.benchmarks.roboteq.hub import resolve_data
from socialbench.errors import UsageError


def test_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        resolve_data(tmp_path / "nope")


def test_hub_id_without_huggingface_hub_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # import fails as if not installed
    with pytest.raises(UsageError, match=r"socialbench\[hub\]"):
        resolve_data("Tongji-Emotion/Robot-EQ")


def test_hub_download_failure_offline_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("huggingface_hub")

    def snapshot_download(**kwargs: object) -> str:
        raise OSError("offline: cannot reach huggingface.co")

    fake.snapshot_download = snapshot_download  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "huggingface_hub", fake)
    with pytest.raises(UsageError, match="--local-dir DIR"):
        resolve_data("hf://Tongji-Emotion/Robot-EQ")


def test_hub_snapshot_folder_is_used(monkeypatch: pytest.MonkeyPatch, release: Path) -> None:
    fake = types.ModuleType("huggingface_hub")
    seen: dict[str, object] = {}

    def snapshot_download(**kwargs: object) -> str:
        seen.update(kwargs)
        return str(release)

    fake.snapshot_download = snapshot_download  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "huggingface_hub", fake)
    assert resolve_data("Tongji-Emotion/Robot-EQ") == release
    assert seen == {"repo_id": "Tongji-Emotion/Robot-EQ", "repo_type": "dataset"}
