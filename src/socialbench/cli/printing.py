"""How a command prints a run's scores: the benchmark's own summary, or a table of
metrics.json's ``scores`` (text from the file shown inert)."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table

from socialbench.messages import line as _line
from socialbench.messages import stdout_console

out = stdout_console()


def print_metrics(bench: object, metrics: dict[str, Any]) -> None:
    """The benchmark's ``format_summary`` of ``metrics`` when it has one, else :func:`print_scores`."""
    summary = getattr(bench, "format_summary", None)
    if summary is not None:  # its text quotes metrics.json (model names, notes): escaped
        from socialbench.messages import terminal_safe

        out.print(terminal_safe(summary(metrics)), markup=False, highlight=False, soft_wrap=True)
    else:
        print_scores(metrics)


def print_scores(metrics: dict[str, Any]) -> None:
    """metrics.json's ``scores`` as a table (mean±SE per scorer, metric and group), then its
    failure rates and a metamorphic run's consistency."""
    scores = metrics.get("scores") or {}
    if not scores:
        _line(metrics.get("note", "nothing scored"))
        return
    groups = ["All", "Spatial reasoning", "Spatiotemporal reasoning", "Social reasoning"]
    present = [g for g in groups if any(g in b for b in scores.values())]
    from socialbench.messages import table_text

    table = Table(
        title=table_text(f"{metrics.get('benchmark', '')} — mean±SE ({metrics.get('protocol')} protocol)"),
        box=box.SIMPLE,
    )
    table.add_column("scorer", no_wrap=True)
    table.add_column("metric")
    for g in present:
        table.add_column(g.replace(" reasoning", ""), justify="right")
    table.add_column("n", justify="right")
    for scorer in ("model", "human:oracle", "human:average"):
        if scorer not in scores:
            continue
        for metric in ("PA", "CWPA"):
            row = [scorer if metric == "PA" else "", metric]
            for g in present:
                b = scores[scorer].get(g)
                row.append("—" if b is None else f"{b[metric]:.3f}±{b[metric + '_se']:.3f}")
            row.append(str(scores[scorer].get("All", {}).get("n", "")))
            table.add_row(*row)
    out.print(table)
    fails = metrics.get("failures") or {}
    if fails:
        _line(
            f"failure rate {fails.get('failure_rate', float('nan')):.3f} · invalid rate {fails.get('invalid_rate', float('nan')):.3f}"
            f" · error rate {fails.get('error_rate', float('nan')):.3f}"
        )
    cons = (metrics.get("consistency") or {}).get("All") or {}
    if cons.get("consistency") is not None:  # a metamorphic --perturb run
        se = cons.get("se")
        _line(
            f"consistency with the unperturbed answers {cons['consistency']:.3f}"
            + (f"±{se:.3f}" if se is not None else "")
            + f" over {cons['n']} question pairs"
        )
