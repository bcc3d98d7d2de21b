"""The waypoint task's options (``--images``, ``--context``)."""

from __future__ import annotations

from dataclasses import dataclass

from socialbench.benchmarks.options import option, slug, with_perturbation
from socialbench.navigation.image_modes import IMAGE_MODES


@dataclass(frozen=True)
class WaypointOptions:
    """Which images the clip shows and which scene context the prompt adds."""

    images: str = option("img-with-bev", choices=IMAGE_MODES, help="what each image shows")
    context: str = option(
        "none", detail=True, label="context={value}", help="scene context: none | random | human-oracle | model:RUN_DIR"
    )

    def variant(self, perturbation: str | None = None) -> str:
        """``independent-IMAGES``, the perturbation, then ``-context-CONTEXT``."""
        name = with_perturbation(f"independent-{self.images}", perturbation)
        return name + ("-context-" + slug(self.context) if self.context != "none" else "")
