"""Check a SocialNav-SUB dataset folder and report every problem at once.

:func:`scan_socialnav` walks the folder (layout of reference §a), parses what it reads and
collects *all* problems instead of stopping at the first; :func:`validate_socialnav` returns
them, and :func:`socialbench.benchmarks.socialnav_sub.loader.load_socialnav` runs the same
scan and raises :class:`DataError` when it found errors.

Problems come in two levels. *Errors* make the data unusable or ambiguous (missing keys,
probabilities that do not sum to 1, unknown answers, path traversal, malicious pickles...).
*Warnings* (message prefixed ``warning:``) flag oddities that do not stop loading: counts that
``int(p*n)`` does not recover, a missing goal entry, missing pre-rendered composites, unknown
extra keys. :func:`validate_socialnav` returns both; the loader raises on errors only.

Path safety: every sample id and referenced path must stay inside the dataset folder; ``..``
components, absolute paths and symlinks that resolve outside the folder are errors.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Mapping

from socialbench.benchmarks.socialnav_sub.bank import PromptBank, expand_questions, load_bank
from socialbench.benchmarks.socialnav_sub.safe_pickle import load_pickle_safely
from socialbench.errors import DataError, Problem
from socialbench.types import Answer, HumanVotes, Question

N_FRAMES = 10
PROB_TOL = 1e-6
SAMPLE_INFO_CANDIDATES = ("prompts/sample_info.json", "sample_info.json",
                          "human_labels/sample_info.json")
#: Metadata keys set by the loader; ``sample_metadata.json`` may not override them.
RESERVED_METADATA_KEYS = frozenset({"n_people", "sample_dir", "tracks_path", "odometry_path",
                                    "frames", "first_frame", "composites", "goal_xy"})
_SAMPLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*_(\d+)$")
_STRAY_KEYS = frozenset({"", "_probabilities", "_n_answers"})


# --------------------------------------------------------------------------- results


@dataclass
class ValidationReport:
    """Errors (data unusable) and warnings (oddities) found in a dataset folder."""

    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def problems(self) -> list[Problem]:
        return self.errors + self.warnings

    def error(self, file: Path | str, fld: str, message: str, fix: str = "",
              line: int | None = None) -> None:
        self.errors.append(Problem(str(file), fld, message, fix, line))

    def warn(self, file: Path | str, fld: str, message: str, fix: str = "") -> None:
        self.warnings.append(Problem(str(file), fld, f"warning: {message}", fix))


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


# --------------------------------------------------------------------------- helpers


class _Containment:
    """Answers "does this path resolve inside the dataset folder?" (symlinks followed).

    A path that is not itself a link resolves to its resolved folder plus its name, so each
    folder is resolved once per scan instead of once per file (a release has ~1,200 images).
    """

    def __init__(self, root: Path):
        self.root = root.resolve()
        self._dirs: dict[Path, Path] = {}

    def _resolved(self, path: Path) -> Path:
        if path.is_symlink():
            return path.resolve()
        folder = self._dirs.get(path.parent)
        if folder is None:
            folder = self._dirs[path.parent] = path.parent.resolve()
        return folder / path.name

    def __call__(self, path: Path) -> bool:
        try:
            self._resolved(path).relative_to(self.root)
            return True
        except (ValueError, OSError, RuntimeError):
            return False


def unsafe_relative_path(rel: str) -> str | None:
    """Why ``rel`` is not a safe path relative to the dataset folder, or None if it is."""
    if not rel:
        return "empty path"
    if PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).is_absolute() or (
        PureWindowsPath(rel).drive
    ):
        return "absolute path"
    parts = re.split(r"[\\/]", rel)
    if ".." in parts:
        return "'..' component"
    return None


def _read_json(path: Path, report: ValidationReport, what: str) -> Any:
    """Parse a JSON file; record a problem (with line) and return None on failure."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        report.error(path, "", f"missing {what}", f"add {path.name}")
        return None
    except (OSError, UnicodeDecodeError) as exc:
        report.error(path, "", f"cannot read {what}: {exc}", "replace the file")
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        report.error(path, "", f"invalid JSON: {exc.msg} (column {exc.colno})",
                     "fix the JSON syntax", line=exc.lineno)
        return None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def parse_goal(raw: Any) -> tuple[float, float] | None:
    """Official goal string ``"[gx, gy]"`` in millimetres -> metres, or None if malformed."""
    if not isinstance(raw, str):
        return None
    parts = raw.replace(" ", "").replace("[", "").replace("]", "").split(",")
    if len(parts) != 2:
        return None
    try:
        return (int(parts[0]) / 1000.0, int(parts[1]) / 1000.0)
    except ValueError:
        try:
            gx, gy = float(parts[0]), float(parts[1])
        except ValueError:
            return None
        return (gx / 1000.0, gy / 1000.0) if math.isfinite(gx) and math.isfinite(gy) else None


def goal_key(sample_id: str) -> str:
    """goal_info.json key of a sample: ``<a>_Spot_<b>_<F0>`` -> ``<a>_Spot_<b>/<F0>.jpg``."""
    head, _, f0 = sample_id.rpartition("_")
    return f"{head}/{f0}.jpg"


# --------------------------------------------------------------------------- votes


def _canonical_answer(q: Question, answer: Any) -> Answer | None:
    if q.kind == "single":
        return answer if isinstance(answer, str) and answer in q.options else None
    if (not isinstance(answer, list) or not answer
            or not all(isinstance(a, str) and a in q.options for a in answer)
            or len(set(answer)) != len(answer)):
        return None
    chosen = set(answer)
    return tuple(o for o in q.options if o in chosen)


def parse_votes(questions: tuple[Question, ...], data: Mapping[str, Any], file: Path | str,
                report: ValidationReport) -> dict[str, HumanVotes]:
    """Check ``common_answers.json`` content and build the votes of every question."""
    votes: dict[str, HumanVotes] = {}
    for q in questions:
        k = q.key
        missing = [name for name in (k, f"{k}_probabilities", f"{k}_n_answers")
                   if name not in data]
        for name in missing:
            report.error(file, name, "missing key",
                         "every question key needs K, K_probabilities and K_n_answers")
        if missing:
            continue
        answers, probs, n = data[k], data[f"{k}_probabilities"], data[f"{k}_n_answers"]
        ok = True
        if not isinstance(answers, list) or not answers:
            report.error(file, k, "answers must be a non-empty list", "list the answers given")
            ok = False
        if not isinstance(probs, list) or not all(_is_number(p) for p in probs):
            report.error(file, f"{k}_probabilities", "must be a list of numbers",
                         "give count/n for each answer")
            ok = False
        if not _is_int(n):
            report.error(file, f"{k}_n_answers", f"must be an integer, got {n!r}",
                         "give the number of annotators")
            ok = False
        elif n < 2:
            report.error(file, f"{k}_n_answers", f"n = {n} < 2 answers",
                         "leave-one-out agreement needs at least 2 human answers")
            ok = False
        if not ok:
            continue
        if len(answers) != len(probs):
            report.error(file, f"{k}_probabilities",
                         f"{len(probs)} probabilities for {len(answers)} answers",
                         "give one probability per answer")
            continue
        if any(p < 0 or p > 1 for p in probs):
            report.error(file, f"{k}_probabilities", "probabilities must lie in [0, 1]",
                         "use count/n")
            continue
        total = sum(probs)
        if abs(total - 1.0) > PROB_TOL:
            report.error(file, f"{k}_probabilities", f"probabilities sum to {total!r}, not 1",
                         "use count/n for every answer given")
            continue
        canon: list[Answer] = []
        for a in answers:
            c = _canonical_answer(q, a)
            if c is None:
                if q.kind == "multi":
                    report.error(file, k, f"answer {a!r} is not a list of options {q.options}",
                                 "write each multiple-select answer as a list of options")
                else:
                    report.error(file, k, f"answer {a!r} is not an option of this question "
                                 f"(options: {list(q.options)})", "use the exact option text")
                ok = False
            else:
                canon.append(c)
        if not ok:
            continue
        if len(set(canon)) != len(canon):
            report.error(file, k, "the same answer is listed twice",
                         "merge duplicate answers and add their probabilities")
            continue
        for a, p in zip(canon, probs):
            exact = p * n
            if abs(exact - round(exact)) > PROB_TOL:
                report.warn(file, f"{k}_probabilities",
                            f"p*n = {exact!r} for {a!r} is not a whole number of votes",
                            "use count/n with the stated n")
            elif int(exact) != round(exact):
                report.warn(file, f"{k}_probabilities",
                            f"int(p*n) = {int(exact)} does not recover the count "
                            f"{round(exact)} for {a!r} (the official scorer truncates)",
                            "store count/n exactly")
        votes[k] = HumanVotes(tuple(canon), tuple(float(p) for p in probs), n)
    expected = {s for q in questions for s in (q.key, f"{q.key}_probabilities",
                                                f"{q.key}_n_answers")}
    extra = sorted(k for k in data if k not in expected and k not in _STRAY_KEYS)
    if extra:
        shown = ", ".join(extra[:5]) + (" ..." if len(extra) > 5 else "")
        report.warn(file, "", f"{len(extra)} unexpected keys ({shown})",
                    "check n_people in sample_info.json for this sample")
    return votes


# --------------------------------------------------------------------------- media


def _check_image(path: Path, report: ValidationReport, inside: _Containment, verify: bool = True) -> bool:
    """An image inside the dataset that opens; with ``verify`` its whole content is checked
    (``data validate``), otherwise only its header (loading for an evaluation, where each
    image is decoded once anyway and a broken one fails only its own sample)."""
    from PIL import Image  # local import: only needed when images are checked

    if not inside(path):
        report.error(path, "", "image resolves outside the dataset folder (symlink?)",
                     "replace the link with the file")
        return False
    try:
        with Image.open(path) as img:
            if verify:
                img.verify()
    except FileNotFoundError:
        return False
    except Exception as exc:  # PIL raises many kinds of error on bad files
        report.error(path, "", f"unreadable image: {exc}", "replace the image")
        return False
    return True


def _check_odometry(path: Path, first_frame: int, report: ValidationReport) -> None:
    import numpy as np

    try:
        obj = load_pickle_safely(path)
    except DataError as exc:
        report.errors.extend(exc.problems)
        return
    if not isinstance(obj, Mapping) or "position" not in obj or "yaw" not in obj:
        report.error(path, "", "odometry must be a dict with 'position' and 'yaw'",
                     "regenerate traj_data.pkl")
        return
    try:
        pos = np.asarray(obj["position"], dtype=float)
        yaw = np.asarray(obj["yaw"], dtype=float).reshape(-1)
    except (TypeError, ValueError) as exc:
        report.error(path, "position", f"not numeric: {exc}", "store numeric arrays")
        return
    if pos.ndim != 2 or pos.shape[1] < 2:
        report.error(path, "position", f"shape {pos.shape} is not (N, 2)",
                     "store one [x, y] row per frame")
        return
    if len(yaw) != len(pos):
        report.error(path, "yaw", f"{len(yaw)} yaw values for {len(pos)} positions",
                     "store one yaw per frame")
    if len(pos) < first_frame + N_FRAMES:
        report.error(path, "position",
                     f"{len(pos)} poses; frames {first_frame}..{first_frame + N_FRAMES - 1} "
                     f"need at least {first_frame + N_FRAMES}",
                     "use the odometry of the whole source sequence")


def _check_tracks(path: Path, report: ValidationReport) -> None:
    data = _read_json(path, report, "tracks file")
    if data is None:
        return
    tracks = data.get("track_id_to_object_trajectory") if isinstance(data, dict) else None
    if not isinstance(tracks, dict):
        report.error(path, "track_id_to_object_trajectory", "missing or not an object",
                     "map each track id to a list of observations")
        return
    for tid, obs in tracks.items():
        if not isinstance(obs, list) or not all(
            isinstance(o, dict) and _is_number(o.get("center_x")) and _is_number(
                o.get("center_y")) and _is_int(o.get("timestep")) for o in obs
        ):
            report.error(path, f"track_id_to_object_trajectory.{tid}",
                         "observations need numeric center_x, center_y and integer timestep",
                         "regenerate the tracks file")


# --------------------------------------------------------------------------- scan


def _sample_list(root: Path, report: ValidationReport) -> list[tuple[str, int, int]]:
    """(sample id, n_people, F0) of every well-formed entry of sample_info.json."""
    path = next((root / c for c in SAMPLE_INFO_CANDIDATES if (root / c).is_file()), None)
    if path is None:
        report.error(root / SAMPLE_INFO_CANDIDATES[0], "", "missing sample list",
                     "add prompts/sample_info.json with {\"samples\": [...]}")
        return []
    data = _read_json(path, report, "sample list")
    if data is None:
        return []
    entries = data.get("samples") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        report.error(path, "samples", "missing or not a list",
                     'use {"samples": [{"folderpath": ..., "n_people": ...}, ...]}')
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
            report.error(path, f"{where}.folderpath",
                         f"path traversal: sample id {sid!r} is not a plain folder name"
                         f" ({unsafe or 'contains a separator'})",
                         "use ids like 101_Spot_1_155")
            continue
        m = _SAMPLE_ID.match(sid)
        if m is None:
            report.error(path, f"{where}.folderpath", f"bad sample id {sid!r}",
                         "ids look like <a>_Spot_<b>_<F0>, e.g. 101_Spot_1_155")
            continue
        if not _is_int(n) or n < 0:
            report.error(path, f"{where}.n_people", f"must be a non-negative integer, got {n!r}",
                         "give the number of labelled people")
            continue
        if sid in seen:
            report.error(path, f"{where}.folderpath", f"duplicate sample id {sid!r}",
                         "list each sample once")
            continue
        seen.add(sid)
        out.append((sid, n, int(m.group(1))))
    return out


def _goal_info(root: Path, inside: _Containment, report: ValidationReport) -> dict[str, Any]:
    path = root / "goal_info.json"
    if not path.is_file():
        report.warn(path, "", "no goal_info.json; goal positions are unknown",
                    "add goal_info.json to draw goals")
        return {}
    data = _read_json(path, report, "goal file")
    if data is None:
        return {}
    if not isinstance(data, dict):
        report.error(path, "", "must be an object", 'map "<a>_Spot_<b>/<F0>.jpg" to entries')
        return {}
    for key, value in data.items():
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, str) for v in value)):
            report.error(path, key, "entry must be [goal_image_path, \"[gx, gy]\"]",
                         "give two strings")
            continue
        unsafe = unsafe_relative_path(value[0])
        if unsafe:
            report.error(path, key, f"path traversal in goal image path {value[0]!r} ({unsafe})",
                         "use a path relative to the dataset folder")
        elif not inside(root / value[0]):
            report.error(path, key, f"goal image path {value[0]!r} resolves outside the folder",
                         "use a path relative to the dataset folder")
        if parse_goal(value[1]) is None:
            report.error(path, key, f"cannot parse goal {value[1]!r}",
                         'write it as "[gx, gy]" in millimetres')
    return data


def _camera(root: Path, report: ValidationReport) -> dict[str, Any]:
    import yaml

    path = root / "dataset_cfg.yaml"
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        report.error(path, "", f"invalid YAML: {exc}", "fix the YAML syntax",
                     line=mark.line + 1 if mark is not None else None)
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


def _sample_metadata(root: Path, ids: set[str], report: ValidationReport) -> dict[str, dict]:
    path = root / "sample_metadata.json"
    if not path.is_file():
        return {}
    data = _read_json(path, report, "sample metadata")
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


def _load_dataset_bank(root: Path, report: ValidationReport) -> PromptBank | None:
    bank_path = root / "prompts" / "survey_prompt.json"
    deps_path = root / "prompts" / "relevant_prev_questions.json"
    try:
        return load_bank(bank_path if bank_path.is_file() else None,
                         deps_path if deps_path.is_file() else None)
    except DataError as exc:
        report.errors.extend(exc.problems)
        return None


def scan_socialnav(root: Path | str, *, check_images: bool = True, check_odometry: bool = True,
                   limit: int | None = None, verify_images: bool = True) -> DatasetScan:
    """Read and check a dataset folder; never raises for data problems (see ``report``).

    ``limit`` keeps only the first samples of the sample list. ``check_images`` checks that
    the 10 frames of every sample exist and open (and that present composites open), reading
    every byte when ``verify_images``, only the header otherwise;
    ``check_odometry`` loads every ``traj_data.pkl`` with the restricted unpickler.
    """
    root = Path(root).expanduser().absolute()
    report = ValidationReport()
    empty = DatasetScan(root, None, {}, {}, [], report)
    if not root.is_dir():
        report.error(root, "", "dataset folder does not exist", "pass the dataset folder")
        return empty
    inside = _Containment(root)
    bank = _load_dataset_bank(root, report)
    entries = _sample_list(root, report)
    extra = _sample_metadata(root, {e[0] for e in entries}, report)
    if limit is not None:
        entries = entries[:max(limit, 0)]
    goal_info = _goal_info(root, inside, report)
    camera = _camera(root, report)

    samples: list[SampleScan] = []
    for sid, n_people, f0 in entries:
        s = SampleScan(sid, n_people, f0, extra=dict(extra.get(sid, {})))
        samples.append(s)
        labels = root / "human_labels" / sid / "common_answers.json"
        if not inside(labels):
            report.error(labels, "", "resolves outside the dataset folder (symlink?)",
                         "replace the link with the folder")
        else:
            data = _read_json(labels, report, "human labels")
            if data is not None and not isinstance(data, dict):
                report.error(labels, "", "must be a JSON object", "map question keys to answers")
            elif data is not None and bank is not None:
                s.questions = expand_questions(bank, n_people)
                s.votes = parse_votes(s.questions, data, labels, report)

        gentry = goal_info.get(goal_key(sid)) if goal_info else None
        if goal_info and gentry is None:
            report.warn(root / "goal_info.json", goal_key(sid), f"no goal for sample {sid}",
                        "add its goal entry")
        elif isinstance(gentry, list) and len(gentry) == 2:
            s.goal_xy = parse_goal(gentry[1])

        tracks = root / "prompts" / sid / f"{sid}_localized_obj_coords.json"
        if tracks.is_file():
            if inside(tracks):
                s.tracks_path = tracks
                _check_tracks(tracks, report)
            else:
                report.error(tracks, "", "resolves outside the dataset folder (symlink?)",
                             "replace the link with the file")
        elif check_images:
            report.warn(tracks, "", "no pedestrian tracks; composites cannot be rendered",
                        "add the tracks file or use pre-rendered composites")

        odo = root / "front_view" / sid / "traj_data.pkl"
        if odo.is_file():
            if not inside(odo):
                report.error(odo, "", "resolves outside the dataset folder (symlink?)",
                             "replace the link with the file")
            else:
                s.odometry_path = odo
                if check_odometry:
                    _check_odometry(odo, f0, report)
        elif check_odometry:
            report.warn(odo, "", "no odometry; robot poses cannot be drawn",
                        "add traj_data.pkl")

        if check_images:
            for t in range(N_FRAMES):
                frame = root / "front_view" / sid / f"{f0 + t}.jpg"
                if not frame.is_file():
                    report.error(frame, "", "missing frame", "add the raw camera frame")
                else:
                    _check_image(frame, report, inside, verify_images)
            composites = [root / "prompts" / sid / f"sample_with_bev_{i}.png"
                          for i in range(N_FRAMES)]
            present = [c for c in composites if c.is_file()]
            renderable = s.tracks_path is not None and s.odometry_path is not None
            if len(present) < N_FRAMES and not renderable:
                report.warn(root / "prompts" / sid, "",
                            f"{N_FRAMES - len(present)} pre-rendered composites missing",
                            "add them, or the tracks and odometry to render them from")
            for c in present:
                _check_image(c, report, inside, verify_images)
    return DatasetScan(root, bank, camera, goal_info, samples, report)


def validate_socialnav(root: Path | str, *, check_images: bool = True) -> list[Problem]:
    """Every problem (errors, then warnings) found in the dataset folder ``root``."""
    return scan_socialnav(root, check_images=check_images, check_odometry=True).report.problems
