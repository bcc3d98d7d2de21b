"""SocialNav-SUB tables from item-level data (the labels and each run's answers):
:func:`failure_env_table` (Table 4: overall failure rate and FRI per scene attribute
value), :func:`action_table` (Table 5: chosen action and failure rate) and
:func:`socialnav_item_tables`, which computes them with the scene-clustered bootstrap
confidence intervals of every run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from socialbench.report.item_data import ItemData, protocol_of
from socialbench.report.loading import RunDir, unit_scores
from socialbench.report.socialnav_tables import QUESTION_NAMES, SN_GROUP_TITLES, SN_GROUPS
from socialbench.report.table import EMPTY, Cell, Row, Table, fmt_pct

__all__ = ["failure_env_table", "action_table", "socialnav_item_tables"]


def failure_env_table(per_run: Sequence[tuple[str, Mapping[str, Any], Sequence[Mapping[str, Any]]]]) -> Table | None:
    """SocialNav-SUB Table 4: overall failure rate and FRI per scene-attribute value.

    ``per_run``: ``(label, failure_summary(...), [failure_rate_by_attribute(...), ...])``
    for each run. Cells: ``1.39× (32.91% ± 2.15%)``; the value kept for CSV is the FRI.
    An attribute with a single value over all runs (every scene indoors, say) gives no
    column: its FRI is 1 by construction and says nothing.
    """
    if not per_run:
        return None
    # columns: union of (attribute, value) in first-seen order
    cols: list[tuple[str, Any]] = []
    for _, _, analyses in per_run:
        for a in analyses:
            for g in a["groups"]:
                if (a["attribute"], g.value) not in cols:
                    cols.append((a["attribute"], g.value))
    n_values: dict[str, int] = {}
    for attribute, _ in cols:
        n_values[attribute] = n_values.get(attribute, 0) + 1
    cols = [c for c in cols if n_values[c[0]] > 1]
    rows = []
    for label, summary, analyses in per_run:
        overall = Cell(
            f"{fmt_pct(summary['failure_rate'])} ± {fmt_pct(summary['failure_rate_se'])}",
            summary["failure_rate"],
            summary["failure_rate_se"],
        )
        found = {(a["attribute"], g.value): g for a in analyses for g in a["groups"]}
        cells = [overall]
        for col in cols:
            g = found.get(col)
            if g is None:
                cells.append(EMPTY)
            else:
                fri = "—" if g.fri is None else f"{g.fri:.2f}×"
                cells.append(Cell(f"{fri} ({fmt_pct(g.failure_rate)} ± {fmt_pct(g.failure_rate_se)})", g.fri, None))
        rows.append(Row((label,), tuple(cells)))
    columns = ("Overall FR",) + tuple(_attr_label(a, v) for a, v in cols)
    notes = (
        "Failure: an answer no human gave (invalid answers and model errors included). Attribute cells: "
        "failure-rate increase FRI = FR(group) / overall FR (1 = the model's average), with the group's FR ± SE.",
    )
    return Table(
        "socialnav_failures_by_attribute",
        "Failure rate by scene attribute (SocialNav-SUB Table 4)",
        ("Model",),
        columns,
        tuple(rows),
        (),
        notes,
    )


def _attr_label(attribute: str, value: Any) -> str:
    if isinstance(value, bool):
        return attribute if value else f"not {attribute}"
    return f"{attribute}: {value}"


#: Table 5's column order in the paper, per question type.
PAPER_ACTION_ORDER: dict[str, tuple[str, ...]] = {
    "q_robot_action": ("yielding to", "overtaking", "following", "avoiding", "not considering"),
}


def action_table(per_run: Sequence[tuple[str, Mapping[str, Any]]]) -> Table | None:
    """SocialNav-SUB Table 5: per chosen action, failure rate (occurrence %) per run.

    ``per_run``: ``(label, action_distribution(...))``. A never-chosen action is "—".
    """
    per_run = [(lab, d) for lab, d in per_run if d.get("actions")]
    if not per_run:
        return None
    actions: list[str] = []
    for _, d in per_run:
        for a in d["actions"]:
            if a.action not in actions:
                actions.append(a.action)
    paper = PAPER_ACTION_ORDER.get(per_run[0][1]["base_key"], ())
    actions.sort(key=lambda a: paper.index(a) if a in paper else len(paper))  # stable: others keep their order
    rows = []
    for label, d in per_run:
        by = {a.action: a for a in d["actions"]}
        cells = []
        for name in actions:
            a = by.get(name)
            if a is None or a.failure_rate is None:
                cells.append(EMPTY)
            else:
                cells.append(Cell(f"{fmt_pct(a.failure_rate)} ({100 * a.share:.1f}%)", a.failure_rate, None))
        rows.append(Row((label,), tuple(cells)))
    base = per_run[0][1]["base_key"]
    name = QUESTION_NAMES.get(base, base)
    notes = (
        "Cells: failure rate among the answers that chose the action; parentheses: how often the model "
        "chose it (% of valid answers). —: never chosen.",
    )
    return Table(
        f"socialnav_actions_{base}",
        f"{name}: chosen action and failure rate (SocialNav-SUB Table 5)",
        ("Model",),
        tuple(a[:1].upper() + a[1:] for a in actions),
        tuple(rows),
        (),
        notes,
    )


def socialnav_item_tables(
    runs: Sequence[RunDir], data: ItemData, attributes: Sequence[str], *, seed: int, n_boot: int
) -> list[Table]:
    """Failure tables (Tables 4, 5) and scene-clustered bootstrap CIs for SocialNav-SUB."""
    from socialbench.metrics.failures import action_distribution, failure_rate_by_attribute, failure_summary
    from socialbench.metrics.stats import bootstrap_means_ci
    from socialbench.navigation.scene_features import FEATURES, scene_features

    protocol = protocol_of(runs)
    items = data.items()
    features = (
        {iid: scene_features(it.metadata) for iid, it in items.items()} if set(attributes) & set(FEATURES) else {}
    )

    def value(item_id: str, attribute: str) -> Any:
        if attribute in FEATURES:
            return features[item_id].get(attribute)
        return items[item_id].metadata.get(attribute)

    env, actions, ci_rows = [], [], []
    for i in data.indices:
        r, entries = runs[i], data.entries[i]
        if not entries:
            continue
        summary = failure_summary(entries, protocol)
        analyses = [
            failure_rate_by_attribute(entries, [value(e.item_id, a) for e in entries], protocol, a) for a in attributes
        ]
        env.append((r.label, summary, analyses))
        actions.append((r.label, action_distribution(entries, "q_robot_action", protocol)))
        us = unit_scores(entries, protocol)
        if not us.keys:
            continue
        cat_of = {(e.item_id, e.question.key): e.question.category for e in entries}
        cats = [cat_of[k] for k in us.keys]
        masks = [np.ones(len(cats), dtype=bool) if g == "All" else np.array([c == g for c in cats]) for g in SN_GROUPS]
        cols = [(us.pa, mk) for mk in masks] + [(us.cwpa, mk) for mk in masks]
        cis = bootstrap_means_ci(
            np.column_stack([c[0] for c in cols]),
            np.column_stack([c[1] for c in cols]),
            us.clusters,
            n_boot=n_boot,
            seed=seed,
        )
        k = len(SN_GROUPS)
        cells = []
        for j in range(k):
            for ci in (cis[j], cis[k + j]):
                cells.append(EMPTY if ci.n == 0 else Cell(f"[{ci.low:.2f}, {ci.high:.2f}]", None, None))
        ci_rows.append(Row((r.label,), tuple(cells)))
    out: list[Table] = []
    t = failure_env_table(env)
    if t is not None:
        out.append(t)
    t = action_table(actions)
    if t is not None:
        out.append(t)
    if ci_rows:
        out.append(
            Table(
                "socialnav_bootstrap_ci",
                "Scene-clustered bootstrap 95% confidence intervals",
                ("Model",),
                tuple(m for _ in SN_GROUPS for m in ("PA", "CWPA")),
                tuple(ci_rows),
                tuple((SN_GROUP_TITLES[g], 2) for g in SN_GROUPS),
                (
                    f"Percentile intervals from {n_boot} bootstrap replicates resampling whole samples (scenes), seed {seed}; "
                    f"protocol {protocol}.",
                ),
            )
        )
    return out
