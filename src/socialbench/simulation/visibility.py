"""Who a tracker sees: the simulator's detection rule and the §7.2-style selection score.

One rule for both simulators (``sim socialnav`` and ``sim recording``): a person counts as
seen when :data:`MIN_DEPTH_M`-:data:`MAX_DEPTH_M` in front of the camera, with at least
:data:`MIN_IN_VIEW` of the box inside the image and :data:`MIN_VISIBLE` of the silhouette
unoccluded (docs/benchmarks.md). The score weights are socialbench's (the paper, App. 7.2,
names the features but not the weights): used by the simulator's sample metadata and as the
defaults of ``build socialnav``'s scenario mining."""

from __future__ import annotations

from socialbench.navigation.scene3d_types import Detection

__all__ = ["MIN_DEPTH_M", "MAX_DEPTH_M", "MIN_IN_VIEW", "MIN_VISIBLE", "SCORE_WEIGHTS", "CLOSE_M", "seen"]

MIN_DEPTH_M, MAX_DEPTH_M = 0.7, 14.0
MIN_IN_VIEW = 0.3
MIN_VISIBLE = 0.35
#: Weights of the §7.2-style selection score (the paper does not publish its weights).
SCORE_WEIGHTS = {"crowd_size": 1.0, "n_close": 1.5, "lateral_motion_m": 2.0}
#: "Close proximity": distance to the robot at most this, at some frame (metres).
CLOSE_M = 2.0


def seen(det: Detection) -> bool:
    """Whether the tracker sees the person of ``det``."""
    return (
        det.bbox is not None
        and MIN_DEPTH_M <= det.depth <= MAX_DEPTH_M
        and det.in_view >= MIN_IN_VIEW
        and det.visible_fraction >= MIN_VISIBLE
    )
