"""Load a SocialNav-SUB dataset folder (official layout, reference §a) into :class:`Item`\\ s.

One :class:`~socialbench.types.Item` per sample; ``item_id`` is the sample id
(``<a>_Spot_<b>_<F0>``), ``questions`` come from the prompt bank (the dataset's
``prompts/survey_prompt.json`` when present, else the built-in one) in the official query
order, and ``votes`` hold the human answer distributions of
``human_labels/<S>/common_answers.json`` with canonical answers.

``Item.metadata`` keys (other modules rely on them; paths are absolute strings):
``n_people``, ``first_frame`` (F0), ``sample_dir`` (``prompts/<S>``), ``tracks_path`` and
``odometry_path`` (None if absent), ``frames`` (``front_view/<S>/<F0+t>.jpg``, t = 0..9),
``composites`` (``prompts/<S>/sample_with_bev_<i>.png``), ``goal_xy`` (metres in the initial
robot frame, or None). An optional ``sample_metadata.json`` at the root,
``{sample_id: {attribute: value}}``, adds attributes for facet analyses (never those keys).

Images and odometry pickles are checked only with ``require_images=True``, and then only
those the image mode uses.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from socialbench.benchmarks.socialnav_sub.bank import PromptBank
from socialbench.benchmarks.socialnav_sub.layout import N_FRAMES
from socialbench.benchmarks.socialnav_sub.scan import SampleScan, scan_socialnav
from socialbench.errors import DataError, UsageError
from socialbench.types import Item

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SocialNavDataset:
    """A loaded SocialNav-SUB dataset."""

    root: Path
    items: tuple[Item, ...]
    bank: PromptBank
    camera: dict[str, object]
    goal_info: dict[str, object]

    def __len__(self) -> int:
        return len(self.items)

    @property
    def n_questions(self) -> int:
        """Total number of questions over all items (4968 for the official set)."""
        return sum(len(item.questions) for item in self.items)


def _metadata(root: Path, s: SampleScan) -> dict[str, Any]:
    sid, f0 = s.sample_id, s.first_frame
    meta: dict[str, Any] = {
        "n_people": s.n_people,
        "sample_dir": str(root / "prompts" / sid),
        "tracks_path": str(s.tracks_path) if s.tracks_path is not None else None,
        "odometry_path": str(s.odometry_path) if s.odometry_path is not None else None,
        "frames": [str(root / "front_view" / sid / f"{f0 + t}.jpg") for t in range(N_FRAMES)],
        "first_frame": f0,
        "composites": [str(root / "prompts" / sid / f"sample_with_bev_{i}.png") for i in range(N_FRAMES)],
        "goal_xy": list(s.goal_xy) if s.goal_xy is not None else None,
    }
    for key, value in s.extra.items():
        meta.setdefault(key, value)
    return meta


def load_socialnav(
    root: Path | str, *, require_images: bool = False, limit: int | None = None, image_mode: str | None = None
) -> SocialNavDataset:
    """Load the dataset folder ``root``; ``limit`` keeps only the first samples. With
    ``require_images``, the images the ``--images`` mode ``image_mode`` needs are checked
    (:func:`~.scan.scan_socialnav`). Raises :class:`DataError` listing every error found
    (warnings are logged)."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise UsageError(f"limit must be a non-negative integer, got {limit!r}")
    # Headers only: every image is decoded once during the run anyway, and a broken one
    # fails only its own sample there; `socialbench data validate` reads every byte.
    scan = scan_socialnav(
        root,
        check_images=require_images,
        check_odometry=require_images,
        limit=limit,
        verify_images=False,
        image_mode=image_mode,
    )
    if scan.report.errors:
        raise DataError(scan.report.errors)
    for w in scan.report.warnings:
        log.warning("%s", w)
    assert scan.bank is not None  # no errors implies the bank loaded
    items = tuple(
        Item(item_id=s.sample_id, questions=s.questions, votes=s.votes, metadata=_metadata(scan.root, s))
        for s in scan.samples
    )
    return SocialNavDataset(root=scan.root, items=items, bank=scan.bank, camera=scan.camera, goal_info=scan.goal_info)
