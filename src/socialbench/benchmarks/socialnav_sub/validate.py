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

import math
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Mapping

from socialbench.benchmarks.socialnav_sub.bank import PromptBank, expand_questions, load_bank
from socialbench.benchmarks.socialnav_sub.files import (
    MAX_JSON_BYTES,
    file_kind,
    read_json,
    read_regular_bytes,
)
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
#: Most people a sample may label (the release has at most 13; questions grow with it).
MAX_PEOPLE = 100
#: Most human answers one question may have (the release has 7-14).
MAX_ANSWERS = 100_000
#: Most pixels an image may decode to (release composites are 1280x2000 = 2.56 MP).
MAX_IMAGE_PIXELS = 40_000_000


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
    """Parse a JSON file; record a problem (with line) and return None on failure.

    Only regular files are read (see :mod:`~socialbench.benchmarks.socialnav_sub.files`)."""
    if file_kind(path) == "missing":
        report.error(path, "", f"missing {what}", f"add {path.name}")
        return None
    try:
        return read_json(path)
    except DataError as exc:
        report.errors.extend(exc.problems)
        return None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    """A finite int or float (an int too large for a float is not a number here)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


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
        elif n > MAX_ANSWERS:
            shown = n if n < 10**9 else f"an integer of {len(str(n))} digits"
            report.error(file, f"{k}_n_answers", f"n = {shown} is more than {MAX_ANSWERS} answers",
                         "give the number of humans who answered")
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


def _check_image(path: Path, report: ValidationReport, inside: _Containment,
                 verify: bool = True) -> bool:
    """An image inside the dataset that opens, holds at most :data:`MAX_IMAGE_PIXELS` and,
    with ``verify`` (``data validate``), decodes completely (a truncated file fails here,
    not in the middle of a run); without it only the header is read (loading for an
    evaluation, where each image is decoded once anyway and a broken one fails only its own
    sample)."""
    import warnings

    from PIL import Image  # local import: only needed when images are checked

    if not _inside_or_error(path, inside, report):
        return False
    if file_kind(path) != "file":
        report.error(path, "", "not a regular file (a folder, FIFO or device)",
                     "replace it with the image file")
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as img:
                w, h = img.size
                if w * h > MAX_IMAGE_PIXELS:
                    report.error(path, "", f"image claims {w}x{h} pixels, more than the "
                                 f"{MAX_IMAGE_PIXELS} an image of this dataset may have",
                                 "replace the image with the release's file")
                    return False
                if verify:
                    img.load()  # decodes every pixel: truncation and corrupt data fail here
            if verify and path.suffix.lower() == ".png":
                with Image.open(path) as img:
                    img.verify()  # chunk checksums
    except FileNotFoundError:
        report.error(path, "", "image not found", "add the image")
        return False
    except Exception as exc:  # PIL raises many kinds of error on bad files
        report.error(path, "", f"unreadable image: {exc}", "replace the image")
        return False
    return True


def _check_sample_images(root: Path, s: SampleScan, report: ValidationReport,
                         inside: _Containment, verify: bool, image_mode: str | None) -> bool:
    """The frames and composites of one sample, as far as ``image_mode`` needs them (see
    :func:`scan_socialnav`). True if raw frames are missing where composites stand in."""
    sid, f0 = s.sample_id, s.first_frame
    composites = [root / "prompts" / sid / f"sample_with_bev_{i}.png" for i in range(N_FRAMES)]
    present = [c for c in composites if file_kind(c) != "missing"]
    composites_ok = all([_check_image(c, report, inside, verify) for c in present])
    complete = len(present) == N_FRAMES and composites_ok
    render = not (image_mode in (None, "img-with-bev") and complete)
    frames_needed = render and image_mode != "bev"
    missing: list[Path] = []
    for t in range(N_FRAMES):
        frame = root / "front_view" / sid / f"{f0 + t}.jpg"
        if file_kind(frame) == "missing":
            missing.append(frame)
        else:
            _check_image(frame, report, inside, verify)
    if frames_needed:
        for frame in missing:
            report.error(frame, "", "missing frame", "add the raw camera frame")
    tracks = root / "prompts" / sid / f"{sid}_localized_obj_coords.json"
    odo = root / "front_view" / sid / "traj_data.pkl"
    why = "the composites are incomplete, so they are rendered" if image_mode in (
        None, "img-with-bev") else f"--images {image_mode} renders them"
    if file_kind(tracks) == "missing":
        if render:
            report.error(tracks, "", f"no pedestrian tracks: {why} from tracks",
                         "add the tracks file, or the 10 pre-rendered composites")
        elif image_mode is None:
            report.warn(tracks, "", "no pedestrian tracks: only `--images img-with-bev` "
                        "(with the release's composites) can be evaluated",
                        "add the tracks file to evaluate --images img or bev")
    if file_kind(odo) == "missing":
        if render and image_mode != "img":
            report.error(odo, "", f"no odometry: {why} from the robot's poses",
                         "add traj_data.pkl, or the 10 pre-rendered composites")
        elif image_mode is None:
            report.warn(odo, "", "no odometry; robot poses cannot be drawn (`--images bev` "
                        "cannot be evaluated)", "add traj_data.pkl")
    return bool(missing) and not frames_needed


def _numeric_array(value: Any) -> Any:
    """``value`` as a float array if it holds only real numbers, else None."""
    import numpy as np

    try:
        arr = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if arr.dtype.kind not in "iuf" or arr.size > 10**8:
        return None
    return arr.astype(float)


def _check_odometry(path: Path, first_frame: int, report: ValidationReport) -> bool:
    """True if ``traj_data.pkl`` is a dict of finite ``position`` (N, 2) and ``yaw`` (N)
    covering the sample's frames; else records why."""
    import numpy as np

    try:
        obj = load_pickle_safely(path)
    except DataError as exc:
        report.errors.extend(exc.problems)
        return False
    if not isinstance(obj, Mapping) or "position" not in obj or "yaw" not in obj:
        report.error(path, "", "odometry must be a dict with 'position' and 'yaw'",
                     "regenerate traj_data.pkl")
        return False
    pos, yaw = _numeric_array(obj["position"]), _numeric_array(obj["yaw"])
    if pos is None or yaw is None:
        report.error(path, "position" if pos is None else "yaw", "not an array of real numbers",
                     "store numeric arrays")
        return False
    yaw = yaw.reshape(-1)
    if pos.ndim != 2 or pos.shape[1] < 2:
        report.error(path, "position", f"shape {pos.shape} is not (N, 2)",
                     "store one [x, y] row per frame")
        return False
    ok = True
    if len(yaw) != len(pos):
        report.error(path, "yaw", f"{len(yaw)} yaw values for {len(pos)} positions",
                     "store one yaw per frame")
        ok = False
    if len(pos) < first_frame + N_FRAMES:
        report.error(path, "position",
                     f"{len(pos)} poses; frames {first_frame}..{first_frame + N_FRAMES - 1} "
                     f"need at least {first_frame + N_FRAMES}",
                     "use the odometry of the whole source sequence")
        return False
    for name, arr in (("position", pos), ("yaw", yaw)):
        bad = ~np.isfinite(arr[first_frame:first_frame + N_FRAMES + 1])
        if bad.any():
            row = first_frame + int(np.argwhere(bad)[0][0])
            report.error(path, name, f"NaN or infinite value at pose {row}",
                         "regenerate traj_data.pkl with finite poses")
            ok = False
    return ok


def _check_tracks(path: Path, report: ValidationReport) -> bool:
    """True if the tracks file parses (:func:`socialbench.navigation.tracks.parse_tracks`)
    with timesteps 0..9; else records every problem."""
    from socialbench.navigation.tracks import parse_tracks

    data = _read_json(path, report, "tracks file")
    if data is None:
        return False
    try:
        tracks = parse_tracks(data, str(path))
    except DataError as exc:
        report.errors.extend(exc.problems)
        return False
    ok = True
    for tid, tr in tracks.items():
        late = [t for t in tr.timesteps if t >= N_FRAMES]
        if late:
            report.error(path, f"track_id_to_object_trajectory.{tid}",
                         f"timestep {late[0]} is outside 0..{N_FRAMES - 1}",
                         "number the timesteps of the sample's 10 frames 0..9")
            ok = False
    return ok


# --------------------------------------------------------------------------- scan


def _inside_or_error(path: Path, inside: _Containment, report: ValidationReport) -> bool:
    """True if ``path`` resolves inside the dataset; else record the error."""
    if inside(path):
        return True
    report.error(path, "", "resolves outside the dataset folder (symlink?)",
                 "replace the link with the file itself")
    return False


def _sample_list(root: Path, report: ValidationReport,
                 inside: _Containment) -> list[tuple[str, int, int]]:
    """(sample id, n_people, F0) of every well-formed entry of sample_info.json."""
    path = next((root / c for c in SAMPLE_INFO_CANDIDATES
                 if file_kind(root / c) != "missing"), None)
    if path is None:
        report.error(root / SAMPLE_INFO_CANDIDATES[0], "", "missing sample list",
                     "add prompts/sample_info.json with {\"samples\": [...]}")
        return []
    if not _inside_or_error(path, inside, report):
        return []
    data = _read_json(path, report, "sample list")
    if data is None:
        return []
    entries = data.get("samples") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        report.error(path, "samples", "missing or not a list",
                     'use {"samples": [{"folderpath": ..., "n_people": ...}, ...]}')
        return []
    if not entries:
        report.error(path, "samples", "the sample list is empty: nothing to evaluate or score",
                     'list the samples: {"samples": [{"folderpath": ..., "n_people": ...}]}')
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
        if not _is_int(n) or n < 0 or n > MAX_PEOPLE:
            shown = repr(n) if not _is_int(n) or n < 10**9 else f"an integer of {len(str(n))} digits"
            report.error(path, f"{where}.n_people",
                         f"must be an integer from 0 to {MAX_PEOPLE}, got {shown}",
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
    if file_kind(path) == "missing":
        report.warn(path, "", "no goal_info.json; goal positions are unknown",
                    "add goal_info.json to draw goals")
        return {}
    if not _inside_or_error(path, inside, report):
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


def _camera(root: Path, report: ValidationReport, inside: _Containment) -> dict[str, Any]:
    import yaml

    path = root / "dataset_cfg.yaml"
    if file_kind(path) == "missing" or not _inside_or_error(path, inside, report):
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


def _sample_metadata(root: Path, ids: set[str], report: ValidationReport,
                     inside: _Containment) -> dict[str, dict]:
    path = root / "sample_metadata.json"
    if file_kind(path) == "missing" or not _inside_or_error(path, inside, report):
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


def _load_dataset_bank(root: Path, report: ValidationReport,
                       inside: _Containment) -> PromptBank | None:
    bank_path = root / "prompts" / "survey_prompt.json"
    deps_path = root / "prompts" / "relevant_prev_questions.json"
    present = [p for p in (bank_path, deps_path) if file_kind(p) != "missing"]
    if not all([_inside_or_error(p, inside, report) for p in present]):
        return None
    try:
        return load_bank(bank_path if bank_path in present else None,
                         deps_path if deps_path in present else None)
    except DataError as exc:
        report.errors.extend(exc.problems)
        return None


def scan_socialnav(root: Path | str, *, check_images: bool = True, check_odometry: bool = True,
                   limit: int | None = None, verify_images: bool = True,
                   image_mode: str | None = None, allow_labels_only: bool = False
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
    ``allow_labels_only``: a folder with no image at all is reported as a labels-only
    folder (one warning saying what it supports) instead of one error per missing frame.
    """
    root = Path(root).expanduser().absolute()
    report = ValidationReport()
    empty = DatasetScan(root, None, {}, {}, [], report)
    if not root.is_dir():
        what = "is a file, not a folder" if root.exists() else "dataset folder does not exist"
        report.error(root, "", what, "pass the dataset folder")
        return empty
    inside = _Containment(root)
    bank = _load_dataset_bank(root, report, inside)
    entries = _sample_list(root, report, inside)
    extra = _sample_metadata(root, {e[0] for e in entries}, report, inside)
    if limit is not None:
        entries = entries[:max(limit, 0)]
    goal_info = _goal_info(root, inside, report)
    camera = _camera(root, report, inside)

    labels_only = allow_labels_only and check_images and bool(entries) and not any(
        file_kind(root / "front_view" / sid / f"{f0 + t}.jpg") != "missing"
        or file_kind(root / "prompts" / sid / f"sample_with_bev_{t}.png") != "missing"
        for sid, _, f0 in entries for t in range(N_FRAMES))
    samples: list[SampleScan] = []
    composites_only: list[str] = []  # samples whose missing frames the composites replace
    for sid, n_people, f0 in entries:
        s = SampleScan(sid, n_people, f0, extra=dict(extra.get(sid, {})))
        samples.append(s)
        labels = root / "human_labels" / sid / "common_answers.json"
        if _inside_or_error(labels, inside, report):
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
        if file_kind(tracks) != "missing":
            if _inside_or_error(tracks, inside, report) and _check_tracks(tracks, report):
                s.tracks_path = tracks

        odo = root / "front_view" / sid / "traj_data.pkl"
        if file_kind(odo) != "missing":
            if _inside_or_error(odo, inside, report):
                if not check_odometry:
                    s.odometry_path = odo
                elif _check_odometry(odo, f0, report):
                    s.odometry_path = odo
        elif check_odometry and not check_images:
            report.warn(odo, "", "no odometry; robot poses cannot be drawn",
                        "add traj_data.pkl")

        if check_images and not labels_only:
            if _check_sample_images(root, s, report, inside, verify_images, image_mode):
                composites_only.append(sid)
    if composites_only and image_mode is None:
        report.warn(root / "front_view", "",
                    f"raw frames missing for {len(composites_only)} sample(s) (e.g. "
                    f"{composites_only[0]}): OK for `eval --images img-with-bev` (the release's "
                    "composites) and `score`; `--images img` needs the frames",
                    "add front_view/<S>/<F>.jpg to evaluate --images img")
    if labels_only:
        report.warn(root, "", "labels only: no raw frames (front_view/<S>/<F>.jpg) and no "
                    "composites (prompts/<S>/sample_with_bev_<i>.png). OK for `socialbench "
                    "score` and for `eval` with a baseline (-m baseline:...); `eval` with a "
                    "vision model needs the images",
                    "add the release's images to evaluate a vision model")
    return DatasetScan(root, bank, camera, goal_info, samples, report)


def validate_socialnav(root: Path | str, *, check_images: bool = True) -> list[Problem]:
    """Every problem (errors, then warnings) found in the dataset folder ``root``.

    A folder without any image (enough for ``score``) gets one warning that says so, not an
    error per missing frame."""
    return scan_socialnav(root, check_images=check_images, check_odometry=True,
                          allow_labels_only=True).report.problems
