"""The robustness table (RobotEQ Figure 8, and the same for SocialNav-SUB): the drop of the
headline metric under each image perturbation, each perturbed run paired with the same
model's clean run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from socialbench.report.metric_cells import rq_value, sn_block
from socialbench.report.provenance import marked, partial_note
from socialbench.report.run_dir import SOCIALNAV_NAMES, RunDir
from socialbench.report.table import EMPTY, Cell, Row, Table, fmt_num

__all__ = ["headline_metric", "robustness_key", "robustness_table"]


def headline_metric(r: RunDir) -> tuple[str, float | None]:
    """The metric robustness drops are reported on: PA (All) for SocialNav-SUB, macro-F1
    (overall) for RobotEQ."""
    if r.benchmark in SOCIALNAV_NAMES:
        block = sn_block(r.metrics, "model", "All") or {}
        return "PA", block.get("PA")
    return "MacF1", rq_value(r.metrics.get("overall"), "macro_f1")[0]


def robustness_key(r: RunDir) -> tuple[object, ...]:
    """What a perturbed run and its clean run share: benchmark, model, strategy, method,
    images and every non-default option."""
    return (
        r.benchmark,
        r.model,
        r.strategy,
        bool(r.run.get("per_behavior")),
        r.run.get("method"),
        r.run.get("images"),
        r.options_key(rag=True),
    )


def robustness_table(runs: Sequence[RunDir]) -> Table | None:
    """Drop of the headline metric under each image perturbation (RobotEQ Figure 8).

    Each perturbed run is paired with the run of the same model, benchmark and settings
    without perturbation. Cells: perturbed value and the drop ``clean - perturbed`` (in
    points; positive = worse). ``None`` when no pair exists.
    """
    key = robustness_key
    clean = {key(r): r for r in runs if r.perturbation is None}
    perts: list[str] = []
    pairs: dict[tuple[Any, ...], dict[str, RunDir]] = {}
    for r in runs:
        p = r.perturbation
        if p is None or key(r) not in clean:
            continue
        name = f"{p[0]} {p[1]:g}"
        if name not in perts:
            perts.append(name)
        pairs.setdefault(key(r), {})[name] = r
    if not pairs:
        return None
    metric = headline_metric(next(iter(clean.values())))[0]
    scale = 100.0 if metric == "MacF1" else 1.0
    digits = 2
    rows = []
    for k, by_name in pairs.items():
        base = clean[k]
        _, v0 = headline_metric(base)
        cells = [EMPTY if v0 is None else Cell(fmt_num(v0, digits, scale), v0 * scale)]
        for name in perts:
            run = by_name.get(name)
            v = headline_metric(run)[1] if run is not None else None
            if v is None or v0 is None:
                cells += [EMPTY, EMPTY]
            else:
                cells += [
                    Cell(fmt_num(v, digits, scale), v * scale),
                    Cell(f"{(v0 - v) * scale:+.{digits}f}", (v0 - v) * scale),
                ]
        rows.append(Row((marked(base.label, [base, *by_name.values()]),), tuple(cells)))
    columns = ("Clean",) + tuple(c for _ in perts for c in (metric, "Drop"))
    groups = (("", 1),) + tuple((p, 2) for p in perts)
    unit = "percent" if scale == 100 else "agreement"
    notes: tuple[str, ...] = (
        f"{metric} ({unit}) on clean and perturbed images; Drop = clean − perturbed (positive: worse).",
    )
    shown = [r for k, by_name in pairs.items() for r in (clean[k], *by_name.values())]
    if (note := partial_note(shown)) is not None:
        notes += (note,)
    return Table(
        "robustness", f"Robustness to visual perturbations ({metric})", ("Model",), columns, tuple(rows), groups, notes
    )
