"""SocialNav-SUB Table 3 built from run directories: waypoint accuracy per model and scene-context
source (:func:`waypoint_table`), a Same-Model context counted only when the run checked it
(:func:`same_model_context`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from socialbench.report.labels import display_name
from socialbench.report.provenance import completeness, marked, partial_note
from socialbench.report.run_dir import RunDir
from socialbench.report.table import EMPTY, Cell, Row, Table, fmt_pct

#: Table 3's columns: (title, how a run's ``--context`` starts).
WAYPOINT_CONTEXTS: tuple[tuple[str, str], ...] = (
    ("No Context", "none"),
    ("Random", "random"),
    ("Same-Model", "model:"),
    ("Human Oracle", "human-oracle"),
)


def same_model_context(r: RunDir) -> bool:
    """Whether waypoint run ``r``'s ``--context model:RUN_DIR`` is Table 3's Same-Model
    context: its ``metrics.json`` records the run checked when ``r`` was made
    (``context_run``, see :mod:`socialbench.benchmarks.socialnav_waypoint.context`) and
    that run's model is ``r``'s (by ``model_identity`` when both record one, else by spec)."""
    ctx = r.metrics.get("context_run")
    if not isinstance(ctx, Mapping) or ctx.get("kind") != "same-model":
        return False
    theirs, ours = ctx.get("model_identity"), r.run.get("model_identity")
    if theirs is not None and ours is not None:
        return bool(theirs == ours)
    return bool(ctx.get("model") == r.model)


def waypoint_table(runs: Sequence[RunDir]) -> Table | None:
    """SocialNav-SUB Table 3: waypoint accuracy (%) ± SE per model and scene-context source.

    One row per model (and image mode / options other than the context), one column per
    context; a run made with ``--epochs`` shows its mean ± SE across epochs, others the SE
    over samples. A ``--context model:`` run goes under Same-Model only when
    :func:`same_model_context` holds; otherwise it is left out and named in a note.
    ``None`` without ``socialnav-waypoint`` runs."""
    rows_by: dict[tuple[Any, ...], dict[str, RunDir]] = {}
    unchecked: list[str] = []
    for r in runs:
        if r.benchmark != "socialnav-waypoint" or r.perturbation is not None:
            continue
        context = str((r.run.get("options") or {}).get("context") or r.metrics.get("context") or "none")
        column = next(
            (
                t
                for t, prefix in WAYPOINT_CONTEXTS
                if context == prefix or (prefix.endswith(":") and context.startswith(prefix))
            ),
            None,
        )
        if column is None:
            continue
        if column == "Same-Model" and not same_model_context(r):
            unchecked.append(r.label)
            continue
        others = tuple((k, v) for k, v in r.options_key() if k != "context")
        rows_by.setdefault((r.model, r.run.get("images"), others), {}).setdefault(column, r)
    if not rows_by:
        return None
    rows = []
    any_epochs = False
    partial: list[RunDir] = []  # partial runs in a row: the row is marked and the note says how much
    # scene-blind baselines (baseline:waypoint-*, baseline:random) first, in their own section
    for (model, images, _), by in sorted(rows_by.items(), key=lambda kv: not str(kv[0][0]).startswith("baseline:")):
        cells = []
        for title, _ in WAYPOINT_CONTEXTS:
            run = by.get(title)
            acc = ((run.metrics.get("overall") or {}).get("accuracy") or {}) if run is not None else {}
            any_epochs = any_epochs or bool(run is not None and run.metrics.get("epochs"))
            v, se = acc.get("value"), acc.get("se")
            cells.append(
                EMPTY
                if v is None
                else Cell(
                    f"{fmt_pct(v)} ± {fmt_pct(se)}" if se is not None else fmt_pct(v),
                    100 * v,
                    None if se is None else 100 * se,
                )
            )
        label = display_name(str(model)) + ("" if images in (None, "img-with-bev") else f" ({images})")
        partial += [r for r in by.values() if completeness(r).partial]
        label = marked(label, list(by.values()))
        rows.append(Row((label,), tuple(cells), "Baseline" if str(model).startswith("baseline:") else ""))
    notes: tuple[str, ...] = (
        "Accuracy of choosing the operator's waypoint, percent. "
        + (
            "Runs made with --epochs: mean ± SE across epochs; others: ± SE over samples. "
            if any_epochs
            else "± SE over samples (use eval --epochs N for mean ± SE across repeated runs). "
        )
        + "Same-Model: the model's own answers to the context questions in a finished SocialNav-SUB run "
        + "on the same data (--context model:RUN_DIR, checked when the run was made). "
        + "Baseline rows answer without looking at a person (nearest, straightest, constant velocity, toward / "
        + "closest to the goal, random): every candidate is an operator move of the same group of five, mapped "
        + "into this robot's motion frame, so that rules of the robot's own motion score (near) chance; the goal "
        + "rules may beat it, as progress to the goal is part of the task: a model shows social reasoning only "
        + "by beating them.",
    )
    note = partial_note(partial)
    if note is not None:
        notes += (note,)
    if unchecked:
        notes += (
            "Left out of Same-Model: "
            + ", ".join(unchecked)
            + " (--context model: with no record that the context run is this model's SocialNav-SUB run on the "
            + "same data; run them again with this socialbench).",
        )
    return Table(
        "socialnav_table3_waypoints",
        "Waypoint selection accuracy by scene-context source (SocialNav-SUB Table 3)",
        ("Model",),
        tuple(t for t, _ in WAYPOINT_CONTEXTS),
        tuple(rows),
        (),
        notes,
    )
