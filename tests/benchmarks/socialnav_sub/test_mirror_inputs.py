"""What each image mode needs to be drawn mirrored: tracks always, odometry for the BEV,
raw frames for the front view."""

from pathlib import Path

import pytest

from socialbench.benchmarks.socialnav_sub.mirror_inputs import check_mirror_inputs, mirror_missing
from socialbench.errors import UsageError
from socialbench.types import Item


def metadata(tmp_path: Path, *, tracks: bool = True, odometry: bool = True, frames: bool = True) -> dict:
    """A sample's metadata in a folder of its own (its frames written only if ``frames``)."""
    folder = tmp_path / f"t{int(tracks)}o{int(odometry)}f{int(frames)}"
    folder.mkdir()
    paths = [folder / f"{t}.jpg" for t in range(10)]
    if frames:
        for p in paths:
            p.write_bytes(b"")
    return {
        "tracks_path": str(folder / "tracks.json") if tracks else None,
        "odometry_path": str(folder / "traj_data.pkl") if odometry else None,
        "frames": [str(p) for p in paths],
    }


@pytest.mark.parametrize("mode", ["img-with-bev", "img", "bev"])
def test_a_sample_with_everything_can_be_mirrored(tmp_path, mode):
    assert mirror_missing(metadata(tmp_path), mode) is None


@pytest.mark.parametrize("mode", ["img-with-bev", "img", "bev"])
def test_no_mode_is_mirrored_without_tracks(tmp_path, mode):
    assert mirror_missing(metadata(tmp_path, tracks=False), mode) == "no pedestrian tracks"


def test_the_bev_needs_odometry_but_no_frames(tmp_path):
    assert mirror_missing(metadata(tmp_path, frames=False), "bev") is None
    assert mirror_missing(metadata(tmp_path, odometry=False), "bev") == "no odometry (traj_data.pkl)"


def test_the_front_view_needs_frames_but_no_odometry(tmp_path):
    assert mirror_missing(metadata(tmp_path, odometry=False), "img") is None
    assert mirror_missing(metadata(tmp_path, frames=False), "img") == "no raw frames"


def test_the_refusal_counts_the_samples_and_names_the_first(tmp_path):
    items = [Item("s1", (), {}, metadata(tmp_path)), Item("s2", (), {}, metadata(tmp_path, odometry=False))]
    with pytest.raises(UsageError, match=r"but 1 sample\(s\) lack them \(e\.g\. s2: no odometry"):
        check_mirror_inputs(items, "img-with-bev")
