"""The one writer of SocialNav-SUB folders in the official release layout (reference §a).

``socialbench sim socialnav`` (:mod:`.simulated`) and ``socialbench build socialnav``
(:mod:`socialbench.construction.socialnav`) both write through it: the bank and config
files (:func:`write_release_header`), each sample's tracks, odometry, frames and (when there
are any) answers (:func:`write_release_sample`), the index files (:func:`write_release_index`)
and the pre-rendered composites (:func:`write_release_composites`)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from socialbench.benchmarks.socialnav_sub.synthetic import odometry_pickle
from socialbench.files.dataset_writer import write_file, write_json
from socialbench.navigation.tracks import N_FRAMES, PersonTrack
from socialbench.navigation.tracks_json import write_tracks

if TYPE_CHECKING:
    from PIL import Image

__all__ = [
    "EXACT_ANSWERS_NOTE",
    "JPEG_QUALITY",
    "RECORDING_CARD_TITLE",
    "ReleaseSample",
    "jpeg_bytes",
    "write_release_composites",
    "write_release_header",
    "write_release_index",
    "write_release_sample",
]

JPEG_QUALITY = 70
#: First line of the card (README.md) of a dataset built by ``build socialnav``; the card's
#: second paragraph starts with :data:`EXACT_ANSWERS_NOTE` when its answers come from true tracks.
RECORDING_CARD_TITLE = "# SocialNav-SUB scenarios built from a robot recording"
EXACT_ANSWERS_NOTE = "Answers in `human_labels/` are **not human**"


@dataclass(frozen=True)
class ReleaseSample:
    """What the index files say about one sample: id, labelled people, first frame, goal (mm)
    and the frame the goal was taken from (None: F0 + 40, the release's)."""

    sample_id: str
    n_people: int
    first_frame: int
    goal_mm: tuple[int, int]
    goal_frame: int | None = None


def jpeg_bytes(img: Image.Image) -> bytes:
    """A raw front-view frame as the release stores it (JPEG, no timestamps)."""
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=JPEG_QUALITY, optimize=False, progressive=False)
    return buf.getvalue()


def write_release_header(root: Path, dataset_cfg: str) -> None:
    """``prompts/survey_prompt.json``, ``prompts/relevant_prev_questions.json`` (the built-in
    bank) and ``dataset_cfg.yaml``."""
    data_dir = resources.files("socialbench.benchmarks.socialnav_sub") / "data"
    for name in ("survey_prompt.json", "relevant_prev_questions.json"):
        write_file(root / "prompts" / name, (data_dir / name).read_bytes())
    write_file(root / "dataset_cfg.yaml", dataset_cfg.encode())


def write_release_sample(
    root: Path,
    sample_id: str,
    first_frame: int,
    tracks: Iterable[PersonTrack],
    position: np.ndarray,
    yaw: np.ndarray,
    frames: Sequence[Image.Image],
    answers: Mapping[str, Any] | None,
) -> None:
    """One sample's files: ``human_labels/<S>/common_answers.json`` (only when ``answers``),
    the tracks file, ``traj_data.pkl`` (world poses indexed by frame number) and the raw
    frames ``front_view/<S>/<F0 + t>.jpg``."""
    if answers is not None:
        write_json(root / "human_labels" / sample_id / "common_answers.json", dict(answers))
    tracks_path = root / "prompts" / sample_id / f"{sample_id}_localized_obj_coords.json"
    tracks_path.parent.mkdir(parents=True, exist_ok=True)
    write_tracks(tracks_path, tracks)
    write_file(root / "front_view" / sample_id / "traj_data.pkl", odometry_pickle(position, yaw))
    for t, img in enumerate(frames):
        write_file(root / "front_view" / sample_id / f"{first_frame + t}.jpg", jpeg_bytes(img))


def write_release_index(root: Path, samples: Sequence[ReleaseSample], metadata: Mapping[str, Any]) -> None:
    """``sample_info.json`` (three copies, as the release), ``goal_info.json`` (goal image
    F0 + 40 or the sample's own goal frame, goal in millimetres) and ``sample_metadata.json`` (facet attributes)."""
    info = {"samples": [{"folderpath": s.sample_id, "n_people": s.n_people} for s in samples]}
    for rel in ("prompts/sample_info.json", "sample_info.json", "human_labels/sample_info.json"):
        write_json(root / rel, info)
    goal_info: dict[str, Any] = {}
    for s in samples:
        head = s.sample_id.rsplit("_", 1)[0]
        f0 = s.first_frame
        goal_frame = f0 + 40 if s.goal_frame is None else s.goal_frame
        goal_info[f"{head}/{f0}.jpg"] = [f"{head}/{goal_frame}.jpg", f"[{s.goal_mm[0]}, {s.goal_mm[1]}]"]
    write_json(root / "goal_info.json", goal_info)
    write_file(root / "sample_metadata.json", (json.dumps(dict(metadata), indent=2, sort_keys=True) + "\n").encode())


def write_release_composites(
    root: Path, samples: Sequence[ReleaseSample], done: Callable[[int], None] | None = None
) -> None:
    """Render and write every sample's ``prompts/<S>/sample_with_bev_<i>.png``; ``done(n)``
    after the ``n``-th sample."""
    from socialbench.navigation.render import render_sample, to_png_bytes

    for n, s in enumerate(samples, 1):
        sid, f0 = s.sample_id, s.first_frame
        meta = {
            "sample_dir": str(root / "prompts" / sid),
            "tracks_path": str(root / "prompts" / sid / f"{sid}_localized_obj_coords.json"),
            "odometry_path": str(root / "front_view" / sid / "traj_data.pkl"),
            "frames": [str(root / "front_view" / sid / f"{f0 + t}.jpg") for t in range(N_FRAMES)],
            "first_frame": f0,
            "goal_xy": [s.goal_mm[0] / 1000.0, s.goal_mm[1] / 1000.0],
            "n_people": s.n_people,
        }
        for t, img in enumerate(render_sample(meta, "img-with-bev")):
            write_file(root / "prompts" / sid / f"sample_with_bev_{t}.png", to_png_bytes(img))
        if done is not None:
            done(n)
