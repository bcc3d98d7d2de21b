"""The ``socialbench data`` (check and transform datasets) and ``socialbench sim`` (procedural
datasets) command groups."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from socialbench.cli.printing import out
from socialbench.command_index import help_of
from socialbench.errors import UsageError
from socialbench.messages import EXIT_USAGE, say
from socialbench.messages import line as _line
from socialbench.runner.prepare import resolve_data

data_app = typer.Typer(no_args_is_help=True, help=help_of("data"))
sim_app = typer.Typer(no_args_is_help=True, help=help_of("sim"))


@data_app.command("perturb")
def perturb_cmd(
    src: Path = typer.Option(..., "--data", "-d", help="image folder or dataset to copy"),
    dst: Path = typer.Option(..., "--out", "-o", help="new folder for the perturbed copy"),
    name: str = typer.Option(
        ..., "--perturb", help="blur | fisheye | fisheye-water | gaussian-noise | low-light | jpeg"
    ),
    strength: float = typer.Option(1.0, "--perturb-strength"),
    seed: int = typer.Option(0),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar on stderr"),
) -> None:
    """Write a perturbed copy of a dataset's images (deterministic for a seed)."""
    from socialbench.runner.progress import RunProgress
    from socialbench.vision.perturb_dataset import perturb_dataset

    with RunProgress(0, enabled=progress, label="data perturb", unit="files") as bar:
        n = perturb_dataset(src, dst, name, strength, seed, progress=bar.update)
    _line(f"wrote {n} perturbed images to {dst}")


@data_app.command("render")
def render_cmd(
    data: Path = typer.Option(..., "--data", "-d", help="SocialNav-SUB folder with raw frames, tracks and odometry"),
    out_dir: Path | None = typer.Option(
        None, "--out", "-o", help="where to write prompts/<S>/sample_with_bev_<i>.png [default: --data]"
    ),
    max_side: int = typer.Option(
        0, min=0, help="longest composite side in pixels (0 = the frames' width, as released)"
    ),
    overwrite: bool = typer.Option(False, "--overwrite", help="replace composites that already exist"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar on stderr"),
) -> None:
    """Pre-render SocialNav-SUB composites in the release layout (sample_with_bev_<i>.png)."""
    from socialbench.benchmarks.socialnav_sub.prerender import prerender_dataset
    from socialbench.runner.progress import RunProgress

    if not data.exists():
        raise UsageError(f"--data {data} does not exist")
    with RunProgress(0, enabled=progress, label="data render", unit="samples") as bar:
        summary = prerender_dataset(data, out_dir, max_side=max_side, overwrite=overwrite, progress=bar.update)
    out.print(
        f"rendered {summary.written} samples into {summary.out / 'prompts'}"
        + (f" ({summary.skipped} already had their composites)" if summary.skipped else "")
    )


@data_app.command("validate")
def validate_cmd(
    benchmark: str = typer.Option(..., "--benchmark", "-b"),
    data: Path | None = typer.Option(None, "--data", "-d"),
) -> None:
    """List every problem in a dataset folder (file, field, what is wrong, how to fix)."""
    bench, path = resolve_data(benchmark, data)
    problems = bench.validate(path)
    errors = [p for p in problems if not p.message.startswith("warning:")]
    for p in problems:
        say(str(p))
    if errors:
        say(f"{len(errors)} error(s), {len(problems) - len(errors)} warning(s) in {path}")
        raise typer.Exit(EXIT_USAGE)
    with _warnings_listed_above():
        ds = bench.load(path, require_images=False, limit=None)
    n_q = sum(len(i.questions) for i in ds.items)
    warned = f" ({len(problems)} warning(s) above)" if problems else ""
    _line(f"OK: {path} — {len(ds.items)} items, {n_q} questions{warned}")


@contextmanager
def _warnings_listed_above() -> Iterator[None]:
    """While ``data validate`` loads the folder it has just listed the problems of, the
    loader's log warnings (the same problems) are not printed a second time."""
    logger = logging.getLogger("socialbench")
    handler = logging.NullHandler()
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)


def _parse_range(text: str, name: str) -> tuple[int, int]:
    lo, sep, hi = text.partition("-")
    try:
        a, b = int(lo), int(hi if sep else lo)
    except ValueError:
        raise UsageError(f"{name} takes MIN-MAX, e.g. 2-8 (got {text!r})") from None
    if a < 1 or b < a:
        raise UsageError(f"{name} needs 1 <= MIN <= MAX (got {text!r})")
    return a, b


@sim_app.command("socialnav")
def sim_socialnav_cmd(
    out_dir: Path = typer.Option(..., "--out", "-o", help="folder to write the dataset into"),
    scenes: int = typer.Option(20, min=1, help="number of scenes"),
    seed: int = typer.Option(0, help="random seed (same seed, same bytes)"),
    people: str = typer.Option("2-8", help="people per scene, MIN-MAX"),
    annotators: int = typer.Option(1, min=1, help=">1: a synthetic annotator panel with noisy judgments"),
    noise_m: float = typer.Option(
        1.3, min=0.0, help="tracker noise before smoothing, metres (1.3 leaves the paper's 0.67 m ADE)"
    ),
    composites: bool = typer.Option(False, "--composites/--no-composites", help="also write pre-rendered composites"),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="replace a dataset this command wrote before in --out (other folders are refused)"
    ),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar on stderr"),
) -> None:
    """Simulate SocialNav-SUB-format scenes with exact answers (official release layout)."""
    from socialbench.benchmarks.socialnav_sub.simulated import simulate_dataset
    from socialbench.runner.progress import RunProgress

    lo, hi = _parse_range(people, "--people")
    with RunProgress(0, enabled=progress, label="sim socialnav", unit="steps") as bar:
        path = simulate_dataset(
            out_dir,
            scenes=scenes,
            seed=seed,
            people=(lo, hi),
            annotators=annotators,
            noise_m=noise_m,
            write_composites=composites,
            overwrite=overwrite,
            progress=bar.update,
        )
    _line(f"wrote {scenes} scenes to {path}; evaluate with: socialbench eval -b socialnav-sub -d {path} -m MODEL")
