"""The on-disk tracks file of a SocialNav-SUB sample, ``<S>_localized_obj_coords.json``::

    {"track_id_to_object_trajectory": {
        "<tracker id>": [{"center_x": .., "center_y": .., "yaw": .., "timestep": 0,
                          "bbox": [x1, y1, x2, y2], "pos_diff": ..}, ...], ...}}

``yaw`` is ignored (recomputed from successive positions, as the official code does);
``pos_diff`` only decides whether the BEV draws a heading arrow.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TypedDict

from socialbench.errors import DataError, Problem
from socialbench.files.safe_read import file_kind, read_json
from socialbench.navigation.tracks import BBox, Observation, PersonTrack


class TrackRow(TypedDict):
    """One observation of a track in the file."""

    center_x: float
    center_y: float
    yaw: float | None
    timestep: int
    bbox: list[float] | None
    pos_diff: float


class TracksDocument(TypedDict):
    """The whole tracks file: rows per tracker id."""

    track_id_to_object_trajectory: dict[str, list[TrackRow]]


def _num(v: object) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:  # an int too large for a float
        return None
    return f if math.isfinite(f) else None


def parse_tracks(data: object, source: str = "<tracks>") -> dict[str, PersonTrack]:
    """Build tracks from the parsed JSON object; raises :class:`DataError` listing every
    malformed entry. A repeated timestep within a track keeps the last observation."""
    top = "track_id_to_object_trajectory"
    if not isinstance(data, Mapping) or not isinstance(data.get(top), Mapping):
        raise DataError.single(
            source,
            top,
            "missing or not an object",
            f'the file must be {{"{top}": {{"<track id>": [observations...]}}}}',
        )
    problems: list[Problem] = []
    tracks: dict[str, PersonTrack] = {}
    for tid, obs_list in data[top].items():
        where = f"{top}.{tid}"
        if not isinstance(obs_list, list):
            problems.append(Problem(source, where, "must be a list of observations"))
            continue
        by_step: dict[int, Observation] = {}
        for k, o in enumerate(obs_list):
            f = f"{where}[{k}]"
            if not isinstance(o, Mapping):
                problems.append(Problem(source, f, "observation must be an object"))
                continue
            x, y = _num(o.get("center_x")), _num(o.get("center_y"))
            ts = o.get("timestep")
            if x is None or y is None:
                problems.append(
                    Problem(
                        source,
                        f,
                        "center_x / center_y must be finite numbers",
                        "give metres forward / left in the initial robot frame",
                    )
                )
                continue
            if isinstance(ts, bool) or not isinstance(ts, (int, float)) or _num(ts) is None or int(ts) != ts or ts < 0:
                problems.append(Problem(source, f + ".timestep", f"must be an integer >= 0, got {ts!r}"))
                continue
            bbox_raw = o.get("bbox")
            bbox: BBox | None = None
            if bbox_raw is not None:
                vals = [_num(b) for b in bbox_raw] if isinstance(bbox_raw, list) else []
                nums = [v for v in vals if v is not None]
                if len(vals) != 4 or len(nums) != 4:
                    problems.append(Problem(source, f + ".bbox", "must be [x1, y1, x2, y2] numbers"))
                    continue
                bbox = (nums[0], nums[1], nums[2], nums[3])
            pd = _num(o.get("pos_diff"))
            by_step[int(ts)] = Observation(int(ts), x, y, bbox, pd if pd is not None else 0.0)
        if by_step:
            tracks[str(tid)] = PersonTrack(str(tid), tuple(by_step[s] for s in sorted(by_step)))
    if problems:
        raise DataError(problems)
    return tracks


def load_tracks(path: str | Path) -> dict[str, PersonTrack]:
    """Read ``<S>_localized_obj_coords.json``; tracks keyed by tracker id, in file order."""
    p = Path(path)
    if file_kind(p) == "missing":
        raise DataError.single(p, "", "tracks file not found", "check the sample's prompts/<S>/ folder")
    return parse_tracks(read_json(p), str(p))  # regular files only; strict JSON


def tracks_to_json(tracks: Iterable[PersonTrack]) -> TracksDocument:
    """The release's JSON object for ``tracks`` (inverse of :func:`parse_tracks`).

    ``yaw`` is written as the recomputed direction of motion."""
    out: dict[str, list[TrackRow]] = {}
    for tr in tracks:
        rows: list[TrackRow] = []
        for o in tr.observations:
            rows.append(
                {
                    "center_x": o.x,
                    "center_y": o.y,
                    "yaw": tr.heading(o.timestep),
                    "timestep": o.timestep,
                    "bbox": list(o.bbox) if o.bbox is not None else None,
                    "pos_diff": o.pos_diff,
                }
            )
        out[tr.track_id] = rows
    return {"track_id_to_object_trajectory": out}


def write_tracks(path: str | Path, tracks: Iterable[PersonTrack]) -> None:
    """Write ``tracks`` in the release format (sorted keys, 2-space indent: stable bytes)."""
    Path(path).write_text(json.dumps(tracks_to_json(tracks), indent=2, sort_keys=True) + "\n", encoding="utf-8")
