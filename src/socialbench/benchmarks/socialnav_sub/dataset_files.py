"""The dataset-wide files of a SocialNav-SUB folder besides the sample list, each read and
checked with every problem reported: ``goal_info.json`` (goal of each sample),
``dataset_cfg.yaml`` (the camera), ``sample_metadata.json`` (per-sample attributes) and the
question bank (``prompts/survey_prompt.json``, ``prompts/relevant_prev_questions.json``)."""

from __future__ import annotations

from pathlib import Path

from socialbench.benchmarks.socialnav_sub.bank import PromptBank
from socialbench.benchmarks.socialnav_sub.bank_file import load_bank
from socialbench.benchmarks.socialnav_sub.file_checks import Containment, inside_or_error, read_json_reporting
from socialbench.benchmarks.socialnav_sub.layout import RESERVED_METADATA_KEYS
from socialbench.benchmarks.socialnav_sub.parsers import parse_goal, unsafe_relative_path
from socialbench.benchmarks.socialnav_sub.validation_report import ValidationReport
from socialbench.errors import DataError
from socialbench.files.config_keys import unknown_key_problems
from socialbench.files.safe_read import MAX_JSON_BYTES, file_kind, read_regular_bytes
from socialbench.files.yaml_read import load_yaml
from socialbench.navigation.projection import CAMERA_MATRIX_KEYS, DATASET_CFG_KEYS

__all__ = ["read_goal_info", "read_camera_cfg", "read_sample_metadata", "read_dataset_bank"]


def read_goal_info(
    root: Path, inside: Containment, report: ValidationReport, *, warn_missing: bool = True
) -> dict[str, object]:
    """The goal file's entries, every problem in ``report``. Its absence is a warning (it
    changes answers: no goal is drawn, and the rule-based baseline cannot place the goal) when
    ``warn_missing``: not for a folder with no sample list, which is no release at all."""
    path = root / "goal_info.json"
    if file_kind(path) == "missing":
        if warn_missing:
            dangling = "goal_info.json is a link to a file that does not exist" if path.is_symlink() else ""
            report.warn(
                path,
                "",
                f"{dangling or 'no goal_info.json'}: goal positions are unknown, so no goal is drawn and goal answers"
                " of the rule-based baseline are guesses",
                "add the release's goal_info.json (each sample's goal) to the dataset folder",
            )
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


def read_camera_cfg(root: Path, report: ValidationReport, inside: Containment) -> dict[str, object]:
    import yaml

    path = root / "dataset_cfg.yaml"
    if file_kind(path) == "missing" or not inside_or_error(path, inside, report):
        return {}
    try:
        raw = read_regular_bytes(path, MAX_JSON_BYTES)
        data = load_yaml(raw.decode("utf-8"))
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
    report.errors.extend(unknown_key_problems(data, DATASET_CFG_KEYS, str(path), "a dataset_cfg.yaml", quote="`"))
    matrix = data.get("camera_matrix")
    if isinstance(matrix, dict) and "data" not in matrix:
        report.errors.extend(
            unknown_key_problems(
                matrix, CAMERA_MATRIX_KEYS, str(path), "camera_matrix", where="camera_matrix.", quote="`"
            )
        )
    return data


def read_sample_metadata(
    root: Path, ids: set[str], report: ValidationReport, inside: Containment
) -> dict[str, dict[str, object]]:
    path = root / "sample_metadata.json"
    if file_kind(path) == "missing" or not inside_or_error(path, inside, report):
        return {}
    data = read_json_reporting(path, report, "sample metadata")
    if data is None:
        return {}
    if not isinstance(data, dict):
        report.error(path, "", "must be an object", "map sample ids to attribute objects")
        return {}
    out: dict[str, dict[str, object]] = {}
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


def read_dataset_bank(root: Path, report: ValidationReport, inside: Containment) -> PromptBank | None:
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
