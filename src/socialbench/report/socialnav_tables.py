"""The SocialNav-SUB paper tables built from run directories.

:func:`socialnav_table1` (Table 1: All + three categories, PA and CWPA ± SE, Human Oracle /
Average Human / baseline rows, then the VLM rows, then perception-assisted and
human-derived runs in their own sections; the best VLM value of each column in bold),
:func:`socialnav_question_table` (Tables 10-12: PA and CW PA per question, one column pair
per model), :func:`socialnav_ablation_table` (Tables 2 / 13: BEV + CoT, No CoT, No BEV per
model), :func:`socialnav_gt_table` (Table 14: CoT vs CoT-GT per social question) and
:func:`waypoint_table` (Table 3: waypoint accuracy per scene-context source). The tables
from item-level data (Tables 4, 5, bootstrap CIs) are in
:mod:`socialbench.report.socialnav_item_tables`.

Several runs of different models become rows (or column groups) of one table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from socialbench.errors import UsageError
from socialbench.report.labels import display_name
from socialbench.report.metric_cells import sn_block, sn_pair
from socialbench.report.provenance import (
    ASSISTED,
    HUMAN_DERIVED,
    by_section,
    completeness,
    marked,
    partial_note,
    section_of,
    sources_note,
)
from socialbench.report.run_dir import RunDir
from socialbench.report.table import EMPTY, Cell, Row, Table, fmt_pct, mark_best

SN_GROUPS = ("All", "Spatial reasoning", "Spatiotemporal reasoning", "Social reasoning")
SN_GROUP_TITLES = {
    "All": "All",
    "Spatial reasoning": "Spatial Reasoning",
    "Spatiotemporal reasoning": "Spatiotemporal Reasoning",
    "Social reasoning": "Social Reasoning",
}

#: Base questions in the order and with the names of the paper's Tables 10-12.
QUESTION_TABLE: tuple[tuple[str, str, str], ...] = (
    ("Spatial", "q_person_spatial_position_begin", "Person Initial Position"),
    ("Spatial", "q_person_spatial_position_end", "Person Ending Position"),
    ("Spatial", "q_goal_position_begin", "Goal Initial Position"),
    ("Spatial", "q_goal_position_end", "Goal End Position"),
    ("Spatial", "q_obstructing_end_position", "Person End Goal Obstruction"),
    ("Spatiotemporal", "q_robot_moving_direction", "Robot Moving Direction"),
    ("Spatiotemporal", "q_person_distance_change", "Person Distance Change"),
    ("Spatiotemporal", "q_obstructing_path", "Person Goal Obstruction"),
    ("Social", "q_robot_affected", "Robot Affected by Person"),
    ("Social", "q_robot_action", "Robot Action to Person"),
    ("Social", "q_person_affected", "Person Affected by Robot"),
    ("Social", "q_person_action", "Person Action to Robot"),
    ("Social", "q_robot_suggested_affected", "Robot Affected by Person at end"),
    ("Social", "q_robot_suggested_action", "Robot Action to Person at end"),
    ("Social", "q_human_future_action_prediction", "Person Action to Robot at end"),
)
QUESTION_NAMES = {k: n for _, k, n in QUESTION_TABLE}

HUMAN_ROWS = (("human:oracle", "Human Oracle"), ("human:average", "Average Human"))


def _check_protocol(runs: Sequence[RunDir]) -> str:
    """The scoring protocol shared by ``runs``; a UsageError when they differ."""
    protocols = {r.protocol for r in runs}
    if len(protocols) > 1:
        raise UsageError(
            "the runs were scored with different protocols ("
            + ", ".join(f"{r.label}: {r.protocol}" for r in runs)
            + "); re-score them with one `socialbench score --protocol ...`"
        )
    return protocols.pop()


def sn_section(r: RunDir) -> str:
    """The Table 1 section of a run (:func:`socialbench.report.provenance.section_of`):
    ``Human-derived`` (``human:*`` models, ``cot-gt``), ``Perception-assisted``
    (``scene-context``), ``Baseline`` or ``VLM``. Only VLM rows are ranked."""
    return section_of(r)


def main_runs(runs: Sequence[RunDir]) -> list[RunDir]:
    """The runs on clean images (all runs when every one is perturbed): perturbed runs
    are reported in :func:`robustness_table`."""
    clean = [r for r in runs if r.perturbation is None]
    return clean or list(runs)


def epochs_note(runs: Sequence[RunDir], unit: str = "questions") -> str | None:
    """What ± means in a table of ``runs`` when some were made with ``eval --epochs N``
    (their metrics.json has ``epochs``): the mean over the epochs ± the standard error
    across them (:mod:`socialbench.runner.epochs`), and for the others the standard error
    over ``unit``; a table mixing both names the runs made with --epochs. None when no run
    was (± is then the standard error over ``unit`` throughout)."""
    repeated = [r for r in runs if r.metrics.get("epochs")]
    if not repeated:
        return None
    if len(repeated) == len(runs):
        return "Mean over each run's epochs (eval --epochs) ± standard error across the epochs."
    named = ", ".join(f"{r.label} ({(r.metrics.get('epochs') or {}).get('n', '?')} epochs)" for r in repeated)
    return (
        f"Mean ± standard error over {unit}; runs made with --epochs ({named}): mean over the epochs ± "
        "standard error across the epochs."
    )


def _reference_metrics(run: RunDir) -> Mapping[str, Any]:
    """The metrics the human reference rows come from: the run's own, or for a run made
    with --epochs its first epoch's (the labels are the same in every epoch, so the mean is
    the same and ± stays the standard error over questions)."""
    per_epoch = (run.metrics.get("epochs") or {}).get("per_epoch") or []
    return per_epoch[0] if per_epoch and isinstance(per_epoch[0], Mapping) else run.metrics


def socialnav_table1(runs: Sequence[RunDir]) -> Table:
    """SocialNav-SUB Table 1: PA and CWPA (± SE) for All and the three categories.

    Rows: Human Oracle and Average Human (the reference rows of the first run's
    metrics.json), the baseline runs (``baseline:*``, ``mock:*``), every other run under
    "VLM" (perturbed runs only when all are, see :func:`main_runs`), then the runs whose
    answers come partly from elsewhere in their own sections (:func:`sn_section`:
    ``scene-context`` under "Perception-assisted", ``cot-gt`` and ``human:*`` under
    "Human-derived"). The best VLM value of each column is bold (the best baseline run when
    no VLM is present); reference, perception-assisted and human-derived rows are never
    marked.
    """
    protocol = _check_protocol(runs)
    runs = main_runs(runs)
    columns = tuple(m for _ in SN_GROUPS for m in ("PA", "CWPA"))
    groups = tuple((SN_GROUP_TITLES[g], 2) for g in SN_GROUPS)
    rows: list[Row] = []
    ref = _reference_metrics(runs[0])
    for key, name in HUMAN_ROWS:
        cells = [c for g in SN_GROUPS for c in sn_pair(sn_block(ref, key, g))]
        rows.append(Row((name,), tuple(cells), "Baseline"))
    n_ref = len(rows)
    for r in by_section(runs):
        cells = [c for g in SN_GROUPS for c in sn_pair(sn_block(r.metrics, "model", g))]
        rows.append(Row((r.label,), tuple(cells), sn_section(r)))
    vlm = [i for i, row in enumerate(rows) if row.section == "VLM"]
    candidates = vlm or [i for i in range(n_ref, len(rows)) if rows[i].section == "Baseline"]
    rows = mark_best(rows, candidates, range(len(columns)), underline_second=False)
    human = f"Human Oracle and Average Human from {runs[0].label}'s labels"
    spread = epochs_note(runs)
    notes = [
        f"Protocol: {protocol}. "
        + (f"{spread} {human} (± over questions)." if spread else f"Mean ± standard error over questions; {human}.")
        + f" Bold: best {'VLM' if vlm else 'baseline run'} per column."
    ]
    sections = {row.section for row in rows}
    if ASSISTED in sections:
        notes.append(
            "Perception-assisted: the rule-based module answered the spatial and spatiotemporal questions "
            "and its answers were given to the model (--method scene-context); not ranked."
        )
    if HUMAN_DERIVED in sections:
        notes.append(
            "Human-derived: answers taken partly or wholly from the human labels (cot-gt: spatial and "
            "spatiotemporal answers are the human mode; human:* runs); not ranked. A Sampled Human run "
            "scores one drawn human vote against a distribution that includes that vote, so it is higher "
            "than the leave-one-out Average Human row."
        )
    return Table(
        "socialnav_table1",
        "Average performance across question categories (SocialNav-SUB Table 1)",
        ("Model",),
        columns,
        tuple(rows),
        groups,
        tuple(notes),
        section_header="Category",
    )


def socialnav_question_table(runs: Sequence[RunDir], which: str = "models") -> Table | None:
    """Per-question PA and CW PA (SocialNav-SUB Tables 10-12), one column pair per answerer.

    ``which="models"``: the non-baseline runs (Tables 10 and 11); ``"baselines"``: Human
    Oracle, Average Human and the baseline runs (Table 12). ``None`` when there is nothing
    to show.
    """
    protocol = _check_protocol(runs)
    runs = main_runs(runs)
    answerers: list[tuple[str, Mapping[str, Any], str]] = []
    if which == "baselines":
        answerers += [(name, runs[0].metrics, key) for key, name in HUMAN_ROWS]
        answerers += [(r.label, r.metrics, "model") for r in runs if r.is_baseline]
        title = "Performance across individual questions for baselines (SocialNav-SUB Table 12)"
    elif which == "models":
        answerers += [(r.label, r.metrics, "model") for r in runs if not r.is_baseline]
        title = "Performance across individual questions for models (SocialNav-SUB Tables 10-11)"
    else:
        raise ValueError(f"which must be 'models' or 'baselines', got {which!r}")
    if not answerers:
        return None
    present = set()
    for _, m, key in answerers:
        present |= set(((m.get("scores") or {}).get(key) or {}).keys())
    order = [q for q in QUESTION_TABLE if q[1] in present]
    if not order:
        return None
    rows = []
    for cat, key, name in order:
        cells = []
        for _, m, row in answerers:
            cells += list(sn_pair(sn_block(m, row, key)))
        rows.append(Row((name,), tuple(cells), cat))
    columns = tuple(c for _ in answerers for c in ("PA", "CW PA"))
    groups = tuple((label, 2) for label, _, _ in answerers)
    notes: tuple[str, ...] = (f"Protocol: {protocol}. Mean ± standard error over the questions of each type.",)
    apart = sources_note([r for r in runs if r.label in {label for label, _, _ in answerers}])
    if apart is not None:
        notes += (apart,)
    return Table(
        f"socialnav_questions_{which}",
        title,
        ("Question Name",),
        columns,
        tuple(rows),
        groups,
        notes,
        section_header="Category",
    )


#: The rows of the paper's Tables 2 / 13: (row name, --method, --images).
ABLATIONS: tuple[tuple[str, str, str], ...] = (
    ("BEV + CoT", "cot", "img-with-bev"),
    ("No CoT", "independent", "img-with-bev"),
    ("No BEV", "cot", "img"),
)
#: The columns of Table 14 (and the hybrid strategy next to them): (title, --method).
GT_METHODS: tuple[tuple[str, str], ...] = (
    ("CoT", "cot"),
    ("CoT with ground-truth spatial(temporal) answers", "cot-gt"),
    ("CoT-GT without Person Goal Obstruction", "cot-gt-no-obstruction"),
    ("Scene context (rule-based perception)", "scene-context"),
)
#: Table 14's columns that need the cot run and one of these.
_GT_RUNS = ("cot-gt", "cot-gt-no-obstruction")


def _method(r: RunDir) -> str:
    """A run's ``--method``, ``cot-gt-no-obstruction`` for ``cot-gt --gt-without-obstruction``."""
    method = str(r.run.get("method") or "independent")
    return method + ("-no-obstruction" if method == "cot-gt" and r.run.get("gt_without_obstruction") else "")


def _same_model_key(r: RunDir) -> tuple[Any, ...]:
    """What runs that differ only in ``--method`` / ``--images`` share."""
    return (r.benchmark, r.model, r.options_key(rag=True))


def _by_model(runs: Sequence[RunDir]) -> dict[tuple[Any, ...], dict[tuple[str, str], RunDir]]:
    """Clean runs grouped by :func:`_same_model_key`, then by (method, images)."""
    out: dict[tuple[Any, ...], dict[tuple[str, str], RunDir]] = {}
    for r in runs:
        if r.perturbation is not None:
            continue
        cfg = (_method(r), str(r.run.get("images") or "img-with-bev"))
        out.setdefault(_same_model_key(r), {}).setdefault(cfg, r)
    return out


def socialnav_ablation_table(runs: Sequence[RunDir]) -> Table | None:
    """SocialNav-SUB Tables 2 / 13: the querying-strategy ablation, PA ± SE per category.

    For each model with at least two of the :data:`ABLATIONS` configurations among the runs
    (same model, benchmark and options; clean images), one row per configuration present:
    BEV + CoT (``--method cot``), No CoT (``--method independent``), No BEV (``--method cot
    --images img``). ``None`` when no model has two.
    """
    protocol = _check_protocol(runs)
    cats = SN_GROUPS[1:]
    rows = []
    shown = []
    for configs in _by_model(runs).values():
        present = [(name, configs[(m, i)]) for name, m, i in ABLATIONS if (m, i) in configs]
        if len(present) < 2:
            continue
        for name, r in present:
            shown.append(r)
            cells = tuple(sn_pair(sn_block(r.metrics, "model", c))[0] for c in cats)
            rows.append(Row((display_name(r.model), marked(name, [r])), cells))
    if not rows:
        return None
    notes: tuple[str, ...] = (
        f"Protocol: {protocol}. Probability of Agreement"
        + (f". {spread} " if (spread := epochs_note(shown)) else ", mean ± standard error over questions. ")
        + "BEV + CoT: --method cot; No CoT: --method independent; No BEV: --method cot --images img "
        "(front view only).",
    )
    if (note := partial_note(shown)) is not None:
        notes += (note,)
    return Table(
        "socialnav_table2_ablation",
        "Ablation experiment of querying strategies, PA (SocialNav-SUB Tables 2 and 13)",
        ("Model", "Ablation"),
        tuple(SN_GROUP_TITLES[c] for c in cats),
        tuple(rows),
        (),
        notes,
    )


def socialnav_gt_table(runs: Sequence[RunDir]) -> Table | None:
    """SocialNav-SUB Table 14: CoT vs CoT with the human answers to the spatial and
    spatiotemporal questions, per social question (PA and CW PA ± SE).

    For each model with a ``cot`` run and a ``cot-gt`` run (same images and options; clean),
    one section of seven rows; a ``cot-gt --gt-without-obstruction`` run (§7.9's follow-up:
    Person Goal Obstruction answered by the model) and a ``scene-context`` run of the same
    model add a column pair each (the latter: the rule-based perception module's answers
    instead of the humans'). ``None`` when no model has ``cot`` and one of the ``cot-gt``
    runs.
    """
    protocol = _check_protocol(runs)
    social = [(key, name) for cat, key, name in QUESTION_TABLE if cat == "Social"]
    blocks = []
    for configs in _by_model(runs).values():
        for images in sorted({i for _, i in configs}):
            if ("cot", images) not in configs or not any((m, images) in configs for m in _GT_RUNS):
                continue
            blocks.append((configs[("cot", images)], [configs.get((m, images)) for _, m in GT_METHODS]))
    if not blocks:
        return None
    shown = [j for j, (_, m) in enumerate(GT_METHODS) if m in ("cot", "cot-gt") or any(f[j] for _, f in blocks)]
    methods = [GT_METHODS[j] for j in shown]
    with_context = "scene-context" in {m for _, m in methods}
    rows = []
    for base, found in blocks:
        label = display_name(base.model) + (
            "" if base.run.get("images") in (None, "img-with-bev") else f" ({base.run.get('images')})"
        )
        label = marked(label, [base, *(r for r in found if r is not None)])
        for key, name in social:
            cells: list[Cell] = []
            for j in shown:
                r = found[j]
                cells += list(sn_pair(sn_block(r.metrics, "model", key) if r is not None else None))
            rows.append(Row((name,), tuple(cells), label))
    notes = [
        f"Protocol: {protocol}. Mean ± standard error over the questions of each type. CoT with ground truth: "
        "the spatial and spatiotemporal questions are answered by the human mode and given to the model as "
        "chain-of-thought context (--method cot-gt); only the social questions are the model's."
    ]
    if any(m == "cot-gt-no-obstruction" for _, m in methods):
        notes.append(
            "CoT-GT without Person Goal Obstruction (§7.9's follow-up, --gt-without-obstruction): as CoT-GT, "
            "but the model answers Person Goal Obstruction itself and its own answer is the context."
        )
    if with_context:
        notes.append(
            "Scene context: the same questions answered by the rule-based module on the tracks instead "
            "(--method scene-context)."
        )
    in_table = {id(r): r for base, found in blocks for r in (base, *found) if r is not None}
    note = partial_note(list(in_table.values()))
    if note is not None:
        notes.append(note)
    return Table(
        "socialnav_table14_cot_gt",
        "CoT vs CoT with ground-truth spatial and spatiotemporal answers (SocialNav-SUB Table 14)",
        ("Question Name",),
        tuple(c for _ in methods for c in ("PA", "CW PA")),
        tuple(rows),
        tuple((title, 2) for title, _ in methods),
        tuple(notes),
        section_header="Model",
    )


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
        + "Baseline rows answer from the candidates' geometry alone (nearest, straightest, toward the goal, "
        + "random): every candidate is another sample's operator move, dealt so that a rule blind to the scene "
        + "scores exactly chance (1/5); toward-goal may beat it, as heading for the goal is part of the task.",
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
