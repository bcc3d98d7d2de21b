"""Which people a SocialNav-SUB sample shows, and their numbers, as the official prompt
builder decides (reference §c): :func:`keep_track` is its keep-filter and
:func:`assign_labels` numbers the kept tracks 1..N by the left edge (x1) of their first
bounding box, left to right."""

from __future__ import annotations

import math
from collections.abc import Mapping

from socialbench.navigation.tracks import N_FRAMES, PersonTrack


def keep_track(track: PersonTrack, n_frames: int = N_FRAMES) -> bool:
    """The official keep-filter (reference §c).

    Kept if (-5 <= min y <= 5 and 0 <= min x <= 10 and seen in >= n_frames // 3 timesteps)
    or (-3 <= min y <= 3 and 0 <= min x <= 5). ``min x`` / ``min y`` are minima over the
    track (not distances), as in the official code.
    """
    xs = [o.x for o in track.observations]
    ys = [o.y for o in track.observations]
    if not xs:
        return False
    mx, my = min(xs), min(ys)
    wide = -5.0 <= my <= 5.0 and 0.0 <= mx <= 10.0 and len(xs) >= n_frames // 3
    near = -3.0 <= my <= 3.0 and 0.0 <= mx <= 5.0
    return wide or near


def filter_tracks(tracks: Mapping[str, PersonTrack], n_frames: int = N_FRAMES) -> dict[str, PersonTrack]:
    """The tracks that pass :func:`keep_track`, in their original order."""
    return {tid: tr for tid, tr in tracks.items() if keep_track(tr, n_frames)}


def assign_labels(tracks: Mapping[str, PersonTrack]) -> dict[str, int]:
    """Person numbers 1..N by the x1 of each track's first bounding box, left to right.

    Ties keep the tracks' order in ``tracks``; tracks whose first observation has no bbox
    come last. Pass the *kept* tracks (:func:`filter_tracks`).
    """

    def key(item: tuple[int, PersonTrack]) -> tuple[float, int]:
        idx, tr = item
        bbox = tr.first.bbox
        return (bbox[0] if bbox is not None else math.inf, idx)

    order = sorted(enumerate(tracks.values()), key=key)
    return {tr.track_id: n for n, (_, tr) in enumerate(order, start=1)}


def label_people(tracks: Mapping[str, PersonTrack], n_frames: int = N_FRAMES) -> dict[int, PersonTrack]:
    """Filter with :func:`keep_track`, number with :func:`assign_labels`: ``{label: track}``
    sorted by label. These are the "person i" of the questions."""
    kept = filter_tracks(tracks, n_frames)
    labels = assign_labels(kept)
    return {labels[tid]: kept[tid] for tid in sorted(kept, key=lambda t: labels[t])}
