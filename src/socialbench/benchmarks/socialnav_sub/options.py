"""SocialNav-SUB's options (``--method``, ``--images``, ``--gt-without-obstruction``) and
which methods answer some questions without the model."""

from __future__ import annotations

from dataclasses import dataclass

from socialbench.benchmarks.options import option, with_perturbation
from socialbench.navigation.image_modes import IMAGE_MODES

METHODS = ("independent", "cot", "cot-gt", "scene-context")

#: Methods that answer the spatial and spatiotemporal questions without the model, and the
#: ``parse_method`` their records carry.
GIVEN_BY = {"cot-gt": "human-mode", "scene-context": "rule-based"}
#: Record sources that are not the model's answers (left out of consistency scores and of
#: the model's failure rates).
GIVEN_SOURCES = frozenset(GIVEN_BY.values())

#: The question whose ground truth ``--gt-without-obstruction`` withholds: "Person Goal
#: Obstruction" (paper §7.9: it "may provide sufficient information for the VLM to easily
#: answer the 'Robot Affected By Person' question"). "Person End Goal Obstruction"
#: (``q_obstructing_end_position``) is another question and keeps its ground truth.
OBSTRUCTION_QUESTION = "q_obstructing_path"


@dataclass(frozen=True)
class SocialNavOptions:
    """How SocialNav-SUB's questions are asked and which images they show."""

    method: str = option("independent", choices=METHODS, help="how the questions of a sample are asked")
    images: str = option("img-with-bev", choices=IMAGE_MODES, help="what each image shows")
    gt_without_obstruction: bool = option(
        False,
        when=("method", "cot-gt"),
        label="no goal-obstruction GT",
        help="--method cot-gt: the model answers Person Goal Obstruction itself (its ground truth is not fed forward; paper §7.9)",
    )

    def variant(self, perturbation: str | None = None) -> str:
        """``METHOD-IMAGES`` (``cot-img-with-bev``; ``cot-gt-no-obstruction-img`` with
        ``--gt-without-obstruction``), then the perturbation."""
        method = self.method + ("-no-obstruction" if self.gt_without_obstruction else "")
        return with_perturbation(f"{method}-{self.images}", perturbation)

    def given_by(self, base_key: str) -> str | None:
        """Who answers question ``base_key`` (a spatial or spatiotemporal one) instead of the
        model under this method (``human-mode``, ``rule-based``), or None: the model does."""
        source = GIVEN_BY.get(self.method)
        if source is None or (self.gt_without_obstruction and base_key == OBSTRUCTION_QUESTION):
            return None
        return source
