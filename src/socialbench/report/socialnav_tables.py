"""The SocialNav-SUB paper tables built from run directories, and the names they share:
:func:`socialnav_table1` (Table 1) and :func:`socialnav_question_table` (Tables 10-12). The
ablation tables are in :mod:`socialbench.report.socialnav_ablation_tables`, the waypoint
table in :mod:`socialbench.report.waypoint_table`, the tables from item-level data in
:mod:`socialbench.report.socialnav_item_tables`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from socialbench.errors import UsageError
from socialbench.report.metric_cells import sn_block, sn_pair
from socialbench.report.provenance import ASSISTED, HUMAN_DERIVED, by_section, section_of, sources_note
from socialbench.report.run_dir import RunDir
from socialbench.report.table import Row, Table, mark_best

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


def check_protocol(runs: Sequence[RunDir]) -> str:
    """The scoring protocol shared by ``runs``; a UsageError when they differ."""
    protocols = {r.protocol for r in runs}
    if len(protocols) > 1:
        raise UsageError(
            "the runs were scored with different protocols ("
            + ", ".join(f"{r.label}: {r.protocol}" for r in runs)
            + "); re-score them with one `socialbench score --protocol ...`"
        )
    return protocols.pop()


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


def _reference_metrics(run: RunDir) -> Mapping[str, object]:
    """The metrics the human reference rows come from: the run's own, or for a run made
    with --epochs its first epoch's (the labels are the same in every epoch, so the mean is
    the same and ± stays the standard error over questions)."""
    per_epoch = (run.metrics.get("epochs") or {}).get("per_epoch") or []
    return per_epoch[0] if per_epoch and isinstance(per_epoch[0], Mapping) else run.metrics


def _scored_questions(run: RunDir) -> int | None:
    """How many questions the human rows of ``run``'s metrics.json were computed on (their
    ``All`` count); None when it has none (a run that answered nothing)."""
    block = sn_block(_reference_metrics(run), "human:oracle", "All")
    n = block.get("n") if block else None
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


def human_bases(runs: Sequence[RunDir]) -> list[tuple[int, RunDir, list[RunDir]]]:
    """The question sets the human reference rows are computed on: one ``(questions, run,
    runs)`` per distinct set scored by the ranked runs (the VLM and baseline rows; every run
    when none is), largest first. ``run`` is the one whose metrics.json gives the human rows
    (the human rows depend on the labels of the questions only, not on the answers, so any
    run of a set gives the same), ``runs`` every ranked run of that set. A set is told by
    the dataset and the number of questions scored, whatever the order of ``runs``: a
    ``--limit 1`` run or an interrupted one listed first no longer sets the human rows of
    complete runs."""
    ranked = [r for r in runs if section_of(r) in ("VLM", "Baseline")] or list(runs)
    groups: dict[tuple[str, int], list[RunDir]] = {}
    for r in ranked:
        n = _scored_questions(r)
        if n is not None:
            groups.setdefault((str(r.run.get("dataset_fingerprint") or r.run.get("data") or ""), n), []).append(r)
    return [(n, members[0], members) for (_, n), members in sorted(groups.items(), key=lambda kv: -kv[0][1])]


def human_rows(runs: Sequence[RunDir]) -> tuple[list[tuple[str, str, Mapping[str, Any]]], str]:
    """The human reference rows of a table of ``runs`` as (row name, metrics key, metrics)
    and the sentence saying what they were computed on (:func:`human_bases`)."""
    bases = human_bases(runs)
    if not bases:
        return [(name, key, {}) for key, name in HUMAN_ROWS], "no run scored a question, so no human rows"
    if len(bases) == 1:
        n, ref, _ = bases[0]
        rows = [(name, key, _reference_metrics(ref)) for key, name in HUMAN_ROWS]
        return (
            rows,
            f"Human Oracle and Average Human from the labels of the {n:,} questions every ranked run was scored on",
        )
    rows = []
    for n, ref, members in bases:
        of = ", ".join(r.label for r in members)
        rows += [(f"{name} ({n:,} questions: {of})", key, _reference_metrics(ref)) for key, name in HUMAN_ROWS]
    sets = "; ".join(f"{n:,} ({', '.join(r.label for r in members)})" for n, _, members in bases)
    return rows, (
        f"the ranked runs were scored on different questions ({sets}): the rows beside each other are not on one "
        "basis, so each set has its own Human Oracle and Average Human rows, named by its questions and runs"
    )


def socialnav_table1(runs: Sequence[RunDir]) -> Table:
    """SocialNav-SUB Table 1: PA and CWPA (± SE) for All and the three categories.

    Rows: Human Oracle and Average Human (from the labels of the questions the ranked runs
    were scored on; one pair per set when they differ, :func:`human_bases`), the baseline runs (``baseline:*``, ``mock:*``), every other run under
    "VLM" (perturbed runs only when all are, see :func:`main_runs`), then the runs whose
    answers come partly from elsewhere in their own sections (:func:`section_of`:
    ``scene-context`` under "Perception-assisted", ``cot-gt`` and ``human:*`` under
    "Human-derived"). The best VLM value of each column is bold (the best baseline run when
    no VLM is present); reference, perception-assisted and human-derived rows are never
    marked.
    """
    protocol = check_protocol(runs)
    runs = main_runs(runs)
    columns = tuple(m for _ in SN_GROUPS for m in ("PA", "CWPA"))
    groups = tuple((SN_GROUP_TITLES[g], 2) for g in SN_GROUPS)
    rows: list[Row] = []
    references, human = human_rows(runs)
    for name, key, ref in references:
        cells = [c for g in SN_GROUPS for c in sn_pair(sn_block(ref, key, g))]
        rows.append(Row((name,), tuple(cells), "Baseline"))
    n_ref = len(rows)
    for r in by_section(runs):
        cells = [c for g in SN_GROUPS for c in sn_pair(sn_block(r.metrics, "model", g))]
        rows.append(Row((r.label,), tuple(cells), section_of(r)))
    vlm = [i for i, row in enumerate(rows) if row.section == "VLM"]
    candidates = vlm or [i for i in range(n_ref, len(rows)) if rows[i].section == "Baseline"]
    rows = mark_best(rows, candidates, range(len(columns)), underline_second=False)
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
    protocol = check_protocol(runs)
    runs = main_runs(runs)
    answerers: list[tuple[str, Mapping[str, Any], str]] = []
    human_note = ""
    if which == "baselines":
        references, human_note = human_rows(runs)
        answerers += [(name, ref, key) for name, key, ref in references]
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
    notes: tuple[str, ...] = (
        f"Protocol: {protocol}. Mean ± standard error over the questions of each type."
        + (f" {human_note[0].upper()}{human_note[1:]}." if human_note else ""),
    )
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
