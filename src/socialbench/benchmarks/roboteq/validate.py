"""``validate_roboteq`` for ``socialbench data validate``: every problem of a RobotEQ dataset
folder for one task, images included (each is opened and decoded).

The checks themselves live in :mod:`~socialbench.benchmarks.roboteq.fields` (one field of a
row) and :mod:`~socialbench.benchmarks.roboteq.scan` (the folder); this adds the full image
decode that loading for an evaluation skips.
"""

from __future__ import annotations

from pathlib import Path

from socialbench.benchmarks.roboteq.hub import resolve_data
from socialbench.benchmarks.roboteq.paths import image_problem
from socialbench.benchmarks.roboteq.scan import scan_roboteq
from socialbench.errors import Problem

__all__ = ["validate_roboteq"]


def validate_roboteq(data: Path, task: str) -> list[Problem]:
    """Every problem in a RobotEQ dataset folder for ``task`` (``behavior_judgment`` or
    ``spatial_grounding``), images included (each is opened and verified)."""
    root = resolve_data(data)
    scan = scan_roboteq(root)
    problems = scan.problems_for(task)
    for row_task, source, line, image in scan.images:
        if row_task != task:
            continue
        msg = image_problem(root / image, decode=True)
        if msg:
            problems.append(Problem(source, "image", f"{msg}: {image}", "add the image or fix the path", line))
    problems.sort(key=lambda p: (p.file, p.line or 0))
    records = scan.scenes if task == "behavior_judgment" else scan.questions
    if not records and not problems:
        what = "behavior-judgment" if task == "behavior_judgment" else "spatial-grounding"
        problems.append(
            Problem(str(root), "", f"no {what} rows found", "check that the folder holds the RobotEQ release")
        )
    return problems
