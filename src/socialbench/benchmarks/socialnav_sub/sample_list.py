"""The sample list of a SocialNav-SUB dataset folder (``prompts/sample_info.json``): every
well-formed entry as (sample id, number of people, first frame), each malformed one
reported; a RobotEQ folder given by mistake is recognised and named."""

from __future__ import annotations

import re
from pathlib import Path

from socialbench.benchmarks.socialnav_sub.file_checks import Containment, inside_or_error, read_json_reporting
from socialbench.benchmarks.socialnav_sub.layout import SAMPLE_INFO_CANDIDATES
from socialbench.benchmarks.socialnav_sub.parsers import is_int, unsafe_relative_path
from socialbench.benchmarks.socialnav_sub.validation_report import ValidationReport
from socialbench.files.safe_read import file_kind

__all__ = ["MAX_PEOPLE", "ROBOT_EQ_LABELS", "sample_list"]

_SAMPLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*_(\d+)$")
#: Most people a sample may label (the release has at most 13; questions grow with it).
MAX_PEOPLE = 100


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


def sample_list(root: Path, report: ValidationReport, inside: Containment) -> list[tuple[str, int, int]]:
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
