"""Unknown keys in a configuration file (``dataset_cfg.yaml``, a camera calibration): a
mistyped key such as ``camera_heigth`` would otherwise leave its default in place unsaid.
:func:`unknown_key_problems` names each one with the nearest valid key."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from socialbench.errors import Problem

__all__ = ["unknown_key_problems"]


def unknown_key_problems(
    keys: Iterable[object], valid: Sequence[str], file: str, owner: str, *, where: str = "", quote: str = ""
) -> list[Problem]:
    """A :class:`Problem` for each of ``keys`` outside ``valid`` (field ``where`` + key): the
    nearest valid key (:func:`difflib.get_close_matches`, ratio >= 0.6, written between
    ``quote`` marks) and the keys ``owner`` has."""
    problems = []
    for key in keys:
        if key in valid:
            continue
        near = difflib.get_close_matches(str(key), valid, n=1, cutoff=0.6)
        hint = f"did you mean {quote}{near[0]}{quote}? " if near else ""
        problems.append(Problem(file, f"{where}{key}", "unknown key", f"{hint}{owner} has {', '.join(valid)}"))
    return problems
