"""Read a SocialNav-SUB dataset folder (layout of reference §a) and collect *all* its
problems instead of stopping at the first: :func:`scan_socialnav`, which the loader and
``validate`` run."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from socialbench.benchmarks.socialnav_sub.bank import PromptBank, expand_questions, load_bank
from socialbench.benchmarks.socialnav_sub.file_checks import (
    Containment,
    check_image_file,
    check_odometry_file,
    check_tracks_file,
    inside_or_error,
    read_json_reporting,
)
from socialbench.benchmarks.socialnav_sub.layout import N_FRAMES, RESERVED_METADATA_KEYS, SAMPLE_INFO_CANDIDATES
from socialbench.benchmarks.socialnav_sub.model_needs import (
    LABELS_ONLY_MODELS,
    labels_only_message,
    rule_based_message,
    rule_inputs_missing,
)
from socialbench.benchmarks.socialnav_sub.parsers import goal_key, is_int, parse_goal, parse_votes, unsafe_relative_path
from socialbench.benchmarks.socialnav_sub.validation_report import ValidationReport
from socialbench.errors import DataError
from socialbench.files.safe_read import MAX_JSON_BYTES, file_kind, read_regular_bytes
from socialbench.types import HumanVotes, Question

__all__ = ["SampleScan", "DatasetScan", "scan_socialnav"]

_SAMPLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*_(\d+)$")
#: Most people a sample may label (the release has at most 13; questions grow with it).
MAX_PEOPLE = 100


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
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class DatasetScan:
    """Parsed contents of a dataset folder plus the problems found."""

    root: Path
    bank: PromptBank | None
    camera: dict[str, Any]
    goal_info: dict[str, Any]
    samples: list[SampleScan]
    report: ValidationReport


def _check_sample_images(
    root: Path, s: SampleScan, report: ValidationReport, inside: Containment, verify: bool, image_mode: str | None
) -> bool:
    """The frames and composites of one sample, as far as ``image_mode`` needs them (see
    :func:`scan_socialnav`). True if raw frames are missing where composites stand in."""
    sid, f0 = s.sample_id, s.first_frame
    composites = [root / "prompts" / sid / f"sample_with_bev_{i}.png" for i in range(N_FRAMES)]
    present = [c for c in composites if file_kind(c) != "missing"]
    composites_ok = all([check_image_file(c, report, inside, verify) for c in present])
    complete = len(present) == N_FRAMES and composites_ok
    render = not (image_mode in (None, "img-with-bev") and complete)
    frames_needed = render and image_mode != "bev"
    missing: list[Path] = []
    for t in range(N_FRAMES):
        frame = root / "front_view" / sid / f"{f0 + t}.jpg"
        if file_kind(frame) == "missing":
            missing.append(frame)
        else:
            check_image_file(frame, report, inside, verify)
    if frames_needed:
        for frame in missing:
            report.error(frame, "", "missing frame", "add the raw camera frame")
    tracks = root / "prompts" / sid / f"{sid}_localized_obj_coords.json"
    odo = root / "front_view" / sid / "traj_data.pkl"
    why = (
        "the composites are incomplete, so they are rendered"
        if image_mode in (None, "img-with-bev")
        else f"--images {image_mode} renders them"
    )
    if file_kind(tracks) == "missing":
        if render:
            report.error(
                tracks,
                "",
                f"no pedestrian tracks: {why} from tracks",
                "add the tracks file, or the 10 pre-rendered composites",
            )
        elif image_mode is None:
            report.warn(
                tracks,
                "",
                "no pedestrian tracks: only `--images img-with-bev` (with the release's composites) can be evaluated",
                "add the tracks file to evaluate --images img or bev",
            )
    if file_kind(odo) == "missing":
        if render and image_mode != "img":
            report.error(
                odo,
                "",
                f"no odometry: {why} from the robot's poses",
                "add traj_data.pkl, or the 10 pre-rendered composites",
            )
        elif image_mode is None:
            report.warn(
                odo,
                "",
                "no odometry; robot poses cannot be drawn (`--images bev` cannot be evaluated)",
                "add traj_data.pkl",
            )
    return bool(missing) and not frames_needed


#: Label files of a RobotEQ dataset (its root, or a subset folder such as behavior_judgment/).
ROBOT_EQ_LABELS = ("roboteq.jsonl", "metadata.jsonl", "metadata.csv")


def _robot_eq_label_file(root: Path) -> Path | None:
    """A RobotEQ label file in ``root`` or a folder just below it, or None: what tells a
    RobotEQ folder given to a SocialNav-SUB command apart from a broken SocialNav-SUB one."""
    for pattern in ("", "*/"):
        for name in ROBOT_EQ_LABELS:
            found = sorted(p for p in root.glob(pattern + name) if p.is_file())
            if found:
                return found[0]
    return None


def _sample_list(root: Path, report: ValidationReport, inside: Containment) -> list[tuple[str, int, int]]:
    """(sample id, n_people, F0) of every well-formed entry of sample_info.json."""
    path = next((root / c for c in SAMPLE_INFO_CANDIDATES if file_kind(root / c) != "missing"), None)
    if path is None:
        robot_eq = _robot_eq_label_file(root)
        if robot_eq is not None:
            report.error(
                root,
                "",
                f"this looks like a RobotEQ dataset ({robot_eq.relative_to(root)}), not a SocialNav-SUB one "
                "(no prompts/sample_info.json)",
                "evaluate it with -b roboteq-bj (behavior judgment) or -b roboteq-sg (spatial grounding)",
            )
            return []
        report.error(
            root / SAMPLE_INFO_CANDIDATES[0],
            "",
            "missing sample list",
            'add prompts/sample_info.json with {"samples": [...]}',
        )
        return []
    if not inside_or_error(path, inside, report):
        return []
    data = read_json_reporting(path, report, "sample list")
    if data is None:
        return []
    entries = data.get("samples") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        report.error(
            path, "samples", "missing or not a list", 'use {"samples": [{"folderpath": ..., "n_people": ...}, ...]}'
        )
        return []
    if not entries:
        report.error(
            path,
            "samples",
            "the sample list is empty: nothing to evaluate or score",
            'list the samples: {"samples": [{"folderpath": ..., "n_people": ...}]}',
        )
        return []
    out: list[tuple[str, int, int]] = []
    seen: set[str] = set()
    for i, e in enumerate(entries):
        where = f"samples[{i}]"
        if not isinstance(e, dict):
            report.error(path, where, "entry is not an object", "give folderpath and n_people")
            continue
        sid, n = e.get("folderpath"), e.get("n_people")
        if not isinstance(sid, str):
            report.error(path, f"{where}.folderpath", "missing sample id", "give folderpath")
            continue
        unsafe = unsafe_relative_path(sid)
        if unsafe or "/" in sid or "\\" in sid or sid in (".", ".."):
            report.error(
                path,
                f"{where}.folderpath",
                f"path traversal: sample id {sid!r} is not a plain folder name ({unsafe or 'contains a separator'})",
                "use ids like 101_Spot_1_155",
            )
            continue
        m = _SAMPLE_ID.match(sid)
        if m is None:
            report.error(
                path,
                f"{where}.folderpath",
                f"bad sample id {sid!r}",
                "ids look like <a>_Spot_<b>_<F0>, e.g. 101_Spot_1_155",
            )
            continue
        if not is_int(n) or n < 0 or n > MAX_PEOPLE:
            shown = repr(n) if not is_int(n) or n < 10**9 else f"an integer of {len(str(n))} digits"
            report.error(
                path,
                f"{where}.n_people",
                f"must be an integer from 0 to {MAX_PEOPLE}, got {shown}",
                "give the number of labelled people",
            )
            continue
        if sid in seen:
            report.error(path, f"{where}.folderpath", f"duplicate sample id {sid!r}", "list each sample once")
            continue
        seen.add(sid)
        out.append((sid, n, int(m.group(1))))
    return out


def _goal_info(root: Path, inside: Containment, report: ValidationReport) -> dict[str, Any]:
    path = root / "goal_info.json"
    if file_kind(path) == "missing":
        report.warn(path, "", "no goal_info.json; goal positions are unknown", "add goal_info.json to draw goals")
        return {}
    if not inside_or_error(path, inside, report):
        return {}
    data = read_json_reporting(path, report, "goal file")
    if data is None:
        return {}
    if not isinstance(data, dict):
        report.error(path, "", "must be an object", 'map "<a>_Spot_<b>/<F0>.jpg" to entries')
        return {}
    for key, value in data.items():
        if not isinstance(value, list) or len(value) != 2 or not all(isinstance(v, str) for v in value):
            report.error(path, key, 'entry must be [goal_image_path, "[gx, gy]"]', "give two strings")
            continue
        unsafe = unsafe_relative_path(value[0])
        if unsafe:
            report.error(
                path,
                key,
                f"path traversal in goal image path {value[0]!r} ({unsafe})",
                "use a path relative to the dataset folder",
            )
        elif not inside(root / value[0]):
            report.error(
                path,
                key,
                f"goal image path {value[0]!r} resolves outside the folder",
                "use a path relative to the dataset folder",
            )
        if parse_goal(value[1]) is None:
            report.error(path, key, f"cannot parse goal {value[1]!r}", 'write it as "[gx, gy]" in millimetres')
    return data


def _camera(root: Path, report: ValidationReport, inside: Containment) -> dict[str, Any]:
    import yaml

    path = root / "dataset_cfg.yaml"
    if file_kind(path) == "missing" or not inside_or_error(path, inside, report):
        return {}
    try:
        raw = read_regular_bytes(path, MAX_JSON_BYTES)
        data = yaml.safe_load(raw.decode("utf-8"))
    except DataError as exc:
        report.errors.extend(exc.problems)
        return {}
    except UnicodeDecodeError as exc:
        report.error(path, "", f"not UTF-8 text (byte {exc.start})", "save the file as UTF-8")
        return {}
    except RecursionError:
        report.error(path, "", "nested too deeply", "write the camera keys as a flat mapping")
        return {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        report.error(
            path, "", f"invalid YAML: {exc}", "fix the YAML syntax", line=mark.line + 1 if mark is not None else None
        )
        return {}
    except OSError as exc:
        report.error(path, "", f"cannot read: {exc}", "replace the file")
        return {}
    if data is None:
        return {}
    if not isinstance(data, dict):
        report.error(path, "", "must be a mapping", "write key: value pairs")
        return {}
    return data


def _sample_metadata(root: Path, ids: set[str], report: ValidationReport, inside: Containment) -> dict[str, dict]:
    path = root / "sample_metadata.json"
    if file_kind(path) == "missing" or not inside_or_error(path, inside, report):
        return {}
    data = read_json_reporting(path, report, "sample metadata")
    if data is None:
        return {}
    if not isinstance(data, dict):
        report.error(path, "", "must be an object", "map sample ids to attribute objects")
        return {}
    out: dict[str, dict] = {}
    for sid, attrs in data.items():
        if not isinstance(attrs, dict):
            report.error(path, sid, "attributes must be an object", 'e.g. {"indoors": true}')
            continue
        clash = sorted(RESERVED_METADATA_KEYS & set(attrs))
        if clash:
            report.error(path, sid, f"reserved metadata keys {clash}", "rename these attributes")
            continue
        if sid not in ids:
            report.warn(path, sid, "no such sample in sample_info.json", "remove or fix the id")
        out[sid] = attrs
    return out


def _load_dataset_bank(root: Path, report: ValidationReport, inside: Containment) -> PromptBank | None:
    bank_path = root / "prompts" / "survey_prompt.json"
    deps_path = root / "prompts" / "relevant_prev_questions.json"
    present = [p for p in (bank_path, deps_path) if file_kind(p) != "missing"]
    if not all([inside_or_error(p, inside, report) for p in present]):
        return None
    try:
        return load_bank(bank_path if bank_path in present else None, deps_path if deps_path in present else None)
    except DataError as exc:
        report.errors.extend(exc.problems)
        return None


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

    ``limit`` keeps only the first samples of the sample list. ``check_images`` checks that
    the 10 frames of every sample exist and open (and that present composites open), reading
    every byte when ``verify_images``, only the header otherwise;
    ``check_odometry`` loads every ``traj_data.pkl`` with the restricted unpickler.

    ``image_mode`` is the ``--images`` mode that will be evaluated: raw frames are required
    only for what it renders (``img`` always; ``img-with-bev`` only for samples without the
    release's 10 composites; ``bev`` never). With None (``data validate``) frames are
    required as for ``img-with-bev`` and missing ones are a warning when composites stand in.
    ``allow_labels_only`` (``data validate``): a folder with no image at all is reported as
    a labels-only folder (one warning saying what each kind of model needs and finds), and
    samples that ``baseline:rule-based`` cannot answer get one warning
    (:mod:`~socialbench.benchmarks.socialnav_sub.model_needs`). Without it, a folder with no
    image at all checked for images (an eval of a model that reads the prompt, in an image
    mode that needs frames or composites) is one error saying so, not one per missing frame.
    """
    root = Path(root).expanduser().absolute()
    report = ValidationReport()
    empty = DatasetScan(root, None, {}, {}, [], report)
    if not root.is_dir():
        what = "is a file, not a folder" if root.exists() else "dataset folder does not exist"
        report.error(root, "", what, "pass the dataset folder")
        return empty
    inside = Containment(root)
    bank = _load_dataset_bank(root, report, inside)
    entries = _sample_list(root, report, inside)
    extra = _sample_metadata(root, {e[0] for e in entries}, report, inside)
    if limit is not None:
        entries = entries[: max(limit, 0)]
    goal_info = _goal_info(root, inside, report)
    camera = _camera(root, report, inside)

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
            if _check_sample_images(root, s, report, inside, verify_images, image_mode):
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
