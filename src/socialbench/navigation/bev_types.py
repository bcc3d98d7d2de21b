"""The BEV's value types: drawing style, axis limits and one person's pose (see
:mod:`socialbench.navigation.bev`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BevStyle:
    """BEV settings (official values). Lower ``dpi`` renders faster at lower resolution;
    everything scales with it."""

    size_in: float = 7.0
    dpi: float = 300
    markersize: float = 20.0
    fontsize: float = 15.0
    arrow_width: float = 0.1
    arrow_length: float = 0.5


@dataclass(frozen=True)
class BevLimits:
    """Axis limits in metres (x forward, y left)."""

    x_min: float = 0.0
    x_max: float = 10.0
    y_min: float = -5.0
    y_max: float = 5.0


@dataclass(frozen=True)
class BevPerson:
    """One person in one BEV: position and heading (radians; ``None`` = no arrow)."""

    x: float
    y: float
    heading: float | None = None
