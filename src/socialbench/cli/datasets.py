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


@sim_app.command("recording")
def sim_recording_cmd(
    out_dir: Path = typer.Option(..., "--out", "-o", help="new folder: recording.mcap, boxes.txt, truth/"),
    scenes: int = typer.Option(4, min=1, help="simulated scenes played back to back (about 5.5 s each)"),
    seed: int = typer.Option(0, help="random seed (same seed, same boxes and truth)"),
    people: str = typer.Option("3-8", help="people per scene, MIN-MAX"),
    rate: float = typer.Option(10.0, help="camera and box rate, Hz (odometry at twice this)"),
    size: str = typer.Option("640x360", help="published image size WxH"),
    noise_scale: float = typer.Option(1.0, min=0.0, help="multiplies every box error below"),
    jitter_px: float = typer.Option(1.0, min=0.0, help="box edge jitter (standard deviation, pixels)"),
    miss_rate: float = typer.Option(0.1, min=0.0, max=1.0, help="share of detections dropped"),
    false_positives: float = typer.Option(0.05, min=0.0, help="mean spurious boxes per frame"),
    id_switch_rate: float = typer.Option(0.005, min=0.0, max=1.0, help="chance per person per frame of a new id"),
    raw_images: bool = typer.Option(
        False, "--raw-images", help="sensor_msgs/Image rgb8 instead of JPEG CompressedImage"
    ),
    fmt: str = typer.Option("mcap", "--format", help="mcap | ros2-mcap | ros2-sqlite3 | ros1"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="show a progress bar on stderr"),
) -> None:
    """Simulate a robot recording (ROS 2 MCAP), tracker boxes (MOTChallenge) and true tracks."""
    from socialbench.runner.progress import RunProgress
    from socialbench.simulation.recording import BoxNoise, simulate_recording

    lo, hi = _parse_range(people, "--people")
    try:
        w, h = (int(v) for v in size.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size {size!r}: give WIDTHxHEIGHT, e.g. 640x360") from None
    noise = BoxNoise(jitter_px, miss_rate, false_positives, id_switch_rate).scaled(noise_scale)
    try:
        with RunProgress(scenes, enabled=progress, label="sim recording", unit="scenes") as bar:
            path = simulate_recording(
                out_dir,
                scenes=scenes,
                seed=seed,
                people=(lo, hi),
                rate=rate,
                frame_size=(w, h),
                noise=noise,
                raw_images=raw_images,
                fmt=fmt,
                progress=bar.update,
            )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    _line(
        f"wrote {path}; build a dataset with: socialbench build socialnav --recording {path}/recording.mcap "
        f"--boxes {path}/boxes.txt --truth {path}/truth --out DATA"
    )
