"""Pipeline and dataset reports (Markdown + JSON): :func:`stage_table` from the stage summaries,
:func:`dataset_tables` for an exported dataset (categories, facets, labels, answers, agreement;
paper Figure 4b/4c), written by :func:`write_build_report`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from socialbench.construction.stage_summary import read_summaries
from socialbench.files.atomic_write import write_bytes_atomic
from socialbench.report.renderers import to_markdown
from socialbench.report.table import Cell, Row, Table

__all__ = ["stage_table", "dataset_tables", "write_build_report"]


def _int(v: float | None) -> Cell:
    return Cell(str(int(v)), float(v)) if v is not None else Cell("—")


def _kinds(d: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(d.items())) or "—"


def stage_table(work: Path) -> Table | None:
    docs = read_summaries(work)
    if not docs:
        return None
    rows = []
    for d in docs:
        t = d.get("totals") or {}
        cost = t.get("cost_usd")
        rows.append(
            Row(
                stub=(d["stage"],),
                cells=(
                    _int(d.get("n_in")),
                    _int(d.get("n_out")),
                    _int(d.get("n_skipped")),
                    _int(d.get("n_failed")),
                    Cell(_kinds(d.get("failure_kinds") or {})),
                    Cell(_kinds(d.get("removed") or {})),
                    _int(t.get("requests", 0)),
                    _int(t.get("prompt_tokens", 0)),
                    _int(t.get("completion_tokens", 0)),
                    _int((t.get("images_generated") or 0) + (t.get("images_edited") or 0)),
                    Cell(f"{cost:.4f}", cost) if cost is not None else Cell("—"),
                ),
            )
        )
    return Table(
        name="build_stages",
        title="Pipeline stages: records in/out, failures, removals, tokens and cost (totals over all runs)",
        stub=("stage",),
        columns=(
            "in",
            "out",
            "resumed",
            "failed",
            "failure kinds",
            "removed",
            "requests",
            "prompt tok",
            "completion tok",
            "images",
            "cost USD",
        ),
        rows=tuple(rows),
        notes=(
            "in/out/resumed/failed describe the latest run of each stage; token, request, image and cost columns "
            "add up all runs.",
        ),
    )


def dataset_tables(stats: Mapping[str, Any], agreement: Mapping[str, Any] | None = None) -> list[Table]:
    tables = []
    n_b = max(1, stats.get("behaviors", 0))
    cats = stats.get("categories") or {}
    tables.append(
        Table(
            name="dataset_categories",
            title="Scenes and behaviors per category",
            stub=("category",),
            columns=("scenes", "behaviors", "% behaviors"),
            rows=tuple(
                Row(
                    (c,),
                    (
                        _int(n),
                        _int(stats["behaviors_by_category"].get(c, 0)),
                        Cell(f"{100 * stats['behaviors_by_category'].get(c, 0) / n_b:.1f}"),
                    ),
                )
                for c, n in cats.items()
            ),
        )
    )
    tables.append(
        Table(
            name="dataset_facets",
            title="Behaviors per facet (a behavior may carry several)",
            stub=("facet",),
            columns=("behaviors", "% behaviors"),
            rows=tuple(
                Row((f,), (_int(n), Cell(f"{100 * n / n_b:.1f}")))
                for f, n in sorted((stats.get("facets") or {}).items(), key=lambda kv: -kv[1])
            ),
        )
    )
    labels = stats.get("labels") or {}
    tables.append(
        Table(
            name="dataset_labels",
            title="Label balance (behavior judgment) and answers (spatial grounding)",
            stub=("what",),
            columns=("count",),
            rows=tuple(
                [Row((f"label {k}",), (_int(v),)) for k, v in labels.items()]
                + [
                    Row((f"answers with {k} region(s)",), (_int(v),))
                    for k, v in (stats.get("answer_sizes") or {}).items()
                ]
                + [Row((f"region {k} correct",), (_int(v),)) for k, v in (stats.get("answer_letters") or {}).items()]
            ),
        )
    )
    if agreement:
        rows = []
        for task, a in agreement.items():
            if isinstance(a, dict) and "units" in a:
                rows.append(
                    Row(
                        (task,),
                        (
                            _int(a["units"]),
                            _int(a["ratings"]),
                            *(
                                Cell(f"{a[k]:.3f}", a[k]) if a.get(k) is not None else Cell("—")
                                for k in ("fleiss_kappa", "krippendorff_alpha", "percent_agreement")
                            ),
                        ),
                    )
                )
        if rows:
            tables.append(
                Table(
                    name="dataset_agreement",
                    title="Inter-annotator agreement",
                    stub=("task",),
                    columns=("units", "ratings", "Fleiss' kappa", "Krippendorff's alpha", "pairwise agreement"),
                    rows=tuple(rows),
                )
            )
    return tables


def write_build_report(work: Path, out: Path | None = None, dataset: Path | None = None) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.json`` (into ``out``, default the work folder)."""
    out = out or work
    out.mkdir(parents=True, exist_ok=True)
    md = ["# socialbench build report", ""]
    doc: dict[str, Any] = {"work": str(work), "stages": read_summaries(work)}
    st = stage_table(work)
    if st is not None:
        md += [to_markdown(st), ""]
    agreement_path = work / "aggregated" / "agreement.json"
    agreement = json.loads(agreement_path.read_text(encoding="utf-8")) if agreement_path.is_file() else None
    doc["agreement"] = agreement
    if dataset is not None:
        from socialbench.benchmarks.roboteq.scan import scan_roboteq
        from socialbench.construction.export import dataset_stats

        scan = scan_roboteq(dataset)
        stats = dataset_stats(scan.scenes, scan.questions)
        doc["dataset"] = {"path": str(dataset), **stats}
        md += [
            "## Dataset",
            "",
            f"{stats['scenes']} scenes, {stats['behaviors']} behaviors, {stats['questions']} grounding questions.",
            "",
        ]
        for t in dataset_tables(stats, agreement):
            md += [to_markdown(t), ""]
    elif agreement:
        for t in dataset_tables({"behaviors": 0, "categories": {}, "behaviors_by_category": {}}, agreement)[3:]:
            md += [to_markdown(t), ""]
    md_path, json_path = out / "report.md", out / "report.json"
    # never through a link (a report.md link planted in the work folder would be written through)
    write_bytes_atomic(md_path, "\n".join(md).encode("utf-8"), root=out, option="--out folder")
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    write_bytes_atomic(json_path, text.encode("utf-8"), root=out, option="--out folder")
    return md_path, json_path
