"""How close the built tracks are to the truth (when a simulated recording's true tracks are
given): per frame, estimated and true people are paired nearest first within
:data:`GATE_M`; each estimated track takes the true person it was paired with most often.

* ``ade_m``: mean distance between each estimated observation and its track's true person
  (the paper's ADE, App. 7.3: 0.67 ± 0.14 m on CODa);
* ``recovered_share``: true people the tracker should show (seen by the simulated tracker
  and passing the release's keep-filter on their true positions) that some labelled track
  follows;
* ``id_switches``: per true person, how often the paired estimated track changes between
  frames (CLEAR-MOT's IDSW, counted within each scenario)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from socialbench.navigation.track_labels import keep_track
from socialbench.navigation.tracks import N_FRAMES, Observation, PersonTrack

__all__ = ["GATE_M", "SampleQuality", "match_sample"]

GATE_M = 2.0


@dataclass
class SampleQuality:
    assignment: dict[str, str]  # estimated track id -> true person id
    errors: list[float] = field(default_factory=list)
    expected: int = 0
    recovered: int = 0
    id_switches: int = 0
    false_tracks: int = 0

    @property
    def ade_m(self) -> float | None:
        return float(np.mean(self.errors)) if self.errors else None


def match_sample(
    est: Mapping[str, PersonTrack], truth_xy: Mapping[str, np.ndarray], truth_visible: Mapping[str, np.ndarray]
) -> SampleQuality:
    """``est``: labelled, smoothed tracks (timesteps 0..9, sample frame); ``truth_xy``:
    ``(10, 2)`` true positions per person in the same frame (NaN: absent); ``truth_visible``:
    ``(10,)`` seen flags."""
    pairs: dict[int, dict[str, str]] = {}  # t -> est id -> true id
    for t in range(N_FRAMES):
        cand = []
        for eid, tr in est.items():
            o = next((o for o in tr.observations if o.timestep == t), None)
            if o is None:
                continue
            for pid, xy in truth_xy.items():
                if np.isfinite(xy[t]).all():
                    d = float(np.hypot(o.x - xy[t, 0], o.y - xy[t, 1]))
                    if d <= GATE_M:
                        cand.append((d, eid, pid))
        used_e: set[str] = set()
        used_p: set[str] = set()
        for _d, eid, pid in sorted(cand):
            if eid in used_e or pid in used_p:
                continue
            used_e.add(eid)
            used_p.add(pid)
            pairs.setdefault(t, {})[eid] = pid
    votes: dict[str, Counter[str]] = {}
    for m in pairs.values():
        for eid, pid in m.items():
            votes.setdefault(eid, Counter())[pid] += 1
    assignment = {eid: c.most_common(1)[0][0] for eid, c in votes.items()}
    q = SampleQuality(assignment)
    for eid, tr in est.items():
        match = assignment.get(eid)
        if match is None:
            q.false_tracks += 1
            continue
        for o in tr.observations:
            xy = truth_xy[match][o.timestep]
            if np.isfinite(xy).all():
                q.errors.append(float(np.hypot(o.x - xy[0], o.y - xy[1])))
    followed = set(assignment.values())
    for pid, xy in truth_xy.items():
        vis = truth_visible[pid] & np.isfinite(xy).all(axis=1)
        steps = np.flatnonzero(vis)
        if not len(steps):
            continue
        tr = PersonTrack(pid, tuple(Observation(int(t), float(xy[t, 0]), float(xy[t, 1])) for t in steps))
        if keep_track(tr):
            q.expected += 1
            q.recovered += pid in followed
        last = None
        for t in range(N_FRAMES):
            cur = next((e for e, p in pairs.get(t, {}).items() if p == pid), None)
            if cur is not None:
                if last is not None and cur != last:
                    q.id_switches += 1
                last = cur
    return q
