"""Write the report of run directories (``socialbench report``): ``tables/<name>.<md|csv|tex>``,
``report.md`` (every table), ``plots/*.png|svg`` and, with ``html``, ``index.html`` +
``images/`` with the per-item viewer. Item-level parts (failure tables, bootstrap CIs, the
viewer) need the labels (the ``data`` folder recorded in ``run.json``, or ``data``); without
them they are skipped with a note.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from socialbench.errors import StorageError, UsageError
from socialbench.files.atomic_write import refuse_links_in, write_bytes_atomic
from socialbench.report.data_source import label_tables
from socialbench.report.item_data import ItemData, auto_attributes, protocol_of
from socialbench.report.loading import check_same_benchmark
from socialbench.report.provenance import answer_source, completeness, mark_partial, note_partial, rankable
from socialbench.report.renderers import RENDERERS, to_markdown
from socialbench.report.roboteq_human import roboteq_human, roboteq_human_grounding, roboteq_human_image
from socialbench.report.roboteq_tables import (
    roboteq_ablation_table,
    roboteq_grounding_table,
    roboteq_human_image_table,
    roboteq_rag_table,
    roboteq_run_coverage,
    roboteq_table1,
)
from socialbench.report.robustness_table import robustness_table
from socialbench.report.run_dir import RunDir
from socialbench.report.socialnav_ablation_tables import socialnav_ablation_table, socialnav_gt_table
from socialbench.report.socialnav_item_tables import socialnav_item_tables
from socialbench.report.socialnav_tables import socialnav_question_table, socialnav_table1
from socialbench.report.table import TableSet
from socialbench.report.waypoint_table import waypoint_table

__all__ = ["FORMATS", "IMAGE_MODES", "parse_formats", "build_report", "make_out_folder"]

FORMATS = ("md", "csv", "tex", "html")
IMAGE_MODES = ("first-last", "all", "none")


def parse_formats(text: str) -> list[str]:
    """``"md,csv"`` -> ``["md", "csv"]``; raises :class:`UsageError` on unknown formats."""
    items = [t.strip().lower() for t in text.split(",") if t.strip()]
    bad = [t for t in items if t not in FORMATS]
    if bad or not items:
        raise UsageError(f"--format takes a comma-separated list of {', '.join(FORMATS)} (got {text!r})")
    return list(dict.fromkeys(items))


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
    include_incomplete: bool = False,
) -> dict[str, Any]:
    """Write the report of ``runs`` into ``out``; returns ``{"files", "notes", "tables"}``.

    Partial runs (:func:`~socialbench.report.provenance.completeness`) are marked wherever
    they are shown and left out of the ranked tables and the figures unless
    ``include_incomplete``; the per-question Tables 10-12, the RobotEQ run coverage, the HTML
    run list and the item viewer show them (marked)."""
    if images not in IMAGE_MODES:
        raise UsageError(f"--images must be one of {', '.join(IMAGE_MODES)} (got {images!r})")
    family = check_same_benchmark(runs)
    make_out_folder(out)
    tables = TableSet()
    notes: list[str] = []
    item_data = ItemData(runs, data)
    notes += item_data.notes
    mark_partial(runs)
    ranked, left_out = rankable(runs, include_incomplete)
    notes += left_out
    # the ranked tables' item-level data: the same loaded labels, for the runs they take
    ranked_data = item_data.subset([i for i, r in enumerate(runs) if any(r is k for k in ranked)])
    human_facets = None
    attrs: list[str] = []
    if family == "socialnav":
        if ranked:
            tables.add(socialnav_table1(ranked))
        tables.add(socialnav_question_table(runs, "models"))
        tables.add(socialnav_question_table(runs, "baselines"))
        if ranked:
            tables.add(socialnav_ablation_table(ranked))
            tables.add(socialnav_gt_table(ranked))
        if ranked_data.indices:
            if attributes is not None:
                attrs = list(attributes)
            else:
                from socialbench.navigation.scene_features import FEATURES

                attrs = list(FEATURES) + auto_attributes(list(item_data.items().values()))
            for t in socialnav_item_tables(ranked_data.runs, ranked_data, attrs, seed=seed, n_boot=n_boot):
                tables.add(t)
    elif family == "socialnav-waypoint":
        if ranked:
            tables.add(waypoint_table(ranked))
    else:
        bj = [r for r in ranked if r.benchmark == "roboteq-bj"]
        human_subset, human_facets = roboteq_human(item_data)
        sg = [r for r in ranked if r.benchmark == "roboteq-sg"]
        if bj:
            tables.add(roboteq_table1(bj, human_subset))
            tables.add(roboteq_human_image_table(roboteq_human_image(item_data)))  # Figure 6(a), when labelled
            tables.add(roboteq_ablation_table(bj))
            tables.add(roboteq_rag_table(bj))
        if ranked:
            tables.add(roboteq_grounding_table(ranked, roboteq_human_grounding(item_data)))
        tables.add(roboteq_ablation_table(sg))  # "roboteq_sg_ablation"
        tables.add(roboteq_rag_table(sg))  # "roboteq_sg_rag"
    if ranked:
        tables.add(robustness_table(ranked))
    if family not in ("socialnav", "socialnav-waypoint"):
        apart = {
            id(r): f"{completeness(r).why}; pass --include-incomplete to include it"
            for r in runs
            if not any(r is k for k in ranked)
        }
        coverage, hidden = roboteq_run_coverage(runs, tables.tables, apart)
        tables.add(coverage)
        notes += hidden
    tables.tables = label_tables(tables.tables, runs)  # each title names its benchmark and dataset
    tables.tables = note_partial(tables.tables, runs)  # a partial run's mark is explained where shown
    files: list[Path] = []
    tdir = out / "tables"
    for fmt in formats:
        if fmt == "html":
            continue
        ext, render = RENDERERS[fmt]
        for t in tables.tables:
            p = tdir / f"{t.name}{ext}"
            write_bytes_atomic(p, render(t).encode("utf-8"), root=out, option="--out folder")
            files.append(p)
    if "md" in formats:
        p = out / "report.md"
        text = "\n".join(to_markdown(t) for t in tables.tables)
        write_bytes_atomic(p, text.encode("utf-8"), root=out, option="--out folder")
        files.append(p)
    figs: list[Path] = []
    if (figures or "html" in formats) and ranked:
        from socialbench.report import plots

        fdir = out / "plots"
        figs = (
            plots.socialnav_figures(ranked, fdir)
            if family == "socialnav"
            else plots.roboteq_figures(ranked, fdir, human_facets)
        )
        files += figs
    if "html" in formats:
        from socialbench.report.html import write_report_html
        from socialbench.report.viewer import viewer_payload

        payload = None
        if item_data.indices:
            from socialbench.report.sent_images import safe_sent_images

            idx = item_data.indices
            sent: list[Any] = []
            for i in idx:
                how, why = safe_sent_images(runs[i], item_data.datasets[i])
                sent.append(how if how is not None or why is None else why)
            payload = viewer_payload(
                [runs[i].label for i in idx],
                [item_data.entries[i] for i in idx],
                item_data.items(),
                protocol_of(runs),
                out,
                attributes=attrs,
                max_items=max_items,
                featured=featured,
                images=images,
                models=[answer_source(runs[i].model, runs[i].run).ranked for i in idx],
                sent=sent,
                seeds=[_seed(runs[i]) for i in idx],
            )
        else:
            notes.append("no labels loaded: the per-item viewer is not included (pass --data DIR)")
        run_rows = [
            {
                "label": r.label,
                "model": r.model,
                "benchmark": r.benchmark,
                "protocol": r.protocol,
                "status": completeness(r).why or r.run.get("status", ""),  # a partial run's count and status
                "questions": r.metrics.get("n_scored", (r.metrics.get("run") or {}).get("questions", "")),
                "path": str(r.path),
            }
            for r in runs
        ]
        title = "socialbench report — " + ", ".join(sorted({r.benchmark for r in runs}))
        files.append(
            write_report_html(
                out, title=title, runs=run_rows, tables=tables.tables, figures=figs, viewer=payload, notes=notes
            )
        )
    return {"files": files, "notes": notes, "tables": [t.name for t in tables.tables]}


def _seed(run: RunDir) -> int:
    """The run's ``--seed`` (0 when run.json records none)."""
    seed = run.run.get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else 0


def make_out_folder(out: Path) -> None:
    """Create the --out folder, or raise a StorageError naming it and the fix; a folder that
    holds a symbolic link anywhere below it is refused before anything is written
    (:func:`~socialbench.files.atomic_write.refuse_links_in`: the report's files would be
    written through it, out of the folder)."""
    refuse_links_in(out, "--out folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError.from_os_error(exc, out, "--out folder") from None
