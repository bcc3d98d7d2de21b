"""The RobotEQ paper tables built from run directories.

:func:`roboteq_table1` (Table 1: PA, CWPA, MicF1, MacF1 per subset and the Avg CWPA /
MacF1, in percent; best in bold, runner-up underlined), :func:`roboteq_rag_table` (Table 2:
Macro-F1 raw vs RAG, the gain, and seconds per query; ``roboteq_sg_rag`` for
spatial-grounding runs), :func:`roboteq_ablation_table` (Figure 6: with / without image and
CoT), :func:`roboteq_grounding_table` (spatial grounding per subset) and
:func:`roboteq_run_coverage` (where each run of a report is shown) and
:func:`roboteq_human_image_table` (Figure 6(a): humans with and without the image).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from socialbench.report.metric_cells import rq_cell, rq_value
from socialbench.report.provenance import by_section, marked, partial_note, section_of, sources_note
from socialbench.report.robustness_table import robustness_key
from socialbench.report.run_dir import RunDir
from socialbench.report.table import EMPTY, Cell, Row, Table, fmt_num, mark_best, mean_se_cell

RQ_SUBSETS = (("synthetic", "Synthetic Subset (%)"), ("real", "Real Subset (%)"))
RQ_METRICS = (("PA", "pa"), ("CWPA", "cwpa"), ("MicF1", "micro_f1"), ("MacF1", "macro_f1"))
RQ_AVG = (("CWPA", "cwpa"), ("MacF1", "macro_f1"))

#: The Human rows, one per definition of :mod:`socialbench.metrics.human`: (key, row name).
HUMAN_ROWS = (("final-label", "Human (final label)"), ("leave-one-out", "Human (leave-one-out)"))


def roboteq_table1(runs: Sequence[RunDir], human: Mapping[str, Mapping[str, Any]] | None = None) -> Table:
    """RobotEQ Table 1 (behavior judgment): PA, CWPA, MicF1, MacF1 per subset and Avg
    CWPA / MacF1, in percent, from each run's ``by_subset`` (``average`` = the unweighted
    mean of the two subsets). Best of each column in bold, runner-up underlined, among the
    VLM rows (baseline / oracle rows and the Human row are not ranked; all runs are ranked
    when none is a VLM, as in the SocialNav-SUB Table 1). Rows: the runs with the standard strategy and clean
    images (all runs when there are none); the others belong to Table 2 and the
    robustness table.

    ``human``: optional ``{definition: {subset: {"pa": {"value", "se"}, "cwpa": ...,
    "micro_f1": ..., "macro_f1": ...}}}`` (human baselines per subset from the labels'
    per-annotator votes, :func:`socialbench.report.roboteq_human.roboteq_human`) for one
    unranked row per definition present: "Human (final label)" (each annotator against the
    released label: the paper's definition) and "Human (leave-one-out)".
    """
    columns = tuple(m for _ in RQ_SUBSETS for m, _ in RQ_METRICS) + tuple(m for m, _ in RQ_AVG)
    groups = tuple((title, len(RQ_METRICS)) for _, title in RQ_SUBSETS) + (("Avg (%)", len(RQ_AVG)),)
    main = [r for r in runs if r.strategy == "standard" and r.perturbation is None]
    left_out = len(runs) - len(main) if main else 0
    rows = []
    shown_runs = by_section(main or runs)
    for r in shown_runs:
        size = str(r.run.get("model_size") or "–")
        cells = _table1_cells(r.metrics.get("by_subset") or {})
        rows.append(Row((r.label, size), cells, section_of(r)))
    vlm = [i for i, row in enumerate(rows) if row.section == "VLM"]
    rows = mark_best(rows, vlm or ranked_baselines(rows), range(len(columns)), underline_second=True)
    shown = [(key, name) for key, name in HUMAN_ROWS if human and human.get(key)]
    for key, name in shown:
        rows.append(Row((name, "–"), _table1_cells((human or {})[key]), "Human"))
    ranked = "VLM" if vlm else "baseline run"
    apart = sources_note(shown_runs)
    notes = (
        f"Percent. Avg: unweighted mean of the synthetic and real subsets. Bold: best {ranked}; underlined: runner-up."
        + (f" {apart}" if apart else "")
        + (
            f" {left_out} run(s) with another strategy or a perturbation are not rows here: the runs table "
            "(roboteq_runs) says where each one is shown (ablation, RAG or robustness table)."
            if left_out
            else ""
        )
        + "".join(_HUMAN_NOTES_BJ[key] for key, _ in shown),
    )
    return Table(
        "roboteq_table1",
        "Main results on behavior judgment (RobotEQ Table 1)",
        ("Model", "Size"),
        columns,
        tuple(rows),
        groups,
        notes,
    )


def ranked_baselines(rows: Sequence[Row]) -> list[int]:
    """The rows a table ranks when it has no VLM row: its baseline runs (a human-derived or
    perception-assisted run, e.g. ``human:oracle``, is never bolded nor ranked)."""
    return [i for i, row in enumerate(rows) if row.section == "Baseline"]


def _table1_cells(by_subset: Mapping[str, Any]) -> tuple[Cell, ...]:
    """A Table 1 row's cells from its blocks per subset (and ``average``)."""
    cells = [rq_cell(by_subset.get(s), m) for s, _ in RQ_SUBSETS for _, m in RQ_METRICS]
    return tuple(cells + [rq_cell(by_subset.get("average"), m) for _, m in RQ_AVG])


_HUMAN_NOTES_BJ = {
    "final-label": " Human (final label): PA / CWPA (Eq. 1-2) against the other annotators; MicF1 / MacF1 from "
    "every annotator's label against the released final label (pooled counts); an invalid vote is one of the "
    "annotators in PA / CWPA and a miss in F1. Not the paper's Human row, which cannot be recomputed from the "
    "release: with three proper/improper votes per behavior this definition gives PA = 2 x MicF1 - 1 exactly, "
    "and the paper's row is off that line in opposite directions (synthetic PA 81.04 vs 86.42 for its MicF1 "
    "93.21; real 83.11 vs 73.86 for 86.93), so no single definition gives both subsets.",
    "leave-one-out": " Human (leave-one-out): PA / CWPA as above; MicF1 / MacF1 against the majority of the other "
    "annotators (a tie among them counts both ways with weight 1/2; with three binary annotators MicF1 then "
    "equals PA, so this row is not comparable with the paper's).",
}
_HUMAN_NOTES_SG = {
    "final-label": "Human (final label): every annotator's selection against the released answer (the "
    "paper does not say how its Figure 5 Human bars were made; this is the reading closest to its wording).",
    "leave-one-out": "Human (leave-one-out): each annotator against the per-option majority of the other "
    "annotators (an option chosen by exactly half of them counts both ways with weight 1/2).",
}


def _rag_macro_f1(r: RunDir) -> tuple[float | None, str]:
    by = r.metrics.get("by_subset") or {}
    if "synthetic" in by:
        return rq_value(by["synthetic"], "macro_f1")[0], "synthetic"
    return rq_value(r.metrics.get("overall"), "macro_f1")[0], "overall"


def _seconds_per_query(r: RunDir) -> tuple[float | None, bool]:
    """Mean seconds per model request (RAG runs: including retrieval) and whether it is
    unknown because every request was answered from the response cache (a cached request
    has latency 0 and says nothing about the model's speed)."""
    req = r.metrics.get("requests") or {}
    n = req.get("requests")
    if (n and int(req.get("cached") or 0) >= int(n)) or req.get("latency_note"):
        return None, True
    rag = req.get("rag") or {}
    value = rag.get("time_s_per_query") if r.strategy == "rag" and rag else req.get("latency_s_per_request")
    if value is not None:
        return float(value), False
    return r.seconds_per_query(), False


def _pair_key(r: RunDir) -> tuple[str, str, bool, tuple[tuple[str, str], ...]]:
    """What a RAG run and its raw (standard) run share: benchmark, model, per-behavior and
    every non-default option that is not a RAG setting."""
    return (r.benchmark, r.model, bool(r.run.get("per_behavior")), r.options_key(rag=False))


def roboteq_rag_table(runs: Sequence[RunDir]) -> Table | None:
    """RobotEQ Table 2: Macro-F1 (%) without and with RAG, the gain, and seconds per query.

    Pairs each ``--strategy rag`` run with the same model's ``standard`` run (same
    benchmark and non-RAG options, no perturbation). Rows are labelled from the RAG run
    (its ``--label``, or the model and its RAG settings), so runs that differ only in the
    RAG backend or ``rag_k`` keep their own rows. Macro-F1 is the synthetic subset's when
    present (as in the paper), else the overall one. Judgment runs give ``roboteq_table2``;
    spatial-grounding runs (option-level Macro-F1) give ``roboteq_sg_rag``. ``None`` when
    no pair exists. The runs must be of one benchmark (``roboteq-bj`` or ``roboteq-sg``).
    """
    benches = {r.benchmark for r in runs}
    if len(benches) > 1:
        raise ValueError(f"roboteq_rag_table takes runs of one benchmark, got {sorted(benches)}")
    raw = {_pair_key(r): r for r in runs if r.strategy == "standard" and r.perturbation is None}
    rows = []
    basis = set()
    all_cached = False
    shown: list[RunDir] = []
    for r in runs:
        if r.strategy != "rag" or r.perturbation is not None:
            continue
        base = raw.get(_pair_key(r))
        if base is None:
            continue
        f_raw, b1 = _rag_macro_f1(base)
        f_rag, b2 = _rag_macro_f1(r)
        basis |= {b1, b2}
        gain = None if f_raw is None or f_rag is None else f_rag - f_raw
        (t_raw, c_raw), (t_rag, c_rag) = _seconds_per_query(base), _seconds_per_query(r)
        all_cached = all_cached or c_raw or c_rag
        cells = (
            EMPTY if f_raw is None else Cell(fmt_num(f_raw, 2, 100), 100 * f_raw),
            EMPTY if f_rag is None else Cell(fmt_num(f_rag, 2, 100), 100 * f_rag),
            EMPTY if gain is None else Cell(f"{100 * gain:+.2f}", 100 * gain),
            EMPTY if t_raw is None else Cell(f"{t_raw:.2f}", t_raw),
            EMPTY if t_rag is None else Cell(f"{t_rag:.2f}", t_rag),
        )
        shown += [base, r]
        rows.append(
            Row((marked(r.label, [base, r]), str(r.run.get("model_size") or base.run.get("model_size") or "–")), cells)
        )
    if not rows:
        return None
    where = (
        "synthetic subset"
        if basis == {"synthetic"}
        else "overall"
        if basis == {"overall"}
        else "synthetic subset where present, else overall"
    )
    grounding = benches == {"roboteq-sg"}
    what = "option-level Macro-F1" if grounding else "Macro-F1"
    note = f"{what} on the {where}. Time: mean seconds per model request (RAG: including retrieval), over requests not answered from the cache."
    if all_cached:
        note += " —: every request of that run was answered from the response cache, so no time was measured."
    notes: tuple[str, ...] = (note,) + tuple(n for n in (partial_note(list({id(r): r for r in shown}.values())),) if n)
    name, title = (
        ("roboteq_sg_rag", "Role of RAG on spatial grounding (RobotEQ, as Table 2)")
        if grounding
        else ("roboteq_table2", "Role of RAG (RobotEQ Table 2)")
    )
    return Table(
        name,
        title,
        ("Model", "Size"),
        ("Raw", "RAG", "Gain", "Raw", "RAG"),
        tuple(rows),
        (("Macro-F1 (%)", 3), ("Time (s/query)", 2)),
        notes,
    )


# --------------------------------------------------------------------------- ablations

#: The strategies of the with/without-image and CoT comparison (RobotEQ Figure 6), in column order.
ABLATION_STRATEGIES = (("standard", "Standard"), ("no-image", "No image"), ("cot", "CoT"))


def ablation_groups(runs: Sequence[RunDir]) -> list[dict[str, RunDir]]:
    """Clean (unperturbed) standard / no-image / CoT runs grouped by model and settings
    (:func:`_pair_key`): one dict strategy -> run per group. A second run of a strategy
    already in its group opens a new group, so no run is hidden."""
    wanted = {s for s, _ in ABLATION_STRATEGIES}
    groups: list[tuple[tuple[Any, ...], dict[str, RunDir]]] = []
    for r in runs:
        if r.perturbation is not None or r.strategy not in wanted:
            continue
        k = _pair_key(r)
        target = next((g for key, g in groups if key == k and r.strategy not in g), None)
        if target is None:
            groups.append((k, {}))
            target = groups[-1][1]
        target[r.strategy] = r
    return [g for _, g in groups]


def _headline_block(r: RunDir) -> tuple[Mapping[str, Any] | None, str]:
    by = r.metrics.get("by_subset") or {}
    if "average" in by:
        return by["average"], "average"
    return r.metrics.get("overall"), "overall"


def roboteq_ablation_table(runs: Sequence[RunDir]) -> Table | None:
    """With / without image and CoT vs standard (RobotEQ Figure 6a/6b): per model, PA
    (judgment; exact match for grounding) and Macro-F1 of the standard, no-image and CoT
    runs, and the Macro-F1 change of no-image and CoT against standard, in percent. Values
    are the unweighted synthetic / real average when both subsets are present, else
    overall. ``None`` unless some clean run uses ``no-image`` or ``cot``. The runs must be of
    one benchmark."""
    benches = {r.benchmark for r in runs}
    if len(benches) > 1:
        raise ValueError(f"roboteq_ablation_table takes runs of one benchmark, got {sorted(benches)}")
    groups = ablation_groups(runs)
    if not any(set(g) - {"standard"} for g in groups):
        return None
    grounding = benches == {"roboteq-sg"}
    first = ("Exact", "exact_match") if grounding else ("PA", "pa")
    metrics = (first, ("MacF1", "macro_f1"))
    rows, basis = [], set()
    for g in groups:
        cells: list[Cell] = []
        f1: dict[str, float | None] = {}
        for strat, _ in ABLATION_STRATEGIES:
            r = g.get(strat)
            block, b = _headline_block(r) if r is not None else (None, "")
            if r is not None:
                basis.add(b)
            cells += [rq_cell(block, m) for _, m in metrics]
            f1[strat] = rq_value(block, "macro_f1")[0] if r is not None else None
        for strat in ("no-image", "cot"):
            a, b0 = f1.get(strat), f1.get("standard")
            cells.append(EMPTY if a is None or b0 is None else Cell(f"{100 * (a - b0):+.2f}", 100 * (a - b0)))
        any_run = next(iter(g.values()))
        # named as the report names the run (never its raw model spec)
        name = g["standard"].label if "standard" in g else any_run.label
        rows.append(Row((marked(name, list(g.values())),), tuple(cells), "Baseline" if any_run.is_baseline else "VLM"))
    columns = tuple(m for _ in ABLATION_STRATEGIES for m, _ in metrics) + ("No image", "CoT")
    groups_hdr = tuple((title, len(metrics)) for _, title in ABLATION_STRATEGIES) + (("ΔMacF1 vs standard", 2),)
    where = (
        "the synthetic / real average"
        if basis == {"average"}
        else "overall"
        if basis == {"overall"}
        else "the synthetic / real average where both subsets are present, else overall"
    )
    notes: tuple[str, ...] = (
        f"Percent, on {where}. Rows: one model and settings each (named after its standard run when there is one); "
        "ΔMacF1 = strategy − standard in points (negative: worse). —: no run of that strategy.",
    )
    if (partial := partial_note([r for g in groups for r in g.values()])) is not None:
        notes += (partial,)
    name, title = (
        ("roboteq_sg_ablation", "Spatial grounding with / without image and CoT (as RobotEQ Figure 6)")
        if grounding
        else ("roboteq_ablation", "With / without image and CoT vs standard (RobotEQ Figure 6)")
    )
    return Table(name, title, ("Model",), columns, tuple(rows), groups_hdr, notes)


def roboteq_run_coverage(
    runs: Sequence[RunDir], tables: Sequence[Table], left_out: Mapping[int, str] | None = None
) -> tuple[Table, list[str]]:
    """Where each RobotEQ run of a report is shown, and for runs shown nowhere, why:
    the ``roboteq_runs`` table and one note per run that is not shown. ``left_out`` maps
    ``id(run)`` to why the ranked tables did not take it (a partial run)."""
    names = {t.name for t in tables}
    left_out = left_out or {}
    shown: dict[int, list[str]] = {i: [] for i in range(len(runs))}
    index = {id(r): i for i, r in enumerate(runs)}
    everything, runs = runs, [r for r in runs if id(r) not in left_out]

    def show(x: RunDir, table: str) -> None:
        if table not in shown[index[id(x)]]:
            shown[index[id(x)]].append(table)

    for bench, t1, abl, rag in (
        ("roboteq-bj", "roboteq_table1", "roboteq_ablation", "roboteq_table2"),
        ("roboteq-sg", "roboteq_grounding", "roboteq_sg_ablation", "roboteq_sg_rag"),
    ):
        mine = [r for r in runs if r.benchmark == bench]
        if bench == "roboteq-bj":
            main = [r for r in mine if r.strategy == "standard" and r.perturbation is None] or mine
        else:
            main = mine
        if t1 in names:
            for r in main:
                show(r, t1)
        if abl in names:
            for g in ablation_groups(mine):
                for r in g.values():
                    show(r, abl)
        if rag in names:
            raw = {_pair_key(r): r for r in mine if r.strategy == "standard" and r.perturbation is None}
            for r in mine:
                base = raw.get(_pair_key(r)) if r.strategy == "rag" and r.perturbation is None else None
                if base is not None:
                    show(r, rag)
                    show(base, rag)
    if "robustness" in names:
        clean = {robustness_key(r): r for r in runs if r.perturbation is None}
        for r in runs:
            base = clean.get(robustness_key(r)) if r.perturbation is not None else None
            if base is not None:
                show(r, "robustness")
                show(base, "robustness")
    rows, notes = [], []
    for i, r in enumerate(everything):
        pert = r.perturbation
        if shown[i]:
            where = ", ".join(shown[i])
        else:
            if id(r) in left_out:
                why = left_out[id(r)]
            elif r.strategy == "rag":
                why = "a RAG run without a standard run of the same model and settings to compare with"
            elif pert is not None:
                why = "a perturbed run without a clean run of the same model and settings to compare with"
            else:
                why = "no table of this report takes it"
            where = f"not shown: {why}"
            if id(r) not in left_out:  # the caller notes the runs it left out
                notes.append(f"run {r.label} ({r.path}) is not shown: {why}")
        rows.append(
            Row(
                (r.label,),
                (
                    Cell(r.benchmark),
                    Cell(r.strategy),
                    Cell("—" if pert is None else f"{pert[0]} {pert[1]:g}"),
                    Cell(where),
                ),
            )
        )
    return (
        Table(
            "roboteq_runs",
            "Runs in this report and where each is shown",
            ("Run",),
            ("Benchmark", "Strategy", "Perturbation", "Shown in"),
            tuple(rows),
            (),
            ("Every run given to `socialbench report`; a run shown nowhere says why.",),
        ),
        notes,
    )


def roboteq_grounding_table(runs: Sequence[RunDir], human: Mapping[str, Any] | None = None) -> Table | None:
    """Spatial grounding results: exact-set accuracy, Jaccard, micro/macro-F1 per subset (%).
    ``human`` (``{definition: {subset: ...}}`` from
    :func:`socialbench.report.roboteq_human.roboteq_human_grounding`) adds one unranked
    Human row per definition present ("Human (final label)", "Human (leave-one-out)")."""
    sg = [r for r in runs if r.benchmark == "roboteq-sg"]
    if not sg:
        return None
    subsets = [("synthetic", "Synthetic (%)"), ("real", "Real (%)"), ("overall", "Overall (%)")]
    metrics = (("Exact", "exact_match"), ("Jaccard", "jaccard"), ("MicF1", "micro_f1"), ("MacF1", "macro_f1"))
    rows = []
    sg = by_section(sg)
    for r in sg:
        cells = []
        for s, _ in subsets:
            block = r.metrics.get("overall") if s == "overall" else (r.metrics.get("by_subset") or {}).get(s)
            for _, m in metrics:
                stat = (block or {}).get(m) if isinstance(block, dict) else None
                if not isinstance(stat, dict) or stat.get("value") is None:
                    cells.append(EMPTY)
                else:
                    se = stat.get("se")
                    cells.append(mean_se_cell(100 * stat["value"], None if se is None else 100 * se, 2))
        rows.append(Row((r.label,), tuple(cells), section_of(r)))
    vlm = [i for i, row in enumerate(rows) if row.section == "VLM"]
    rows = mark_best(rows, vlm or ranked_baselines(rows), range(len(subsets) * len(metrics)), underline_second=True)
    apart = sources_note(sg)
    notes = [
        f"Percent ± SE (F1: bootstrap SE). Bold: best {'VLM' if vlm else 'baseline run'}; underlined: runner-up."
        + (f" {apart}" if apart else "")
    ]
    for key, name in HUMAN_ROWS:
        by = (human or {}).get(key)
        if not by:
            continue
        cells = []
        for s, _ in subsets:
            block = by.get(s) or {}
            for _, m in metrics:
                stat = block.get(m)
                cells.append(EMPTY if not stat else mean_se_cell(100 * stat["value"], None, 2))
        rows.append(Row((name,), tuple(cells), "Human"))
        notes.append(_HUMAN_NOTES_SG[key] + " From the labels' votes.")
    return Table(
        "roboteq_grounding",
        "Spatial grounding (RobotEQ)",
        ("Model",),
        tuple(m for _ in subsets for m, _ in metrics),
        tuple(rows),
        tuple((t, len(metrics)) for _, t in subsets),
        tuple(notes),
    )


def roboteq_human_image_table(res: Mapping[str, Any] | None) -> Table | None:
    """RobotEQ Figure 6(a): human PA, CWPA, micro / macro F1 (percent) with and without the
    image on the same behaviors, and the change, from ``res`` of
    :func:`socialbench.report.roboteq_human.roboteq_human_image`; None without such labels."""
    if not res:
        return None
    metrics = RQ_METRICS
    rows = []
    blocks = {}
    for key, name in (("with_image", "With image"), ("without_image", "Without image")):
        block = res.get(key) or {}
        blocks[key] = block
        cells = [Cell(str(int(block.get("pairs") or 0)), float(block.get("pairs") or 0))]
        cells += [
            EMPTY if block.get(m) is None else Cell(fmt_num(block[m], 2, 100.0), 100 * block[m]) for _, m in metrics
        ]
        rows.append(Row((name,), tuple(cells), "Human"))
    change = [EMPTY]
    for _, m in metrics:
        a, b = blocks["with_image"].get(m), blocks["without_image"].get(m)
        change.append(EMPTY if a is None or b is None else Cell(f"{100 * (b - a):+.2f}", 100 * (b - a)))
    rows.append(Row(("Change (without - with)",), tuple(change), "Human"))
    notes = (
        f"Percent; {res['n']} behaviors with at least two labels in each condition, the same behaviors in both rows. "
        "Labels: annotator labels counted. PA / CWPA (Eq. 1-2): agreement among the annotators of the condition. "
        "MicF1 / MacF1: each annotator's label against the released final label (the final-label definition of "
        "the Human rows).",
        "The final label was decided from the with-image labels (majority, expert calibration), so the with-image "
        "F1 scores those annotators partly against their own votes; PA / CWPA compare annotators of one condition "
        "with each other and carry no such advantage.",
    )
    return Table(
        "roboteq_human_image",
        "Humans with and without the image (RobotEQ Figure 6(a))",
        ("Condition",),
        ("Labels",) + tuple(name for name, _ in metrics),
        tuple(rows),
        (),
        notes,
    )
