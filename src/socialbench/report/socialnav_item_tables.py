"""SocialNav-SUB tables from item-level data (the labels and each run's answers):
:func:`failure_env_table` (Table 4: overall failure rate and FRI per scene attribute
value), :func:`action_table` (Table 5: chosen action and failure rate) and
:func:`socialnav_item_tables`, which computes them with the scene-clustered bootstrap
confidence intervals of every run. Runs kept apart (:mod:`socialbench.report.provenance`)
get their own section, and their failure rates count only the answers the model gave."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from socialbench.report.item_data import ItemData, protocol_of
from socialbench.report.provenance import SECTION_ORDER, given_keys, section_of, sources_note
from socialbench.report.run_dir import RunDir
from socialbench.report.socialnav_tables import QUESTION_NAMES, SN_GROUP_TITLES, SN_GROUPS
from socialbench.report.table import EMPTY, Cell, Row, Table, fmt_pct
from socialbench.report.unit_scores import unit_scores

__all__ = ["failure_env_table", "action_table", "socialnav_item_tables"]


def failure_env_table(
    per_run: Sequence[tuple[str, Mapping[str, Any], Sequence[Mapping[str, Any]]]],
    sections: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> Table | None:
    """SocialNav-SUB Table 4: overall failure rate and FRI per scene-attribute value.

    ``per_run``: ``(label, failure_summary(...), [failure_rate_by_attribute(...), ...])``
    for each run. Cells: ``1.39× (32.91% ± 2.15%)``; the value kept for CSV is the FRI.
    An attribute with a single value over all runs (every scene indoors, say) gives no
    column: its FRI is 1 by construction and says nothing. ``sections`` (one per run, e.g.
    from :func:`~socialbench.report.provenance.section_of`) and ``notes`` are shown when given.
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
    n_values = Counter(attribute for attribute, _ in cols)
    cols = [c for c in cols if n_values[c[0]] > 1]
    rows = []
    for k, (label, summary, analyses) in enumerate(per_run):
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
        rows.append(Row((label,), tuple(cells), sections[k] if sections else ""))
    columns = ("Overall FR",) + tuple(_attr_label(a, v) for a, v in cols)
    all_notes = (
        "Failure: an answer no human gave (invalid answers and model errors included). Attribute cells: "
        "failure-rate increase FRI = FR(group) / overall FR (1 = the model's average), with the group's FR ± SE.",
    ) + tuple(notes)
    return Table(
        "socialnav_failures_by_attribute",
        "Failure rate by scene attribute (SocialNav-SUB Table 4)",
        ("Model",),
        columns,
        tuple(rows),
        (),
        all_notes,
        section_header="Answers" if sections else "",
    )


def _attr_label(attribute: str, value: object) -> str:
    if isinstance(value, bool):
        return attribute if value else f"not {attribute}"
    return f"{attribute}: {value}"


#: Table 5's column order in the paper, per question type.
PAPER_ACTION_ORDER: dict[str, tuple[str, ...]] = {
    "q_robot_action": ("yielding to", "overtaking", "following", "avoiding", "not considering"),
}


def action_table(
    per_run: Sequence[tuple[str, Mapping[str, Any]]], sections: Sequence[str] = (), notes: Sequence[str] = ()
) -> Table | None:
    """SocialNav-SUB Table 5: per chosen action, failure rate (occurrence %) per run.

    ``per_run``: ``(label, action_distribution(...))``. A never-chosen action is "—".
    ``sections`` (one per run) and ``notes`` are shown when given.
    """
    kept = [k for k, (_, d) in enumerate(per_run) if d.get("actions")]
    sections = [sections[k] for k in kept] if sections else []
    per_run = [per_run[k] for k in kept]
    if not per_run:
        return None
    actions = list(dict.fromkeys(a.action for _, d in per_run for a in d["actions"]))
    paper = PAPER_ACTION_ORDER.get(per_run[0][1]["base_key"], ())
    actions.sort(key=lambda a: paper.index(a) if a in paper else len(paper))  # stable: others keep their order
    rows = []
    for k, (label, d) in enumerate(per_run):
        by = {a.action: a for a in d["actions"]}
        cells = []
        for name in actions:
            a = by.get(name)
            if a is None or a.failure_rate is None:
                cells.append(EMPTY)
            else:
                cells.append(Cell(f"{fmt_pct(a.failure_rate)} ({100 * a.share:.1f}%)", a.failure_rate, None))
        rows.append(Row((label,), tuple(cells), sections[k] if sections else ""))
    base = per_run[0][1]["base_key"]
    name = QUESTION_NAMES.get(base, base)
    all_notes = (
        "Cells: failure rate among the answers that chose the action; parentheses: how often the model "
        "chose it (% of valid answers). —: never chosen.",
    ) + tuple(notes)
    return Table(
        f"socialnav_actions_{base}",
        f"{name}: chosen action and failure rate (SocialNav-SUB Table 5)",
        ("Model",),
        tuple(a[:1].upper() + a[1:] for a in actions),
        tuple(rows),
        (),
        all_notes,
        section_header="Answers" if sections else "",
    )


def socialnav_item_tables(
    runs: Sequence[RunDir], data: ItemData, attributes: Sequence[str], *, seed: int, n_boot: int
) -> list[Table]:
    """Failure tables (Tables 4, 5) and scene-clustered bootstrap CIs for SocialNav-SUB.

    Runs are ordered Baseline, VLM, then the runs kept apart (Perception-assisted,
    Human-derived), which get their own sections and a note; failure rates count the
    answers the model gave (:func:`~socialbench.report.provenance.given_keys` left out),
    while the CIs cover what Table 1 scores."""
    from socialbench.metrics.bootstrap import bootstrap_means_ci
    from socialbench.metrics.failure_analysis import action_distribution, failure_rate_by_attribute
    from socialbench.metrics.failures import failure_summary
    from socialbench.navigation.scene_features import FEATURES, scene_features

    protocol = protocol_of(runs)
    items = data.items()
    features = (
        {iid: scene_features(it.metadata) for iid, it in items.items()} if set(attributes) & set(FEATURES) else {}
    )

    def value(item_id: str, attribute: str) -> object:
        if attribute in FEATURES:
            return features[item_id].get(attribute)
        return items[item_id].metadata.get(attribute)

    env, actions, ci_rows = [], [], []
    env_sections: list[str] = []
    order = sorted(data.indices, key=lambda i: SECTION_ORDER.index(section_of(runs[i])))
    for i in order:
        r, entries = runs[i], data.entries[i]
        if not entries:
            continue
        given = given_keys(r)
        own = [e for e in entries if (e.item_id, e.question.key) not in given]
        if own:
            summary = failure_summary(own, protocol)
            analyses = [
                failure_rate_by_attribute(own, [value(e.item_id, a) for e in own], protocol, a) for a in attributes
            ]
            env.append((r.label, summary, analyses))
            actions.append((r.label, action_distribution(own, "q_robot_action", protocol)))
            env_sections.append(section_of(r))
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
        ci_rows.append(Row((r.label,), tuple(cells), section_of(r)))
    shown = [runs[i] for i in order]
    apart = sources_note(shown)
    split = apart is not None
    notes: tuple[str, ...] = (apart,) if apart is not None else ()
    if any(given_keys(r) for r in shown):
        notes += (
            "Failure rates of cot-gt / scene-context runs count only the questions the model answered "
            "(the human modes and the rule-based answers it was given are left out).",
        )
    sections = env_sections if split else []
    out = [
        t for t in (failure_env_table(env, sections, notes), action_table(actions, sections, notes)) if t is not None
    ]
    if not split:
        ci_rows = [replace(row, section="") for row in ci_rows]
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
                )
                + ((apart,) if apart is not None else ()),
                section_header="Answers" if split else "",
            )
        )
    return out
