"""The RobotEQ data model: label and option vocabularies, task and file names, limits, and
the records one label-file row becomes (:class:`JudgmentScene`, :class:`GroundingQuestion`).

Shared by the readers (:mod:`~socialbench.benchmarks.roboteq.rows`), the canonical writer
(:mod:`~socialbench.benchmarks.roboteq.write`), the prompts and the construction pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "FACETS",
    "LABELS",
    "LETTERS",
    "SUBSETS",
    "MAX_IMAGE_PIXELS",
    "MAX_VOTE_COUNT",
    "MAX_BEHAVIOR_NUMBER",
    "TASK_BJ",
    "TASK_SG",
    "CANONICAL_FILE",
    "METADATA_NAMES",
    "ID_FIELDS",
    "normalise_label",
    "normalise_subset",
    "Behavior",
    "JudgmentScene",
    "GroundingQuestion",
]

#: The seven social facets of RobotEQ (paper §4.5, Table 6).
FACETS = ("safety", "privacy", "proxemics", "cooperation", "politeness", "priority", "sensitivity")
#: Behavior-judgment labels, in answer order.
LABELS = ("proper", "improper")
#: Spatial-grounding options (regions drawn on the image).
LETTERS = ("A", "B", "C", "D")
SUBSETS = ("synthetic", "real")
#: Largest image (width x height) validate accepts: 64 Mpx, below Pillow's bomb warning.
MAX_IMAGE_PIXELS = 64 * 1024 * 1024
#: Largest per-label vote count of one behavior (annotators; scoring loops over every vote).
MAX_VOTE_COUNT = 10_000
#: Largest behavior number ``k`` (the ``[k]`` of a label line, ``k`` of a canonical row).
MAX_BEHAVIOR_NUMBER = 999_999_999

_LABEL_ALIASES = {
    "proper": "proper",
    "improper": "improper",
    "该做": "proper",  # the Chinese release wording ("should do")
    "不该做": "improper",  # ("should not do")
}
_SUBSET_ALIASES = {
    "synthetic": "synthetic",
    "syn": "synthetic",
    "generated": "synthetic",
    "real": "real",
    "real-world": "real",
    "real_world": "real",
}

CANONICAL_FILE = "roboteq.jsonl"
METADATA_NAMES = ("metadata.jsonl", "metadata.csv")
TASK_BJ = "behavior_judgment"
TASK_SG = "spatial_grounding"
#: Fields that may hold a row's explicit id, in order of preference.
ID_FIELDS = ("id", "scene_id", "question_id", "sample_id")


def normalise_label(value: object) -> str | None:
    """``"proper"`` / ``"improper"`` for a label in any case (or the Chinese wording), else None."""
    if not isinstance(value, str):
        return None
    return _LABEL_ALIASES.get(value.strip().strip(".").casefold())


def normalise_subset(value: object) -> str | None:
    """``"synthetic"`` / ``"real"`` for a known spelling, else None."""
    if not isinstance(value, str):
        return None
    return _SUBSET_ALIASES.get(value.strip().casefold())


@dataclass(frozen=True)
class Behavior:
    """One candidate behavior of a scene."""

    k: int
    text: str
    label: str  # "proper" | "improper" (majority label)
    facets: tuple[str, ...] = ()
    votes: tuple[tuple[str, int], ...] | None = None  # per-annotator counts, label order
    #: counts of a second annotation of the behavior shown without its image (Figure 6(a)); None: not collected
    votes_no_image: tuple[tuple[str, int], ...] | None = None


@dataclass(frozen=True)
class JudgmentScene:
    scene_id: str
    image: str  # relative to the dataset root, POSIX form
    question: str
    behaviors: tuple[Behavior, ...]
    subset: str | None = None
    category: str | None = None
    subcategory: str | None = None
    source: str = ""
    line: int | None = None


@dataclass(frozen=True)
class GroundingQuestion:
    question_id: str
    image: str
    question: str
    answer: tuple[str, ...]  # gold letters in A-D order
    options: tuple[tuple[str, str], ...] = ()  # (letter, description)
    votes: tuple[tuple[str, ...], ...] | None = None  # one selection per annotator
    subset: str | None = None
    category: str | None = None
    subcategory: str | None = None
    facets: tuple[str, ...] = ()
    source: str = ""
    line: int | None = None
