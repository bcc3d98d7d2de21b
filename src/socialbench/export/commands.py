"""The ``socialbench export`` command group (loaded lazily by :mod:`socialbench.cli`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

export_app = typer.Typer(no_args_is_help=True, help="Export benchmark data for training (SFT files).")


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
            help="RobotEQ dataset folder, build export, or hub id (Tongji-Emotion/Robot-EQ, hf:OWNER/NAME).",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the SFT files into.")],
    fmt: Annotated[
        str, typer.Option("--format", help="messages (TRL SFTTrainer), sharegpt (LLaMA-Factory) or llava.")
    ] = "messages",
    task: Annotated[str, typer.Option(help="bj (behavior judgment), sg (spatial grounding) or both.")] = "both",
    train_subset: Annotated[str, typer.Option(help="Subset of the train split: synthetic, real or all.")] = "synthetic",
    eval_subset: Annotated[str, typer.Option(help="Subset of the eval split: synthetic, real, all or none.")] = "real",
    overwrite: Annotated[bool, typer.Option(help="Write into a non-empty --out.")] = False,
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
    for split, path in res.files.items():
        typer.echo(f"{split}: {res.counts[split]} examples in {path}")
    typer.echo(f"{res.images} images under {out / 'images'}; splits in {out / 'split.json'}; card {out / 'README.md'}")
