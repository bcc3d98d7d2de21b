"""Expert decisions on escalated annotation items (RobotEQ §4.3): the ``--resolutions`` JSONL file
of ``socialbench build aggregate`` (format: docs/build.md, "11. aggregate")."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from socialbench.benchmarks.roboteq.schema import LETTERS
from socialbench.construction.jsonl import numbered_jsonl
from socialbench.errors import DataError, Problem

__all__ = ["JUDGMENT_DECISIONS", "judgment_decision", "grounding_decision", "read_resolutions"]


JUDGMENT_DECISIONS = ("proper", "improper", "discard")


def judgment_decision(value: object) -> str:
    """An expert decision on a behavior: ``proper``, ``improper`` or ``discard``.

    Raises ValueError (with the accepted values) for anything else.
    """
    if not isinstance(value, str) or value not in JUDGMENT_DECISIONS:
        raise ValueError(f"judgment decision {value!r} is not one of {', '.join(JUDGMENT_DECISIONS)}")
    return value


def grounding_decision(value: object) -> str | list[str]:
    """An expert decision on a grounding question: ``"discard"`` or a non-empty list of
    distinct letters from A-D (returned in A-D order).

    Raises ValueError for anything else: another string (``"improper"``, ``"a"``, ``"AC"``),
    an empty list, lower-case or unknown letters, repeats.
    """
    if value == "discard":
        return "discard"
    if not isinstance(value, (list, tuple)) or not value:
        raise ValueError(f'grounding decision {value!r} is neither "discard" nor a non-empty list of regions A-D')
    bad = [v for v in value if not isinstance(v, str) or v not in LETTERS]
    if bad:
        raise ValueError(f"grounding decision {list(value)!r} has {bad!r}, not regions {', '.join(LETTERS)}")
    if len(set(value)) != len(value):
        raise ValueError(f"grounding decision {list(value)!r} repeats a region")
    return [x for x in LETTERS if x in value]


def read_resolutions(
    path: str | Path,
    *,
    behaviors: Iterable[tuple[str, int]] = (),
    questions: Iterable[str] = (),
) -> tuple[dict[tuple[str, int], str], dict[str, str | list[str]]]:
    """Expert decisions from a JSONL file: ``({(item_id, k): decision}, {item_id: decision})``.

    A line with ``k`` resolves a behavior (``decision``: :data:`JUDGMENT_DECISIONS`) and
    must name one of ``behaviors``; a line without ``k`` resolves a grounding question
    (``decision`` or ``answer``: ``"discard"`` or a non-empty subset of A-D) and must name
    one of ``questions``. Raises :class:`DataError` listing every bad line (file, line,
    field and fix): missing fields, bad decisions, unknown items, conflicting repeats.
    """
    p = Path(path)
    known_b = set(behaviors)
    known_q = set(questions)
    judg: dict[tuple[str, int], str] = {}
    grnd: dict[str, str | list[str]] = {}
    problems: list[Problem] = []

    def bad(field_: str, message: str, fix: str, line: int) -> None:
        problems.append(Problem(str(p), field_, message, fix, line))

    for line, r in numbered_jsonl(p, require_id=False):
        item = r.get("item_id")
        decision = r.get("decision", r.get("answer"))
        if not isinstance(item, str) or not item:
            bad(
                "item_id",
                "resolution has no item_id",
                'name the escalated item, e.g. {"item_id": "x", "k": 2, '
                '"decision": "improper"} or {"item_id": "g1", "answer": ["A", "C"]}',
                line,
            )
            continue
        if decision is None:
            bad(
                "decision",
                f"resolution of {item!r} has no decision (or answer)",
                'add "decision": proper / improper / discard (behavior, with "k") or "answer": ["A", ...] / '
                '"discard" (grounding question)',
                line,
            )
            continue
        if "k" in r:
            k = r["k"]
            if isinstance(k, bool) or not isinstance(k, int):
                bad(
                    "k",
                    f"k {k!r} of {item!r} is not an integer",
                    'give the behavior number as in behaviors.jsonl, e.g. "k": 2',
                    line,
                )
                continue
            try:
                decision = judgment_decision(decision)
            except ValueError as exc:
                bad("decision", str(exc), 'use "proper", "improper" or "discard"', line)
                continue
            key = (item, k)
            if key not in known_b:
                bad(
                    "item_id",
                    f"behavior {item}#b{k} is not among the behaviors being aggregated",
                    "check item_id and k against escalations.judgment.jsonl (and that its annotations were imported)",
                    line,
                )
                continue
            if key in judg and judg[key] != decision:
                bad(
                    "decision",
                    f"behavior {item}#b{k} already resolved as {judg[key]!r}",
                    "keep one decision per behavior",
                    line,
                )
                continue
            judg[key] = decision
        else:
            try:
                gdecision = grounding_decision(decision)
            except ValueError as exc:
                hint = (
                    ' (a behavior resolution needs "k": add the behavior number)'
                    if isinstance(decision, str) and decision in ("proper", "improper")
                    else ""
                )
                bad("decision", f"{exc}{hint}", 'use "discard" or a list of regions, e.g. "answer": ["A", "C"]', line)
                continue
            if item not in known_q:
                bad(
                    "item_id",
                    f"grounding question {item!r} is not among the questions being aggregated",
                    "check item_id against escalations.grounding.jsonl (and that its annotations were imported); "
                    'a behavior resolution needs "k"',
                    line,
                )
                continue
            if item in grnd and grnd[item] != gdecision:
                bad(
                    "decision",
                    f"grounding question {item!r} already resolved as {grnd[item]!r}",
                    "keep one decision per question",
                    line,
                )
                continue
            grnd[item] = gdecision
    if problems:
        raise DataError(problems)
    return judg, grnd
