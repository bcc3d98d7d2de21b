"""``socialbench report`` and ``socialbench compare``.

``register(app)`` adds both commands to a Typer app. The heavy work lives in
:func:`build_report` and :func:`compare_runs` (plain functions, usable from Python);
matplotlib is imported only when figures are drawn.

report
    ``socialbench report RUN_DIR... [--out DIR] [--format md,csv,tex,html]`` writes
    ``tables/<name>.<md|csv|tex>``, ``report.md`` (every table), ``plots/*.png|svg`` and,
    with ``html``, ``index.html`` + ``images/`` (the per-item viewer). Item-level parts
    (failure tables, bootstrap CIs, the viewer) need the labels: the ``data`` folder recorded
    in ``run.json`` or ``--data``; without them they are skipped with a note.
compare
    ``socialbench compare RUN_A RUN_B [RUN_C ...]`` tests the differences on the questions
    all runs answered: PA and CWPA differences with a scene-clustered paired bootstrap CI and
    p-value and a paired (scene-level sign-flip) permutation p-value; exact McNemar on
    binary correctness; with more than two runs Holm-adjusted p-values over all pairs and
    bootstrap rank intervals for a leaderboard.
"""

from __future__ import annotations

import json
import math
from itertools import combinations
from pathlib import Path
from typing import Any, Callable, List, Mapping, Optional, Sequence

import numpy as np
import typer

from socialbench.errors import SocialbenchError, StorageError, UsageError
from socialbench.report.loading import (
    SOCIALNAV_NAMES,
    RunDir,
    UnitScores,
    align,
    benchmark_family,
    check_same_benchmark,
    data_path,
    gold_answer,
    load_dataset,
    load_runs,
    scoring_entries,
    unit_scores,
)
from socialbench.report.tables import (
    EMPTY,
    RENDERERS,
    SN_GROUP_TITLES,
    SN_GROUPS,
    Cell,
    Row,
    Table,
    TableSet,
    action_table,
    failure_env_table,
    mean_se_cell,
    roboteq_ablation_table,
    roboteq_rag_table,
    roboteq_run_coverage,
    roboteq_table1,
    robustness_table,
    socialnav_ablation_table,
    socialnav_gt_table,
    socialnav_question_table,
    socialnav_table1,
    waypoint_table,
    to_markdown,
)

FORMATS = ("md", "csv", "tex", "html")
IMAGE_MODES = ("first-last", "all", "none")
#: Attributes with more distinct values than this are not used as facets automatically.
MAX_FACET_VALUES = 12


def parse_formats(text: str) -> list[str]:
    """``"md,csv"`` -> ``["md", "csv"]``; raises :class:`UsageError` on unknown formats."""
    items = [t.strip().lower() for t in text.split(",") if t.strip()]
    bad = [t for t in items if t not in FORMATS]
    if bad or not items:
        raise UsageError(f"--format takes a comma-separated list of {', '.join(FORMATS)} (got {text!r})")
    return list(dict.fromkeys(items))


# --------------------------------------------------------------------------- item-level data


class ItemData:
    """Labels and scoring entries of the runs, loaded once per data folder."""

    def __init__(self, runs: Sequence[RunDir], data: Path | None):
        self.runs = runs
        self.notes: list[str] = []
        self.datasets: dict[int, Any] = {}
        self.entries: dict[int, list[Any]] = {}
        cache: dict[tuple[str, Any, str], Any] = {}
        for i, r in enumerate(runs):
            try:
                key = (str(data_path(r, data)), r.run.get("limit"), r.benchmark)
                if key not in cache:
                    cache[key] = load_dataset(r, data)
                ds = cache[key]
                samples = r.samples()
                if not samples:
                    self.notes.append(f"{r.label}: no samples.jsonl; item-level analyses skip this run")
                    continue
                self.datasets[i] = ds
                self.entries[i] = scoring_entries(ds, samples)
            except (SocialbenchError, OSError, ValueError) as exc:  # say what is missing, keep the rest
                self.notes.append(f"{r.label}: labels not loaded ({exc}); item-level analyses skip this run")

    @property
    def indices(self) -> list[int]:
        return sorted(self.entries)

    def items(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for ds in self.datasets.values():
            for it in ds.items:
                out.setdefault(it.item_id, it)
        return out


def auto_attributes(items: Sequence[Any]) -> list[str]:
    """Scene attributes worth a failure breakdown: metadata fields outside the loader's own
    keys with scalar values and at most :data:`MAX_FACET_VALUES` distinct values."""
    try:
        from socialbench.benchmarks.socialnav_sub.validate import RESERVED_METADATA_KEYS
    except ImportError:  # pragma: no cover - the package always has it
        RESERVED_METADATA_KEYS = frozenset()
    skip = set(RESERVED_METADATA_KEYS) | {"image", "image_rel", "role", "question", "source", "line", "behaviors",
                                          "answer", "options", "facets", "has_votes", "task"}
    values: dict[str, set[Any]] = {}
    bad: set[str] = set()
    for it in items:
        for k, v in it.metadata.items():
            if k in skip:
                continue
            if isinstance(v, (bool, str, int)) and not isinstance(v, float):
                values.setdefault(k, set()).add(v)
            else:
                bad.add(k)
    return sorted(k for k, vs in values.items() if k not in bad and 1 <= len(vs) <= MAX_FACET_VALUES)


def _protocol_of(runs: Sequence[RunDir]) -> str:
    return runs[0].protocol if runs else "paper"


def socialnav_item_tables(runs: Sequence[RunDir], data: ItemData, attributes: Sequence[str], *, seed: int,
                          n_boot: int) -> list[Table]:
    """Failure tables (Tables 4, 5) and scene-clustered bootstrap CIs for SocialNav-SUB."""
    from socialbench.metrics.failures import action_distribution, failure_rate_by_attribute, failure_summary
    from socialbench.metrics.stats import bootstrap_means_ci

    from socialbench.navigation.scene_features import FEATURES, scene_features

    protocol = _protocol_of(runs)
    items = data.items()
    features = {iid: scene_features(it.metadata) for iid, it in items.items()} if set(attributes) & set(FEATURES) else {}

    def value(item_id: str, attribute: str) -> Any:
        if attribute in FEATURES:
            return features[item_id].get(attribute)
        return items[item_id].metadata.get(attribute)

    env, actions, ci_rows = [], [], []
    for i in data.indices:
        r, entries = runs[i], data.entries[i]
        if not entries:
            continue
        summary = failure_summary(entries, protocol)  # type: ignore[arg-type]
        analyses = [
            failure_rate_by_attribute(entries, [value(e.item_id, a) for e in entries], protocol, a)  # type: ignore[arg-type]
            for a in attributes
        ]
        env.append((r.label, summary, analyses))
        actions.append((r.label, action_distribution(entries, "q_robot_action", protocol)))  # type: ignore[arg-type]
        us = unit_scores(entries, protocol)
        if not us.keys:
            continue
        cat_of = {(e.item_id, e.question.key): e.question.category for e in entries}
        cats = [cat_of[k] for k in us.keys]
        masks = [np.ones(len(cats), dtype=bool) if g == "All" else np.array([c == g for c in cats]) for g in SN_GROUPS]
        cols = [(us.pa, mk) for mk in masks] + [(us.cwpa, mk) for mk in masks]
        cis = bootstrap_means_ci(np.column_stack([c[0] for c in cols]), np.column_stack([c[1] for c in cols]),
                                 us.clusters, n_boot=n_boot, seed=seed)
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
        out.append(Table(
            "socialnav_bootstrap_ci", "Scene-clustered bootstrap 95% confidence intervals", ("Model",),
            tuple(m for _ in SN_GROUPS for m in ("PA", "CWPA")), tuple(ci_rows),
            tuple((SN_GROUP_TITLES[g], 2) for g in SN_GROUPS),
            (f"Percentile intervals from {n_boot} bootstrap replicates resampling whole samples (scenes), seed {seed}; "
             f"protocol {protocol}.",),
        ))
    return out


def roboteq_grounding_table(runs: Sequence[RunDir], human: Mapping[str, Any] | None = None) -> Table | None:
    """Spatial grounding results: exact-set accuracy, Jaccard, micro/macro-F1 per subset (%).
    ``human`` (from :func:`roboteq_human_grounding`) adds an unranked Human row."""
    sg = [r for r in runs if r.benchmark == "roboteq-sg"]
    if not sg:
        return None
    subsets = [("synthetic", "Synthetic (%)"), ("real", "Real (%)"), ("overall", "Overall (%)")]
    metrics = (("Exact", "exact_match"), ("Jaccard", "jaccard"), ("MicF1", "micro_f1"), ("MacF1", "macro_f1"))
    rows = []
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
        rows.append(Row((r.label,), tuple(cells)))
    from socialbench.report.tables import mark_best

    rows = mark_best(rows, range(len(rows)), range(len(subsets) * len(metrics)), underline_second=True)
    notes = ["Percent ± SE (F1: bootstrap SE). Bold: best; underlined: runner-up."]
    if human:
        cells = []
        for s, _ in subsets:
            block = human.get(s) or {}
            for _, m in metrics:
                stat = block.get(m)
                cells.append(EMPTY if not stat else mean_se_cell(100 * stat["value"], None, 2))
        rows.append(Row(("Human",), tuple(cells), "Human"))
        notes.append("Human: each annotator against the per-option majority of the other annotators (leave-one-out; "
                     "an option chosen by exactly half of them counts both ways with weight 1/2), from the labels' votes.")
    return Table("roboteq_grounding", "Spatial grounding (RobotEQ)", ("Model",),
                 tuple(m for _ in subsets for m, _ in metrics), tuple(rows), tuple((t, len(metrics)) for _, t in subsets),
                 tuple(notes))


def _human_subsets(groups: dict[str, list[Any]], baseline: Callable[[list[Any]], dict[str, Any] | None],
                   metrics: Sequence[str]) -> dict[str, Any] | None:
    """``baseline`` per subset as ``{subset: {metric: {"value", "se": None}, "n"}}``, plus the
    unweighted ``average`` of synthetic and real (Table 1 Avg) and ``overall``."""
    out: dict[str, Any] = {}
    for subset, items in [*groups.items(), ("overall", [x for v in groups.values() for x in v])]:
        res = baseline(items)
        if res is not None:
            out[subset] = {"n": res["n"], **{m: {"value": res[m], "se": None} for m in metrics}}
    if "synthetic" in out and "real" in out:
        out["average"] = {m: {"value": (out["synthetic"][m]["value"] + out["real"][m]["value"]) / 2, "se": None}
                          for m in metrics}
    return out or None


def roboteq_human(data: ItemData) -> tuple[dict[str, Any] | None, dict[str, float] | None]:
    """Human PA / CWPA / micro-F1 / macro-F1 per subset (+ average, overall) and CWPA per
    facet, leave-one-out from the per-annotator votes of the labels (behaviors with at
    least 2 votes; :func:`socialbench.metrics.human.human_judgment_baseline`);
    ``(None, None)`` without labels."""
    from socialbench.metrics.agreement import human_average_paper
    from socialbench.metrics.human import human_judgment_baseline

    by_subset: dict[str, list[Any]] = {}
    by_facet: dict[str, list[float]] = {}
    seen: set[tuple[str, str]] = set()
    for i in data.indices:
        ds = data.datasets[i]
        for it in ds.items:
            beh = it.metadata.get("behaviors")
            if not isinstance(beh, dict):
                continue
            for q in it.questions:
                v = it.votes[q.key]
                if (it.item_id, q.key) in seen or v.n < 2 or not beh.get(q.key, {}).get("has_votes", True):
                    continue
                seen.add((it.item_id, q.key))
                by_subset.setdefault(str(it.metadata.get("subset") or "unknown"), []).append(v.counts())
                for f in beh.get(q.key, {}).get("facets") or ():
                    by_facet.setdefault(str(f), []).append(human_average_paper(v).cwpa)
    if not by_subset:
        return None, None
    out = _human_subsets(by_subset, human_judgment_baseline, ("pa", "cwpa", "micro_f1", "macro_f1"))
    return out, {f: sum(v) / len(v) for f, v in by_facet.items()}


def roboteq_human_grounding(data: ItemData) -> dict[str, Any] | None:
    """Human exact match / Jaccard / option micro- and macro-F1 per subset (+ average,
    overall), each annotator against the per-option majority of the others
    (:func:`socialbench.metrics.human.human_grounding_baseline`); None without votes."""
    from socialbench.metrics.human import human_grounding_baseline

    by_subset: dict[str, list[Any]] = {}
    seen: set[str] = set()
    for i in data.indices:
        for it in data.datasets[i].items:
            if it.metadata.get("task") != "spatial_grounding" or not it.metadata.get("has_votes") or it.item_id in seen:
                continue
            v = it.votes.get("sg")
            if v is None or v.n < 2:
                continue
            seen.add(it.item_id)
            selections = [list(answer) for answer, c in v.counts().items() for _ in range(c)]
            by_subset.setdefault(str(it.metadata.get("subset") or "unknown"), []).append(selections)
    return _human_subsets(by_subset, human_grounding_baseline, ("exact_match", "jaccard", "micro_f1", "macro_f1"))


# --------------------------------------------------------------------------- report


def build_report(
    runs: Sequence[RunDir],
    out: Path,
    *,
    formats: Sequence[str] = FORMATS,
    data: Path | None = None,
    attributes: Sequence[str] | None = None,
    images: str = "all",
    max_items: int = 5000,
    featured: int = 12,
    seed: int = 0,
    n_boot: int = 1000,
    figures: bool = True,
) -> dict[str, Any]:
    """Write the report of ``runs`` into ``out``; returns ``{"files", "notes", "tables"}``."""
    if images not in IMAGE_MODES:
        raise UsageError(f"--images must be one of {', '.join(IMAGE_MODES)} (got {images!r})")
    family = check_same_benchmark(runs)
    _make_out_folder(out)
    tables = TableSet()
    notes: list[str] = []
    item_data = ItemData(runs, data)
    notes += item_data.notes
    human_facets = None
    attrs: list[str] = []
    if family == "socialnav":
        tables.add(socialnav_table1(runs))
        tables.add(socialnav_question_table(runs, "models"))
        tables.add(socialnav_question_table(runs, "baselines"))
        tables.add(socialnav_ablation_table(runs))
        tables.add(socialnav_gt_table(runs))
        if item_data.indices:
            if attributes is not None:
                attrs = list(attributes)
            else:
                from socialbench.navigation.scene_features import FEATURES

                attrs = list(FEATURES) + auto_attributes(list(item_data.items().values()))
            for t in socialnav_item_tables(runs, item_data, attrs, seed=seed, n_boot=n_boot):
                tables.add(t)
    elif family == "socialnav-waypoint":
        tables.add(waypoint_table(runs))
    else:
        bj = [r for r in runs if r.benchmark == "roboteq-bj"]
        human_subset, human_facets = roboteq_human(item_data)
        sg = [r for r in runs if r.benchmark == "roboteq-sg"]
        if bj:
            tables.add(roboteq_table1(bj, human_subset))
            tables.add(roboteq_ablation_table(bj))
            tables.add(roboteq_rag_table(bj))
        tables.add(roboteq_grounding_table(runs, roboteq_human_grounding(item_data)))
        tables.add(roboteq_ablation_table(sg))  # "roboteq_sg_ablation"
        tables.add(roboteq_rag_table(sg))  # "roboteq_sg_rag"
    tables.add(robustness_table(runs))
    if family not in ("socialnav", "socialnav-waypoint"):
        coverage, hidden = roboteq_run_coverage(runs, tables.tables)
        tables.add(coverage)
        notes += hidden
    files: list[Path] = []
    tdir = out / "tables"
    for fmt in formats:
        if fmt == "html":
            continue
        ext, render = RENDERERS[fmt]
        for t in tables.tables:
            tdir.mkdir(parents=True, exist_ok=True)
            p = tdir / f"{t.name}{ext}"
            p.write_text(render(t), encoding="utf-8")
            files.append(p)
    if "md" in formats:
        p = out / "report.md"
        p.write_text("\n".join(to_markdown(t) for t in tables.tables), encoding="utf-8")
        files.append(p)
    figs: list[Path] = []
    if figures or "html" in formats:
        from socialbench.report import plots

        fdir = out / "plots"
        figs = plots.socialnav_figures(runs, fdir) if family == "socialnav" else plots.roboteq_figures(runs, fdir, human_facets)
        files += figs
    if "html" in formats:
        from socialbench.report.html import viewer_payload, write_report_html

        payload = None
        if item_data.indices:
            idx = item_data.indices
            payload = viewer_payload(
                [runs[i].label for i in idx], [item_data.entries[i] for i in idx], item_data.items(), _protocol_of(runs), out,
                attributes=attrs, max_items=max_items, featured=featured, images=images,
            )
        else:
            notes.append("no labels loaded: the per-item viewer is not included (pass --data DIR)")
        run_rows = [
            {"label": r.label, "model": r.model, "benchmark": r.benchmark, "protocol": r.protocol,
             "status": r.run.get("status", ""), "questions": r.metrics.get("n_scored", (r.metrics.get("run") or {}).get("questions", "")),
             "path": str(r.path)}
            for r in runs
        ]
        title = "socialbench report — " + ", ".join(sorted({r.benchmark for r in runs}))
        files.append(write_report_html(out, title=title, runs=run_rows, tables=tables.tables, figures=figs,
                                       viewer=payload, notes=notes))
    return {"files": files, "notes": notes, "tables": [t.name for t in tables.tables]}


# --------------------------------------------------------------------------- compare


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
        out.append(unit_scores(item_data.entries[i], protocol, skip_single=r.benchmark in SOCIALNAV_NAMES, golds=golds))
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
    over all pairs.
    """
    from socialbench.metrics.stats import (
        bootstrap_rank_ci,
        holm,
        mcnemar_exact,
        paired_bootstrap_diff,
        paired_permutation_test,
    )

    if len(runs) < 2:
        raise UsageError("compare needs at least two run directories")
    check_same_benchmark(runs)
    proto = protocol or runs[0].protocol
    if proto not in ("paper", "official"):
        raise UsageError(f"--protocol must be paper or official (got {proto!r})")
    units, dropped = align(_run_units(runs, proto, data))
    clusters = units[0].clusters
    pairs: list[dict[str, Any]] = []
    for a, b in combinations(range(len(runs)), 2):
        entry: dict[str, Any] = {"a": runs[a].label, "b": runs[b].label}
        for metric in ("PA", "CWPA"):
            xa = getattr(units[a], metric.lower())
            xb = getattr(units[b], metric.lower())
            boot = paired_bootstrap_diff(xa, xb, clusters, n_boot=n_boot, level=level, seed=seed)
            perm = paired_permutation_test(xa, xb, clusters, n_perm=n_perm, seed=seed)
            entry[metric] = {
                "a": float(xa.mean()), "b": float(xb.mean()), "diff": boot.diff, "low": boot.low, "high": boot.high,
                "se": boot.se, "p_bootstrap": boot.p_value, "p_permutation": perm.p_value, "permutation": perm.method,
            }
        mc = mcnemar_exact(units[a].correct, units[b].correct)
        entry["correct"] = {"a": float(units[a].correct.mean()), "b": float(units[b].correct.mean()), "a_only": mc.a_only,
                            "b_only": mc.b_only, "diff": mc.diff, "p_mcnemar": mc.p_value}
        pairs.append(entry)
    for metric, field in (("PA", "p_permutation"), ("PA", "p_bootstrap"), ("CWPA", "p_permutation"),
                          ("CWPA", "p_bootstrap"), ("correct", "p_mcnemar")):
        adj = holm([p[metric][field] for p in pairs])
        for p, v in zip(pairs, adj):
            p[metric][field + "_holm"] = v
    leaderboard: list[dict[str, Any]] = []
    for metric in ("PA", "CWPA"):
        scores = [getattr(u, metric.lower()) for u in units]
        ranks = bootstrap_rank_ci(np.column_stack(scores), clusters, n_boot=n_boot, level=level, seed=seed)
        for r in sorted(ranks, key=lambda x: (x.rank, x.index)):
            leaderboard.append({"metric": metric, "run": runs[r.index].label, "score": r.score, "rank": r.rank,
                                "low": r.low, "high": r.high})
    return {
        "protocol": proto, "n": len(units[0].keys), "n_clusters": len(set(clusters)), "dropped": dropped,
        "level": level, "seed": seed, "n_boot": n_boot, "n_perm": n_perm,
        "runs": [{"label": r.label, "path": str(r.path), "model": r.model} for r in runs],
        "pairs": pairs, "leaderboard": leaderboard,
    }


def _p(v: float) -> str:
    return f"{v:.1e}" if v < 1e-4 else f"{v:.4f}"


def compare_tables(result: dict[str, Any]) -> list[Table]:
    """The pairwise table and (with 3+ runs) the leaderboard of :func:`compare_runs`."""
    lvl = int(round(100 * result["level"]))
    multi = len(result["runs"]) > 2
    rows = []
    for p in result["pairs"]:
        cells: list[Cell] = []
        for metric in ("PA", "CWPA"):
            m = p[metric]
            cells += [Cell(f"{m['a']:.3f}", m["a"]), Cell(f"{m['b']:.3f}", m["b"]),
                      Cell(f"{m['diff']:+.3f} [{m['low']:+.3f}, {m['high']:+.3f}]", m["diff"]),
                      Cell(_p(m["p_permutation"]), m["p_permutation"]), Cell(_p(m["p_bootstrap"]), m["p_bootstrap"])]
            if multi:
                cells.append(Cell(_p(m["p_permutation_holm"]), m["p_permutation_holm"]))
        c = p["correct"]
        cells += [Cell(f"{c['a_only']} / {c['b_only']}", c["diff"]), Cell(_p(c["p_mcnemar"]), c["p_mcnemar"])]
        if multi:
            cells.append(Cell(_p(c["p_mcnemar_holm"]), c["p_mcnemar_holm"]))
        rows.append(Row((p["a"], p["b"]), tuple(cells)))
    per = ("A", "B", f"A − B [{lvl}% CI]", "p perm.", "p boot.") + (("p Holm",) if multi else ())
    columns = per + per + ("A only / B only", "p exact") + (("p Holm",) if multi else ())
    groups = (("PA", len(per)), ("CWPA", len(per)), ("McNemar", 3 if multi else 2))
    note = (f"{result['n']} questions in {result['n_clusters']} scenes answered by every run (protocol {result['protocol']}); "
            f"CIs and p boot.: scene-clustered paired bootstrap ({result['n_boot']} replicates); p perm.: scene-level "
            f"sign-flip permutation test; seed {result['seed']}."
            + " McNemar: exact binomial test on correctness (the answer is the gold label where the data has one,"
            " else a most common human answer); A only / B only count the discordant questions."
            + (f" {result['dropped']} questions not answered by every run were left out." if result["dropped"] else "")
            + (f" Only {result['n_clusters']} scenes: bootstrap intervals and p-values are unreliable with so few"
               " clusters; the exact permutation p-value is valid but cannot go below 2 / 2^scenes."
               if result["n_clusters"] < 10 else "")
            + (" p Holm: Holm-adjusted over all pairs." if multi else ""))
    out = [Table("compare_pairs", "Paired comparison", ("Run A", "Run B"), columns, tuple(rows), groups, (note,))]
    if multi:
        lb_rows = []
        for metric in ("PA", "CWPA"):
            for e in [x for x in result["leaderboard"] if x["metric"] == metric]:
                lb_rows.append(Row((e["run"],), (Cell(f"{e['score']:.3f}", e["score"]), Cell(str(e["rank"]), e["rank"]),
                                                  Cell(f"{e['low']}–{e['high']}", None)), metric))
        out.append(Table("compare_leaderboard", "Leaderboard with rank confidence intervals", ("Run",),
                         ("Score", "Rank", f"{lvl}% rank CI"), tuple(lb_rows), (),
                         (f"Ranks from {result['n_boot']} scene-clustered bootstrap replicates (1 = best).",),
                         section_header="Metric"))
    return out


def compare_csv(result: dict[str, Any]) -> str:
    """Long-format CSV of :func:`compare_runs`: one row per pair and measure (PA, CWPA,
    correct), every number unrounded."""
    import csv
    import io

    cols = ["run_a", "run_b", "measure", "a", "b", "diff", "low", "high", "se", "p_permutation", "p_permutation_holm",
            "p_bootstrap", "p_bootstrap_holm", "a_only", "b_only", "p_mcnemar", "p_mcnemar_holm"]
    buf = io.StringIO()
    w = csv.DictWriter(buf, cols, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for p in result["pairs"]:
        for measure in ("PA", "CWPA", "correct"):
            w.writerow({"run_a": p["a"], "run_b": p["b"], "measure": measure, **p[measure]})
    return buf.getvalue()


# --------------------------------------------------------------------------- CLI


def register(app: typer.Typer) -> None:
    """Add the ``report`` and ``compare`` commands to ``app``."""

    @app.command("report")
    def report_cmd(
        run_dirs: List[Path] = typer.Argument(..., help="run directories (several runs become rows of one table)"),
        out: Optional[Path] = typer.Option(None, "--out", "-o", help="report folder [default: RUN_DIR/report, or ./report for several runs]"),
        fmt: str = typer.Option("md,csv,tex,html", "--format", "-f", help="comma-separated: md, csv, tex, html"),
        data: Optional[Path] = typer.Option(None, "--data", "-d", help="labels folder (default: the one recorded in run.json)"),
        label: List[str] = typer.Option([], "--label", help="display name of each run, in order (repeatable)"),
        facet: List[str] = typer.Option([], "--facet", help="scene attribute for the failure breakdown (repeatable; default: all small ones)"),
        images: str = typer.Option("all", help="item images in the HTML viewer: all (every frame, click to enlarge) | first-last | none"),
        max_items: int = typer.Option(5000, min=1, help="questions embedded in the HTML viewer (chosen by the §7.6 rule)"),
        featured: int = typer.Option(12, min=0, help="failure and success cases marked by the §7.6 rule"),
        seed: int = typer.Option(0, help="seed of the bootstrap"),
        n_boot: int = typer.Option(1000, min=10, help="bootstrap replicates for the confidence intervals"),
        no_plots: bool = typer.Option(False, "--no-plots", help="skip the figures (HTML reports always draw them)"),
    ) -> None:
        """Tables (md/csv/tex), figures (PNG/SVG) and a static HTML report of run directories."""
        formats = parse_formats(fmt)
        runs = load_runs(run_dirs, label)
        target = out or (run_dirs[0] / "report" if len(run_dirs) == 1 else Path("report"))
        families: dict[str, list[RunDir]] = {}
        for r in runs:  # a sweep folder may mix benchmarks: one report per family, in a subfolder
            families.setdefault(benchmark_family(r), []).append(r)
        for family, group in families.items():
            where = target / family if len(families) > 1 else target
            res = build_report(group, where, formats=formats, data=data, attributes=facet or None, images=images,
                               max_items=max_items, featured=featured, seed=seed, n_boot=n_boot, figures=not no_plots)
            for n in res["notes"]:
                typer.echo(f"note: {n}", err=True)
            typer.echo(f"report written to {where} ({len(res['files'])} files: {', '.join(res['tables'])})")
            if "html" in formats:
                typer.echo(f"open {where / 'index.html'} in a browser")

    @app.command("compare")
    def compare_cmd(
        run_dirs: List[Path] = typer.Argument(..., help="two or more run directories on the same dataset"),
        protocol: Optional[str] = typer.Option(None, help="paper | official [default: the runs' protocol]"),
        seed: int = typer.Option(0, help="seed of the bootstrap and permutations"),
        out: Optional[Path] = typer.Option(None, "--out", "-o", help="also write compare.md, compare.csv (long format) and compare.json here"),
        data: Optional[Path] = typer.Option(None, "--data", "-d", help="labels folder (default: the one recorded in run.json)"),
        label: List[str] = typer.Option([], "--label", help="display name of each run, in order (repeatable)"),
        n_boot: int = typer.Option(2000, min=10, help="bootstrap replicates"),
        n_perm: int = typer.Option(10000, min=10, help="random sign patterns when exact enumeration is too large"),
        level: float = typer.Option(0.95, help="confidence level"),
    ) -> None:
        """Paired significance tests between runs on the same questions."""
        if len(run_dirs) < 2:
            raise UsageError("compare needs at least two run directories")
        runs = load_runs(run_dirs, label, data)
        result = compare_runs(runs, protocol=protocol, data=data, seed=seed, n_boot=n_boot, n_perm=n_perm, level=level)
        tables = compare_tables(result)
        text = "\n".join(to_markdown(t) for t in tables)
        typer.echo(text)
        if out is not None:
            _make_out_folder(out)
            (out / "compare.md").write_text(text, encoding="utf-8")
            (out / "compare.csv").write_text(compare_csv(result), encoding="utf-8")
            (out / "compare.json").write_text(json.dumps(result, indent=2, default=_json_default) + "\n", encoding="utf-8")
            typer.echo(f"written to {out}")


def _make_out_folder(out: Path) -> None:
    """Create the --out folder, or raise a StorageError naming it and the fix."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError.from_os_error(exc, out, "--out folder") from None


def _json_default(o: Any) -> Any:
    if isinstance(o, float) and math.isnan(o):
        return None
    if hasattr(o, "item"):
        return o.item()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
