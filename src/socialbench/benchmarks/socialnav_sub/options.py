"""SocialNav-SUB's options (``--method``, ``--images``)."""

from __future__ import annotations

from dataclasses import dataclass

from socialbench.benchmarks.options import option, with_perturbation
from socialbench.navigation.image_modes import IMAGE_MODES

METHODS = ("independent", "cot", "cot-gt", "scene-context")


@dataclass(frozen=True)
class SocialNavOptions:
    """How SocialNav-SUB's questions are asked and which images they show."""

    method: str = option("independent", choices=METHODS, help="how the questions of a sample are asked")
    images: str = option("img-with-bev", choices=IMAGE_MODES, help="what each image shows")

    def variant(self, perturbation: str | None = None) -> str:
        """``METHOD-IMAGES`` (``cot-img-with-bev``), then the perturbation."""
        return with_perturbation(f"{self.method}-{self.images}", perturbation)
