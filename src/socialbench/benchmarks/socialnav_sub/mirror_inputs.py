"""Which samples ``--perturb mirror`` can draw: a mirrored image is rendered from mirrored
tracks (:mod:`socialbench.navigation.mirror`), never made by flipping a pre-rendered
composite, whose person numbers and axis text would then read backwards. A sample shown
only through the release's composites therefore cannot be mirrored, and the run is refused
before it starts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from socialbench.errors import UsageError
from socialbench.types import Item

__all__ = ["mirror_missing", "check_mirror_inputs"]


def mirror_missing(metadata: Mapping[str, Any], mode: str) -> str | None:
    """What a sample lacks to be drawn mirrored in image ``mode`` (its tracks; odometry for
    the BEV modes; raw frames for the front-view modes), or None when it has it all."""
    if not metadata.get("tracks_path"):
        return "no pedestrian tracks"
    if mode != "img" and not metadata.get("odometry_path"):
        return "no odometry (traj_data.pkl)"
    if mode != "bev" and not all(Path(f).is_file() for f in metadata.get("frames") or ()):
        return "no raw frames"
    return None


def check_mirror_inputs(items: Sequence[Item], mode: str) -> None:
    """Refuse ``--perturb mirror`` when a sample can be shown only through its pre-rendered
    composites: a mirrored image is drawn from mirrored tracks, since flipping a composite's
    pixels would mirror its person numbers and axis text too (:class:`UsageError`, one line)."""
    missing = [(it.item_id, why) for it in items if (why := mirror_missing(it.metadata, mode)) is not None]
    if missing:
        sid, why = missing[0]
        raise UsageError(
            f"--perturb mirror --images {mode} draws the mirrored images from the tracks, odometry and raw "
            f"frames (flipping the composites would mirror their numbers and axis text), but {len(missing)} "
            f"sample(s) lack them (e.g. {sid}: {why}); add them, or leave out --perturb mirror"
        )
