"""Read a SocialNav-SUB dataset folder (layout of reference §a) and collect *all* its
problems instead of stopping at the first: :func:`scan_socialnav`, which the loader and
``validate`` run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from socialbench.benchmarks.socialnav_sub.bank import PromptBank, expand_questions
from socialbench.benchmarks.socialnav_sub.dataset_files import (
    read_camera_cfg,
    read_dataset_bank,
    read_goal_info,
    read_sample_metadata,
)
from socialbench.benchmarks.socialnav_sub.file_checks import (
    Containment,
    check_odometry_file,
    check_tracks_file,
    inside_or_error,
    read_json_reporting,
)
from socialbench.benchmarks.socialnav_sub.layout import N_FRAMES
from socialbench.benchmarks.socialnav_sub.model_needs import (
    LABELS_ONLY_MODELS,
    labels_only_message,
    rule_based_message,
    rule_inputs_missing,
)
from socialbench.benchmarks.socialnav_sub.parsers import goal_key, parse_goal, parse_votes
from socialbench.benchmarks.socialnav_sub.sample_images import check_sample_images
from socialbench.benchmarks.socialnav_sub.sample_list import sample_list
from socialbench.benchmarks.socialnav_sub.validation_report import ValidationReport
from socialbench.files.safe_read import file_kind
from socialbench.types import HumanVotes, Question

__all__ = ["SampleScan", "DatasetScan", "scan_socialnav"]


@dataclass
class SampleScan:
    """What the scan learned about one sample (votes are empty if its labels had errors)."""

    sample_id: str
    n_people: int
    first_frame: int
    votes: dict[str, HumanVotes] = field(default_factory=dict)
    questions: tuple[Question, ...] = ()
    goal_xy: tuple[float, float] | None = None
    tracks_path: Path | None = None
    odometry_path: Path | None = None
    extra: dict[str, object] = field(default_factory=dict)


@dataclass
class DatasetScan:
    """Parsed contents of a dataset folder plus the problems found."""

    root: Path
    bank: PromptBank | None
    camera: dict[str, object]
    goal_info: dict[str, object]
    samples: list[SampleScan]
    report: ValidationReport


def scan_socialnav(
    root: Path | str,
    *,
    check_images: bool = True,
    check_odometry: bool = True,
    limit: int | None = None,
    verify_images: bool = True,
    image_mode: str | None = None,
    allow_labels_only: bool = False,
) -> DatasetScan:
    """Read and check a dataset folder; never raises for data problems (see ``report``).

    ``limit`` keeps the first samples of the sample list. ``check_images``: every sample's 10
    frames exist and open (present composites too), every byte decoded when
    ``verify_images``; ``check_odometry``: every ``traj_data.pkl`` loads with the restricted
    unpickler. ``image_mode`` (the ``--images`` mode evaluated) requires raw frames only for
    what it renders (``img`` always, ``img-with-bev`` without the 10 composites, ``bev``
    never); with None (``data validate``) as ``img-with-bev``, a warning when composites
    stand in. ``allow_labels_only`` (``data validate``): a folder with no image is one warning
    saying what each kind of model needs (and samples ``baseline:rule-based`` cannot answer
    another); without it, such a folder checked for images is one error, not one per frame.
    """
    root = Path(root).expanduser().absolute()
    report = ValidationReport()
    empty = DatasetScan(root, None, {}, {}, [], report)
    if not root.is_dir():
        what = "is a file, not a folder" if root.exists() else "dataset folder does not exist"
        report.error(root, "", what, "pass the dataset folder")
        return empty
    inside = Containment(root)
    bank = read_dataset_bank(root, report, inside)
    entries = sample_list(root, report, inside)
    extra = read_sample_metadata(root, {e[0] for e in entries}, report, inside)
    listed_goal_keys = {goal_key(e[0]) for e in entries}
    if limit is not None:
        entries = entries[: max(limit, 0)]
    goal_info = read_goal_info(root, inside, report, warn_missing=bool(entries))
    if entries:
        _warn_goals_of_no_sample(root / "goal_info.json", goal_info, listed_goal_keys, report)
    camera = read_camera_cfg(root, report, inside)

    no_images = (
        check_images
        and image_mode != "bev"
        and bool(entries)
        and not any(
            file_kind(root / "front_view" / sid / f"{f0 + t}.jpg") != "missing"
            or file_kind(root / "prompts" / sid / f"sample_with_bev_{t}.png") != "missing"
            for sid, _, f0 in entries
            for t in range(N_FRAMES)
        )
    )
    labels_only = allow_labels_only and no_images
    samples: list[SampleScan] = []
    composites_only: list[str] = []  # samples whose missing frames the composites replace
    for sid, n_people, f0 in entries:
        s = SampleScan(sid, n_people, f0, extra=dict(extra.get(sid, {})))
        samples.append(s)
        labels = root / "human_labels" / sid / "common_answers.json"
        if inside_or_error(labels, inside, report):
            data = read_json_reporting(labels, report, "human labels")
            if data is not None and not isinstance(data, dict):
                report.error(labels, "", "must be a JSON object", "map question keys to answers")
            elif data is not None and bank is not None:
                s.questions = expand_questions(bank, n_people)
                s.votes = parse_votes(s.questions, data, labels, report)

        gentry = goal_info.get(goal_key(sid)) if goal_info else None
        if goal_info and gentry is None:
            report.warn(root / "goal_info.json", goal_key(sid), f"no goal for sample {sid}", "add its goal entry")
        elif isinstance(gentry, list) and len(gentry) == 2:
            s.goal_xy = parse_goal(gentry[1])

        tracks = root / "prompts" / sid / f"{sid}_localized_obj_coords.json"
        if file_kind(tracks) != "missing":
            if inside_or_error(tracks, inside, report) and check_tracks_file(tracks, report):
                s.tracks_path = tracks

        odo = root / "front_view" / sid / "traj_data.pkl"
        if file_kind(odo) != "missing":
            if inside_or_error(odo, inside, report):
                if not check_odometry:
                    s.odometry_path = odo
                elif check_odometry_file(odo, f0, report):
                    s.odometry_path = odo
        elif check_odometry and not check_images:
            report.warn(odo, "", "no odometry; robot poses cannot be drawn", "add traj_data.pkl")

        if check_images and not no_images:
            if check_sample_images(root, s.sample_id, s.first_frame, report, inside, verify_images, image_mode):
                composites_only.append(sid)
    if composites_only and image_mode is None:
        report.warn(
            root / "front_view",
            "",
            f"raw frames missing for {len(composites_only)} sample(s) (e.g. "
            f"{composites_only[0]}): OK for `eval --images img-with-bev` (the release's "
            "composites) and `score`; `--images img` needs the frames",
            "add front_view/<S>/<F>.jpg to evaluate --images img",
        )
    if no_images and not allow_labels_only:
        report.error(
            root,
            "",
            "labels only: no raw frames (front_view/<S>/<F>.jpg) and no composites "
            "(prompts/<S>/sample_with_bev_<i>.png), and a model that reads the prompt needs the images",
            f"add the release's images, or evaluate a model that reads the labels only ({LABELS_ONLY_MODELS}); "
            "`socialbench data validate` says what this folder supports",
        )
    if allow_labels_only:
        needs = [
            (s.sample_id, rule_inputs_missing(s.sample_id, s.tracks_path is not None, s.odometry_path is not None))
            for s in samples
        ]
        rule = rule_based_message(needs)
        if labels_only:
            report.warn(root, "", labels_only_message(needs), "add the release's images to evaluate a vision model")
        elif rule is not None:
            report.warn(root, "", rule, "add the tracks and odometry of those samples to evaluate baseline:rule-based")
    return DatasetScan(root, bank, camera, goal_info, samples, report)


#: Stray goal entries named one per line; more are counted in one line.
_STRAY_GOALS_NAMED = 3


def _warn_goals_of_no_sample(
    path: Path, goal_info: Mapping[str, object], listed: set[str], report: ValidationReport
) -> None:
    """A warning for each goal entry whose key is no listed sample's (``<a>_Spot_<b>/<F0>.jpg``):
    a mistyped key leaves its sample without a goal, and the entry is never read."""
    import difflib

    ordered = sorted(listed)
    stray = [key for key in goal_info if key not in listed]
    if len(stray) > _STRAY_GOALS_NAMED:  # a file of another sample list: one line, not hundreds
        report.warn(
            path,
            "",
            f"{len(stray)} entries name no sample of the sample list (first: {', '.join(stray[:3])})",
            "use the goal_info.json of this release, or remove those entries",
        )
        return
    for key in stray:
        near = difflib.get_close_matches(key, ordered, n=1, cutoff=0.8)
        hint = f"did you mean {near[0]!r}? " if near else ""
        report.warn(path, key, "names no sample of the sample list", f"{hint}fix the key or remove the entry")
