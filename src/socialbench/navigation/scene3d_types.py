"""The value types of a simulated front-camera scene (:mod:`socialbench.navigation.scene3d`):
how a person looks, a scene type's colours, a person to draw, and what a detector sees."""

from __future__ import annotations

from dataclasses import dataclass

RGB = tuple[int, int, int]
BBox = tuple[float, float, float, float]


@dataclass(frozen=True)
class Appearance:
    """How a person is drawn: body height and width (metres) and clothing and skin colours."""

    height: float = 1.7
    width: float = 0.5
    shirt: RGB = (200, 55, 50)
    trousers: RGB = (40, 45, 70)
    skin: RGB = (225, 180, 140)


@dataclass(frozen=True)
class Palette:
    """Colours of one scene type."""

    sky_top: RGB
    sky_bottom: RGB
    ground: RGB
    grid: RGB
    wall: RGB = (190, 185, 175)
    wall_line: RGB = (150, 145, 138)


PALETTES: dict[str, Palette] = {
    "corridor": Palette((205, 205, 200), (225, 222, 215), (160, 150, 135), (142, 133, 119)),
    "crossing": Palette((120, 165, 215), (190, 210, 230), (95, 95, 100), (122, 122, 124)),
    "plaza": Palette((110, 160, 220), (185, 210, 235), (175, 165, 145), (152, 143, 126)),
}


@dataclass(frozen=True)
class PersonView:
    """One person to draw: position (initial robot frame), look and gait phase (radians)."""

    x: float
    y: float
    appearance: Appearance = Appearance()
    phase: float = 0.0
    walking: bool = True


@dataclass(frozen=True)
class Detection:
    """What a detector sees of one person at one timestep.

    ``bbox`` is in native camera pixels, clipped to the image (None when the person is not in
    front of the camera); ``visible_fraction`` is the share of the person's in-image
    silhouette not hidden by nearer people; ``in_view`` is the share of the box width inside
    the image; ``depth`` the camera-frame distance (m)."""

    bbox: BBox | None
    visible_fraction: float
    in_view: float
    depth: float
