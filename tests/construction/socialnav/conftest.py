"""A small simulated recording shared by the build tests (read-only)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("rosbags", reason="rosbags (optional extra record) is not installed")


@pytest.fixture(scope="session")
def small_recording(tmp_path_factory) -> Path:
    """Three simulated scenes at 10 Hz, 320x180 frames: REC/recording.mcap, boxes.txt, truth/."""
    from socialbench.simulation.recording import simulate_recording

    return simulate_recording(tmp_path_factory.mktemp("rec") / "rec", scenes=3, seed=3, frame_size=(320, 180))
