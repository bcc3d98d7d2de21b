"""Check a SocialNav-SUB dataset folder and report every problem at once.

:func:`~socialbench.benchmarks.socialnav_sub.scan.scan_socialnav` walks the folder and
collects *all* problems; :func:`validate_socialnav` returns them, errors (unusable or
ambiguous data, paths leaving the folder, malicious pickles...) and warnings (message
prefixed ``warning:``: oddities that do not stop loading), while
:func:`~socialbench.benchmarks.socialnav_sub.loader.load_socialnav` raises on errors only.
"""

from __future__ import annotations

from pathlib import Path

from socialbench.benchmarks.socialnav_sub.scan import scan_socialnav
from socialbench.errors import Problem

__all__ = ["validate_socialnav"]


def validate_socialnav(root: Path | str, *, check_images: bool = True) -> list[Problem]:
    """Every problem (errors, then warnings) found in the dataset folder ``root``.

    A folder without any image (enough for ``score``) gets one warning that says so, not an
    error per missing frame."""
    return scan_socialnav(root, check_images=check_images, check_odometry=True, allow_labels_only=True).report.problems
