"""The ``socialbench export`` command group (loaded lazily by :mod:`socialbench.cli`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

export_app = typer.Typer(
    no_args_is_help=True, help="Export benchmark data for training (SFT files) and runs as Inspect AI logs."
)


def register(app: typer.Typer) -> None:
    """Add the ``export`` command group to ``app``."""
    app.add_typer(export_app, name="export")


@export_app.command("sft")
def sft_cmd(
    data: Annotated[
        str,
        typer.Option(
            "--data",
            "-d",
            help="RobotEQ dataset folder, build export, or hub id: Tongji-Emotion/Robot-EQ, or hf:OWNER/NAME "
            "for another hub dataset.",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the SFT files into.")],
    fmt: Annotated[
        str, typer.Option("--format", help="messages (TRL SFTTrainer), sharegpt (LLaMA-Factory) or llava.")
    ] = "messages",
    task: Annotated[str, typer.Option(help="bj (behavior judgment), sg (spatial grounding) or both.")] = "both",
    train_subset: Annotated[str, typer.Option(help="Subset of the train split: synthetic, real or all.")] = "synthetic",
    eval_subset: Annotated[str, typer.Option(help="Subset of the eval split: synthetic, real, all or none.")] = "real",
    overwrite: Annotated[
        bool,
        typer.Option(
            help="Write into a non-empty --out, first removing an earlier export's files of any format "
            "(train/eval files, dataset_info.json, split.json, README.md, images/); other files stay."
        ),
    ] = False,
    images_first: Annotated[
        bool,
        typer.Option(
            help="Image before the text in the user turn, as eval sends it with --model-opt images_first=true "
            "(default: text first, as eval sends it by default)."
        ),
    ] = False,
) -> None:
    """Supervised fine-tuning data: the prompts `eval` sends paired with the gold JSON answers."""
    from socialbench.export.sft import write_sft

    res = write_sft(
        data,
        out,
        fmt=fmt,
        task=task,
        train_subset=train_subset,
        eval_subset=eval_subset,
        overwrite=overwrite,
        images_first=images_first,
    )
    from socialbench.messages import say

    for warning in res.warnings:
        say(f"warning: {warning}")
    for split, path in res.files.items():
        typer.echo(f"{split}: {res.counts[split]} examples in {path}")
    typer.echo(f"{res.images} images under {out / 'images'}; splits in {out / 'split.json'}; card {out / 'README.md'}")


@export_app.command("inspect")
def inspect_cmd(
    run_dir: Annotated[Path, typer.Argument(help="Run folder written by `socialbench eval`.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Inspect log file to write (.eval or .json).")],
    data: Annotated[
        Path | None, typer.Option("--data", "-d", help="The run's dataset folder, when not where run.json says.")
    ] = None,
) -> None:
    """A run as an Inspect AI log: `inspect view` shows its samples, requests, images, replies, scores and errors (needs the inspect extra)."""
    import importlib.util

    from socialbench.errors import UsageError

    if importlib.util.find_spec("inspect_ai") is None:
        raise UsageError("export inspect needs Inspect AI: pip install 'socialbench[inspect]'")
    from socialbench.export.inspect_log import export_inspect

    res = export_inspect(run_dir, out, data)
    epochs = f" over {res.epochs} epochs" if res.epochs > 1 else ""
    typer.echo(f"{res.samples} samples{epochs} ({res.questions} questions, {res.errors} failed) in {res.path}")
    if res.mismatched_samples:
        typer.echo(
            f"{res.mismatched_samples} samples have requests that differ from the run's (the dataset changed since); "
            "their metadata says requests_match_run: false"
        )
