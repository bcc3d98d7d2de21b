"""The picklable job that renders and encodes one SocialNav-SUB sample's prompt images.

Runs in an image worker (:class:`socialbench.vision.prepare.ImagePreparer`). Without a
perturbation it draws at the size that will be sent; with one it renders at full size,
perturbs, then resizes, so a perturbation's strength keeps its meaning in native pixels.
``mirror`` renders from mirrored tracks; the pixel-flipping ``mirror`` perturbation is
refused here (it would mirror the drawn numbers and axis text too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from socialbench.types import EncodedImage
from socialbench.vision.images import ImagePolicy, prepare_image
from socialbench.vision.prepare import PerturbSpec
from socialbench.vision.render_cache import render_key

#: The metadata keys a render reads (see :func:`socialbench.navigation.frames.load_scene`).
_SCALAR_KEYS = ("n_people", "first_frame", "goal_xy", "sample_dir")


@dataclass(frozen=True)
class RenderSample:
    """Render ``mode`` images of one sample from its item ``metadata`` (paths and numbers)."""

    metadata: Mapping[str, Any] = field(hash=False)
    mode: str
    policy: ImagePolicy
    perturb: PerturbSpec | None = None
    official_offset: bool = False
    bbox_space: tuple[int, int] = (1280, 720)
    mirror: bool = False  # draw the mirrored scene (y -> -y, frames flipped, labels upright)

    def __post_init__(self) -> None:
        if self.perturb is not None and self.perturb.name == "mirror":
            raise ValueError(
                "RenderSample: a pixel-flip mirror would mirror the drawn numbers and axis text; "
                "pass mirror=True (and no mirror perturbation) to draw the mirrored scene"
            )

    @classmethod
    def of(
        cls, metadata: Mapping[str, Any], mode: str, policy: ImagePolicy, perturb: PerturbSpec | None = None, **kw: Any
    ) -> RenderSample:
        """A job carrying only the metadata a render reads."""
        keep = {k: metadata.get(k) for k in (*_SCALAR_KEYS, "tracks_path", "odometry_path", "frames")}
        keep["frames"] = list(keep["frames"] or ())
        return cls(keep, mode, policy, perturb, **kw)

    def _max_side(self) -> int:
        return 0 if self.perturb is not None else self.policy.max_side

    def cache_key(self) -> str | None:
        m = self.metadata
        files = [m.get("tracks_path"), m.get("odometry_path") if self.mode != "img" else None]
        if self.mode != "bev":
            files += list(m.get("frames") or ())
        params = {
            "mode": self.mode,
            "policy": self.policy.describe(),
            "perturb": self.perturb and self.perturb.describe(),
            "official_offset": self.official_offset,
            "bbox_space": list(self.bbox_space),
            "draw_max_side": self._max_side(),
            "n_people": m.get("n_people"),
            "first_frame": m.get("first_frame"),
            "goal_xy": m.get("goal_xy"),
        }
        if self.mirror:  # only then: the keys of unmirrored renders stay as they were
            params["mirror"] = True
        return render_key("socialnav-render", params, files)

    def run(self) -> tuple[EncodedImage, ...]:
        from socialbench.navigation.render import render_sample

        transform = self.perturb.transform() if self.perturb is not None else None
        rendered = render_sample(
            self.metadata,
            self.mode,
            official_offset=self.official_offset,
            bbox_space=self.bbox_space,
            max_side=self._max_side(),
            mirror=self.mirror,
        )
        return tuple(prepare_image(img, self.policy, transform) for img in rendered)
