"""``socialbench build`` commands of the spatial-grounding stages (App. E): topics,
grounding-questions and grounding-images (registered by
:mod:`socialbench.construction.commands`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from socialbench.construction.commands_images import image_settings
from socialbench.construction.stage_command import run_stage
from socialbench.construction.stage_options import (
    Concurrency,
    InPath,
    LLMOptions,
    MaxAttempts,
    Model,
    Progress,
    RetryDelay,
    Timeout,
    Work,
    with_llm_options,
)

# --------------------------------------------------------------------------- grounding (App. E)


@with_llm_options(timeout=180.0)
def topics_cmd(
    work: Work = Path("build"),
    source: Annotated[
        str, typer.Option(help="annotators (imported Label Studio proposals) or model (a VLM proposes; needs -m).")
    ] = "annotators",
    model: Annotated[str | None, typer.Option("--model", "-m", help="VLM spec for --source model.")] = None,
    inp: InPath = None,
    per_scene: Annotated[int, typer.Option(help="Topics per scene the model proposes, at least.")] = 2,
    temperature: Annotated[float, typer.Option()] = 0.7,
    max_tokens: Annotated[int, typer.Option()] = 1024,
    *,
    llm: LLMOptions,
) -> None:
    """Pool spatial grounding topics per scene image into topics.jsonl (App. E)."""
    from socialbench.construction.stages.grounding import topics_stage

    s = llm.settings(model, work, temperature=temperature, max_tokens=max_tokens) if model else None
    run_stage(work, lambda: topics_stage(work, source, inp, s, n=per_scene))


@with_llm_options(timeout=180.0)
def grounding_questions_cmd(
    model: Model,
    work: Work = Path("build"),
    inp: InPath = None,
    temperature: Annotated[float, typer.Option()] = 0.7,
    max_tokens: Annotated[int, typer.Option()] = 2048,
    *,
    llm: LLMOptions,
) -> None:
    """Stage 1: topic + image -> multiple-select question and an A-D editing instruction."""
    from socialbench.construction.stages.grounding import grounding_questions_stage

    s = llm.settings(model, work, temperature=temperature, max_tokens=max_tokens)
    run_stage(work, lambda: grounding_questions_stage(work, inp, s))


def grounding_images_cmd(
    work: Work = Path("build"),
    inp: InPath = None,
    out_file: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Output JSONL (default grounding_items.jsonl; single-stage: grounding_items.single_stage.jsonl).",
        ),
    ] = None,
    image_model: Annotated[
        str | None,
        typer.Option(
            "--image-model", help="Image-editing model MODEL[@BASE_URL]; without it the overlay renderer draws."
        ),
    ] = None,
    single_stage: Annotated[
        bool, typer.Option("--single-stage", help="Send image + topic straight to --image-model (Figure 19).")
    ] = False,
    size: Annotated[str | None, typer.Option()] = None,
    response_format: Annotated[str, typer.Option()] = "b64_json",
    api_key_env: Annotated[str, typer.Option()] = "OPENAI_API_KEY",
    concurrency: Concurrency = 4,
    timeout: Timeout = 300.0,
    max_attempts: MaxAttempts = 4,
    price_per_image: Annotated[float | None, typer.Option(help="USD per edited image.")] = None,
    retry_delay: RetryDelay = 2.0,
    progress: Progress = False,
) -> None:
    """Stage 2: annotate A-D on each scene image (editing model or overlay renderer)."""
    from socialbench.construction.stages.grounding import grounding_images_stage

    isettings = (
        image_settings(
            image_model,
            size,
            None,
            response_format,
            api_key_env,
            timeout,
            max_attempts,
            concurrency,
            price_per_image,
            progress,
            retry_delay,
        )
        if image_model
        else None
    )
    run_stage(work, lambda: grounding_images_stage(work, inp, out_file, isettings, single_stage=single_stage))
