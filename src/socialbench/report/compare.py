"""Paired comparison of runs on the questions all of them answered (``socialbench compare``).

:func:`compare_runs` tests every pair: PA and CWPA differences with a scene-clustered
paired bootstrap CI and p-value and a paired (scene-level sign-flip) permutation p-value;
exact McNemar on binary correctness; with more than two runs Holm-adjusted p-values and
bootstrap rank intervals for a leaderboard. :func:`compare_tables`, :func:`compare_csv` and
:func:`compare_json` lay the result out. Runs kept apart (:mod:`socialbench.report.provenance`)
are never ranked, and their pairs form a Holm family of their own (:data:`APART`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.errors import UsageError
from socialbench.prompting.metamorphic import split_variant
from socialbench.report.item_data import ItemData
from socialbench.report.loading import check_same_benchmark
from socialbench.report.provenance import answer_source
from socialbench.report.run_dir import SOCIALNAV_NAMES, RunDir
from socialbench.report.table import EMPTY, Cell, Row, Table
from socialbench.report.unit_scores import UnitScores, align, gold_answer, unit_scores

__all__ = ["compare_runs", "compare_tables", "compare_csv", "compare_json", "MODELS", "APART"]

#: The two families of pairs (each Holm-adjusted on its own): both runs ranked, or not.
MODELS = "models"
APART = "with a run kept apart"

#: The measures compared, as (name in tables, :class:`UnitScores` field): PA and CWPA; a
#: benchmark with one correct answer per question (the waypoint task: PA and CWPA are both
#: 1 for it and 0 otherwise) is compared on its accuracy.
AGREEMENT_MEASURES: tuple[tuple[str, str], ...] = (("PA", "pa"), ("CWPA", "cwpa"))
ACCURACY_MEASURES: tuple[tuple[str, str], ...] = (("Accuracy", "pa"),)
#: Benchmarks scored by accuracy (their metrics.json ``overall`` holds ``accuracy``).
ACCURACY_BENCHMARKS = ("socialnav-waypoint",)


def measures_of(runs: Sequence[RunDir]) -> tuple[tuple[str, str], ...]:
    """The measures :func:`compare_runs` tests for ``runs`` (one benchmark family)."""
    return ACCURACY_MEASURES if all(r.benchmark in ACCURACY_BENCHMARKS for r in runs) else AGREEMENT_MEASURES


def _run_units(runs: Sequence[RunDir], protocol: str, data: Path | None) -> list[UnitScores]:
    out = []
    item_data = ItemData(runs, data)
    for i, r in enumerate(runs):
        if i not in item_data.entries:
            reasons = "; ".join(item_data.notes) or "no samples"
            raise UsageError(f"cannot compare {r.path}: {reasons}")
        ds = item_data.datasets[i]
        golds = {}
        if r.benchmark not in SOCIALNAV_NAMES:
            golds = {(it.item_id, q.key): gold_answer(it, q.key) for it in ds.items for q in it.questions}
        units = unit_scores(item_data.entries[i], protocol, skip_single=r.benchmark in SOCIALNAV_NAMES, golds=golds)
        # a metamorphic run's variant K@name pairs with question K of the other runs
        out.append(replace(units, keys=tuple((item, split_variant(key)[0]) for item, key in units.keys)))
    return out


def compare_runs(
    runs: Sequence[RunDir],
    *,
    protocol: str | None = None,
    data: Path | None = None,
    seed: int = 0,
    n_boot: int = 2000,
    n_perm: int = 10_000,
    level: float = 0.95,
) -> dict[str, Any]:
    """Paired tests between every pair of ``runs`` on their common questions.

    Returns ``{"protocol", "n", "n_clusters", "dropped", "runs", "pairs": [...],
    "leaderboard": [...]}``; every pair holds, for PA and CWPA, the difference (A - B), its
    scene-clustered paired bootstrap CI and p-value, the scene-level permutation p-value,
    and the exact McNemar test on correctness; ``holm`` fields adjust each test's p-values
    over the pairs of its ``family`` (:data:`MODELS`: both runs ranked; :data:`APART`: at
    least one run is human-derived or perception-assisted). Each run carries its
    ``answer_source`` and ``why``; the leaderboard ranks the ranked runs among themselves,
    and lists the others with ``rank`` None and ``ranked`` False.
    """
    from socialbench.metrics.paired_tests import (
        distinct_resamples,
        mcnemar_exact,
        min_bootstrap_clusters,
        paired_bootstrap_diff,
        paired_permutation_test,
    )
    from socialbench.metrics.ranking import bootstrap_rank_ci, holm

    if len(runs) < 2:
        raise UsageError("compare needs at least two run directories")
    check_same_benchmark(runs)
    proto = protocol or runs[0].protocol
    from socialbench.metrics.protocols import PROTOCOL_NAMES

    if proto not in PROTOCOL_NAMES:
        raise UsageError(f"--protocol must be one of {', '.join(PROTOCOL_NAMES)} (got {proto!r})")
    units, dropped = align(_run_units(runs, proto, data))
    clusters = units[0].clusters
    measures = measures_of(runs)
    n_clusters = len(set(clusters))
    # a bootstrap over too few scenes has (next to) no distinct resamples: its interval is
    # (near) zero-width and its p-value 1 / (1 + n_boot) whatever the data, so none is given
    need = min_bootstrap_clusters(level)
    distinct = distinct_resamples(n_clusters)
    bootstrap_skipped = (
        f"no bootstrap CI, p boot. or rank interval (shown —): a scene-clustered bootstrap at "
        f"{round(100 * level)}% needs at least {need} scenes, and {n_clusters} "
        f"scene{'s allow' if n_clusters != 1 else ' allows'} only {distinct} distinct "
        f"resample{'s' if distinct != 1 else ''}"
        if n_clusters < need
        else None
    )
    sources = [answer_source(r.model, r.run) for r in runs]
    pairs: list[dict[str, Any]] = []
    for a, b in combinations(range(len(runs)), 2):
        family = MODELS if sources[a].ranked and sources[b].ranked else APART
        entry: dict[str, Any] = {"a": runs[a].label, "b": runs[b].label, "family": family}
        for metric, field in measures:
            xa = getattr(units[a], field)
            xb = getattr(units[b], field)
            perm = paired_permutation_test(xa, xb, clusters, n_perm=n_perm, seed=seed)
            entry[metric] = {
                "a": float(xa.mean()),
                "b": float(xb.mean()),
                "diff": float(xa.mean() - xb.mean()),
                "low": None,
                "high": None,
                "se": None,
                "p_bootstrap": None,
                "p_permutation": perm.p_value,
                "permutation": perm.method,
            }
            if bootstrap_skipped is None:
                boot = paired_bootstrap_diff(xa, xb, clusters, n_boot=n_boot, level=level, seed=seed)
                entry[metric].update(diff=boot.diff, low=boot.low, high=boot.high, se=boot.se, p_bootstrap=boot.p_value)
        mc = mcnemar_exact(units[a].correct, units[b].correct)
        entry["correct"] = {
            "a": float(units[a].correct.mean()),
            "b": float(units[b].correct.mean()),
            "a_only": mc.a_only,
            "b_only": mc.b_only,
            "diff": mc.diff,
            "p_mcnemar": mc.p_value,
        }
        pairs.append(entry)
    tests = [(m, f) for m, _ in measures for f in ("p_permutation", "p_bootstrap")] + [("correct", "p_mcnemar")]
    for metric, field in tests:
        for family in (MODELS, APART):
            members = [p for p in pairs if p["family"] == family]
            if members and bootstrap_skipped is not None and field == "p_bootstrap":
                for p in members:
                    p[metric][field + "_holm"] = None
                continue
            for p, v in zip(members, holm([p[metric][field] for p in members]) if members else []):
                p[metric][field + "_holm"] = v
    ranked = [i for i, s in enumerate(sources) if s.ranked]
    leaderboard: list[dict[str, Any]] = []
    for metric, field in measures:
        scores = [getattr(u, field) for u in units]
        if ranked:
            ranks = bootstrap_rank_ci(
                np.column_stack([scores[i] for i in ranked]), clusters, n_boot=n_boot, level=level, seed=seed
            )
            for r in sorted(ranks, key=lambda x: (x.rank, x.index)):
                leaderboard.append(
                    {
                        "metric": metric,
                        "run": runs[ranked[r.index]].label,
                        "score": r.score,
                        "rank": r.rank,
                        "low": r.low if bootstrap_skipped is None else None,
                        "high": r.high if bootstrap_skipped is None else None,
                        "ranked": True,
                    }
                )
        for i, s in enumerate(sources):
            if not s.ranked:
                leaderboard.append(
                    {
                        "metric": metric,
                        "run": runs[i].label,
                        "score": float(scores[i].mean()),
                        "rank": None,
                        "low": None,
                        "high": None,
                        "ranked": False,
                        "kept_apart": s.kind,
                        "why": s.why,
                    }
                )
    return {
        "protocol": proto,
        "measures": [m for m, _ in measures],
        "bootstrap_skipped": bootstrap_skipped,
        "n": len(units[0].keys),
        "n_clusters": n_clusters,
        "dropped": dropped,
        "level": level,
        "seed": seed,
        "n_boot": n_boot,
        "n_perm": n_perm,
        "runs": [
            {"label": r.label, "path": str(r.path), "model": r.model, "answer_source": s.kind, "why": s.why}
            for r, s in zip(runs, sources)
        ],
        "pairs": pairs,
        "leaderboard": leaderboard,
    }


def _p(v: float | None) -> str:
    if v is None:
        return "—"
    return f"{v:.1e}" if v < 1e-4 else f"{v:.4f}"


def _diff(m: dict[str, Any]) -> str:
    """``+0.012 [-0.010, +0.034]``, or the difference alone when no bootstrap interval was made."""
    if m["low"] is None or m["high"] is None:
        return f"{m['diff']:+.3f}"
    return f"{m['diff']:+.3f} [{m['low']:+.3f}, {m['high']:+.3f}]"


def compare_tables(result: dict[str, Any]) -> list[Table]:
    """The pairwise table and (with 3+ runs) the leaderboard of :func:`compare_runs`."""
    lvl = int(round(100 * result["level"]))
    multi = len(result["runs"]) > 2
    apart_runs = [r for r in result["runs"] if r.get("answer_source", "Model") != "Model"]
    split = bool(apart_runs) and len(result["pairs"]) > 0
    measures = result.get("measures", ["PA", "CWPA"])
    skipped = result.get("bootstrap_skipped")
    rows = []
    for p in result["pairs"]:
        cells: list[Cell] = []
        for metric in measures:
            m = p[metric]
            cells += [
                Cell(f"{m['a']:.3f}", m["a"]),
                Cell(f"{m['b']:.3f}", m["b"]),
                Cell(_diff(m), m["diff"]),
                Cell(_p(m["p_permutation"]), m["p_permutation"]),
                Cell(_p(m["p_bootstrap"]), m["p_bootstrap"]),
            ]
            if multi:
                cells.append(Cell(_p(m["p_permutation_holm"]), m["p_permutation_holm"]))
        c = p["correct"]
        cells += [Cell(f"{c['a_only']} / {c['b_only']}", c["diff"]), Cell(_p(c["p_mcnemar"]), c["p_mcnemar"])]
        if multi:
            cells.append(Cell(_p(c["p_mcnemar_holm"]), c["p_mcnemar_holm"]))
        family = p.get("family", MODELS)
        rows.append(Row((p["a"], p["b"]), tuple(cells), _FAMILY_TITLES[family] if split else ""))
    if split:
        rows.sort(key=lambda row: list(_FAMILY_TITLES.values()).index(row.section))
    per = ("A", "B", f"A − B [{lvl}% CI]", "p perm.", "p boot.") + (("p Holm",) if multi else ())
    columns = per * len(measures) + ("A only / B only", "p exact") + (("p Holm",) if multi else ())
    groups = (*((m, len(per)) for m in measures), ("McNemar", 3 if multi else 2))
    note = (
        f"{result['n']} questions in {result['n_clusters']} scenes answered by every run (protocol {result['protocol']}); "
        f"CIs and p boot.: scene-clustered paired bootstrap ({result['n_boot']} replicates); p perm.: scene-level "
        f"sign-flip permutation test; seed {result['seed']}."
        + " McNemar: exact binomial test on correctness (the answer is the gold label where the data has one,"
        " else a most common human answer); A only / B only count the discordant questions."
        + (f" {result['dropped']} questions not answered by every run were left out." if result["dropped"] else "")
        + (
            f" {skipped[0].upper()}{skipped[1:]}; the exact permutation p-value is valid"
            " but cannot go below 2 / 2^scenes."
            if skipped
            else f" Only {result['n_clusters']} scenes: bootstrap intervals and p-values are unreliable with so few"
            " clusters; the exact permutation p-value is valid but cannot go below 2 / 2^scenes."
            if result["n_clusters"] < 10
            else ""
        )
        + (
            " p Holm: Holm-adjusted within each section (pairs of ranked runs; pairs with a run kept apart)."
            if multi and split
            else " p Holm: Holm-adjusted over all pairs."
            if multi
            else ""
        )
    )
    notes = (note,) + ((_apart_note(apart_runs),) if apart_runs else ())
    out = [
        Table(
            "compare_pairs",
            "Paired comparison",
            ("Run A", "Run B"),
            columns,
            tuple(rows),
            groups,
            notes,
            section_header="Pairs" if split else "",
        )
    ]
    if multi:
        lb_rows = []
        for metric in measures:
            for e in [x for x in result["leaderboard"] if x["metric"] == metric]:
                if e.get("ranked", True):
                    interval = EMPTY if e["low"] is None else Cell(f"{e['low']}–{e['high']}", None)
                    rank, ci = Cell(str(e["rank"]), e["rank"]), interval
                else:
                    rank, ci = Cell(f"not ranked ({e['kept_apart']})"), EMPTY
                lb_rows.append(Row((e["run"],), (Cell(f"{e['score']:.3f}", e["score"]), rank, ci), metric))
        out.append(
            Table(
                "compare_leaderboard",
                "Leaderboard with rank confidence intervals",
                ("Run",),
                ("Score", "Rank", f"{lvl}% rank CI"),
                tuple(lb_rows),
                (),
                (
                    f"Ranks from the observed scores (1 = best); {skipped}."
                    if skipped
                    else f"Ranks from {result['n_boot']} scene-clustered bootstrap replicates (1 = best).",
                )
                + ((_apart_note(apart_runs),) if apart_runs else ()),
                section_header="Metric",
            )
        )
    return out


_FAMILY_TITLES = {MODELS: "Ranked runs", APART: "With a run kept apart (not ranked)"}


def _apart_note(apart: list[dict[str, Any]]) -> str:
    """The note naming each run kept out of the ranking and why."""
    return (
        "Not ranked (answers not wholly the model's own): "
        + "; ".join(f"{r['label']} ({r['answer_source']}: {r['why']})" for r in apart)
        + "."
    )


def compare_csv(result: dict[str, Any]) -> str:
    """Long-format CSV of :func:`compare_runs`: one row per pair and measure (PA, CWPA,
    correct), every number unrounded."""
    import csv
    import io

    from socialbench.files.csv_cells import csv_cell

    cols = (
        "run_a run_b measure a b diff low high se p_permutation p_permutation_holm p_bootstrap p_bootstrap_holm "
        "a_only b_only p_mcnemar p_mcnemar_holm family"
    ).split()
    buf = io.StringIO()
    w = csv.DictWriter(buf, cols, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for p in result["pairs"]:
        for measure in (*result.get("measures", ["PA", "CWPA"]), "correct"):
            row = {
                "run_a": p["a"],
                "run_b": p["b"],
                "measure": measure,
                "family": p.get("family", MODELS),
                **p[measure],
            }
            w.writerow({k: csv_cell(v) for k, v in row.items()})  # run labels are text, never formulas
    return buf.getvalue()


def compare_json(result: dict[str, Any]) -> str:
    """:func:`compare_runs`'s result as indented JSON (numpy scalars as numbers)."""
    return json.dumps(result, indent=2, default=_json_default) + "\n"


def _json_default(o: object) -> object:
    if hasattr(o, "item"):
        return o.item()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
