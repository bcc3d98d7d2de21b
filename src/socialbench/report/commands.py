"""``socialbench report`` and ``socialbench compare``: the command line of the report.

``register(app)`` adds both commands to a Typer app. The work is done by
:func:`socialbench.report.build.build_report` (the report folder) and
:func:`socialbench.report.compare.compare_runs` (paired tests), plain functions usable from
Python; they are imported when a command runs.
"""

from __future__ import annotations

from pathlib import Path

import typer

from socialbench.errors import UsageError
from socialbench.messages import terminal_safe
from socialbench.report.loading import load_runs
from socialbench.report.run_dir import RunDir, benchmark_family

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    """Add the ``report`` and ``compare`` commands to ``app``."""

    @app.command("report")
    def report_cmd(
        run_dirs: list[Path] = typer.Argument(..., help="run directories (several runs become rows of one table)"),
        out: Path | None = typer.Option(
            None, "--out", "-o", help="report folder [default: RUN_DIR/report, or ./report for several runs]"
        ),
        fmt: str = typer.Option("md,csv,tex,html", "--format", "-f", help="comma-separated: md, csv, tex, html"),
        data: Path | None = typer.Option(
            None, "--data", "-d", help="labels folder (default: the one recorded in run.json)"
        ),
        label: list[str] = typer.Option([], "--label", help="display name of each run, in order (repeatable)"),
        facet: list[str] = typer.Option(
            [], "--facet", help="scene attribute for the failure breakdown (repeatable; default: all small ones)"
        ),
        images: str = typer.Option(
            "all", help="item images in the HTML viewer: all (every frame, click to enlarge) | first-last | none"
        ),
        max_items: int = typer.Option(
            5000, min=1, help="questions embedded in the HTML viewer (chosen by the §7.6 rule)"
        ),
        featured: int = typer.Option(12, min=0, help="failure and success cases marked by the §7.6 rule"),
        seed: int = typer.Option(0, help="seed of the bootstrap"),
        n_boot: int = typer.Option(1000, min=10, help="bootstrap replicates for the confidence intervals"),
        no_plots: bool = typer.Option(False, "--no-plots", help="skip the figures (HTML reports always draw them)"),
        include_incomplete: bool = typer.Option(
            False,
            "--include-incomplete",
            help="rank partial runs (interrupted, or not every question answered) too; they are marked either way",
        ),
    ) -> None:
        """Tables (md/csv/tex), figures (PNG/SVG) and a static HTML report of run directories."""
        from socialbench.files.atomic_write import refuse_link
        from socialbench.report.build import build_report, parse_formats

        formats = parse_formats(fmt)
        runs = load_runs(run_dirs, label)
        target = out or (run_dirs[0] / "report" if len(run_dirs) == 1 else Path("report"))
        if out is None:  # a report/ link in the run folder would take the report out of it
            refuse_link(target, "--out folder")
        families: dict[str, list[RunDir]] = {}
        for r in runs:  # a sweep folder may mix benchmarks: one report per family, in a subfolder
            families.setdefault(benchmark_family(r), []).append(r)
        for family, group in families.items():
            where = target / family if len(families) > 1 else target
            if where != target:
                refuse_link(where, "--out folder")
            res = build_report(
                group,
                where,
                formats=formats,
                data=data,
                attributes=facet or None,
                images=images,
                max_items=max_items,
                featured=featured,
                seed=seed,
                n_boot=n_boot,
                figures=not no_plots,
                include_incomplete=include_incomplete,
            )
            for n in res["notes"]:
                typer.echo(terminal_safe(f"note: {n}"), err=True)
            typer.echo(f"report written to {where} ({len(res['files'])} files: {', '.join(res['tables'])})")
            if "html" in formats:
                typer.echo(f"open {where / 'index.html'} in a browser")

    @app.command("compare")
    def compare_cmd(
        run_dirs: list[Path] = typer.Argument(..., help="two or more run directories on the same dataset"),
        protocol: str | None = typer.Option(
            None, help="paper | official | official-gemini [default: the runs' protocol]"
        ),
        seed: int = typer.Option(0, help="seed of the bootstrap and permutations"),
        out: Path | None = typer.Option(
            None, "--out", "-o", help="also write compare.md, compare.csv (long format) and compare.json here"
        ),
        data: Path | None = typer.Option(
            None, "--data", "-d", help="labels folder (default: the one recorded in run.json)"
        ),
        label: list[str] = typer.Option([], "--label", help="display name of each run, in order (repeatable)"),
        n_boot: int = typer.Option(2000, min=10, help="bootstrap replicates"),
        n_perm: int = typer.Option(10000, min=10, help="random sign patterns when exact enumeration is too large"),
        level: float = typer.Option(0.95, help="confidence level"),
        include_incomplete: bool = typer.Option(
            False,
            "--include-incomplete",
            help="compare partial runs (interrupted, or not every question answered) too, marked",
        ),
    ) -> None:
        """Paired significance tests between runs on the same questions."""
        from socialbench.report.build import make_out_folder
        from socialbench.report.compare import compare_csv, compare_json, compare_runs, compare_tables
        from socialbench.report.data_source import label_tables
        from socialbench.report.renderers import to_markdown

        if len(run_dirs) < 2:
            raise UsageError("compare needs at least two run directories")
        from socialbench.report.provenance import mark_partial, note_partial, rankable

        loaded = load_runs(run_dirs, label, data)
        mark_partial(loaded)
        runs, left_out = rankable(loaded, include_incomplete)
        for line in left_out:
            typer.echo(terminal_safe(f"note: {line}"), err=True)
        if len(runs) < 2:
            raise UsageError(
                f"compare needs at least two complete runs, and {len(runs)} of the {len(loaded)} given "
                "answered every question; finish the partial ones (run the same eval command again) or pass "
                "--include-incomplete to compare them, marked"
            )
        result = compare_runs(runs, protocol=protocol, data=data, seed=seed, n_boot=n_boot, n_perm=n_perm, level=level)
        tables = label_tables(compare_tables(result), runs)  # titles name the benchmark and dataset
        tables = note_partial(tables, runs)  # a partial run's mark is explained where shown
        text = "\n".join(to_markdown(t) for t in tables)
        typer.echo(terminal_safe(text))  # run names and notes come from the run folders
        if out is not None:
            from socialbench.files.atomic_write import write_bytes_atomic

            make_out_folder(out)  # refuses a folder holding a symbolic link
            for name, content in (
                ("compare.md", text),
                ("compare.csv", compare_csv(result)),
                ("compare.json", compare_json(result)),
            ):
                write_bytes_atomic(out / name, content.encode("utf-8"), root=out, option="--out folder")
            typer.echo(f"written to {out}")
