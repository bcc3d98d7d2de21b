"""Check a SocialNav-SUB dataset folder and report every problem at once.

:func:`~socialbench.benchmarks.socialnav_sub.scan.scan_socialnav` walks the folder (layout
of reference §a), parses what it reads and collects *all* problems instead of stopping at the
first; :func:`validate_socialnav` returns them, and
:func:`socialbench.benchmarks.socialnav_sub.loader.load_socialnav` runs the same scan and
raises :class:`DataError` when it found errors.

Problems come in two levels. *Errors* make the data unusable or ambiguous (missing keys,
probabilities that do not sum to 1, unknown answers, path traversal, malicious pickles...).
*Warnings* (message prefixed ``warning:``) flag oddities that do not stop loading: counts that
``int(p*n)`` does not recover, a missing goal entry, missing pre-rendered composites, unknown
extra keys. :func:`validate_socialnav` returns both; the loader raises on errors only.

Path safety: every sample id and referenced path must stay inside the dataset folder; ``..``
components, absolute paths and symlinks that resolve outside the folder are errors.
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
