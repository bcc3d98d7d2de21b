"""``socialbench build`` commands that call an images API: images, review and grounding-images,
plus the images-API settings built from their options (registered by
:mod:`socialbench.construction.commands`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

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
from socialbench.errors import UsageError

if TYPE_CHECKING:
    from socialbench.construction.images import ImageSettings

# --------------------------------------------------------------------------- images


ImageModel = Annotated[
    str,
    typer.Option(
        "--image-model", help="Images API model: MODEL[@BASE_URL], e.g. gpt-image-1 or name@http://127.0.0.1:9000/v1."
    ),
]


def image_settings(
    image_model: str,
    size: str | None,
    quality: str | None,
    response_format: str,
    api_key_env: str,
    timeout: float,
    max_attempts: int,
    concurrency: int,
    price_per_image: float | None,
    progress: bool,
    base_delay_s: float = 2.0,
) -> ImageSettings:
    """The images-API settings of an image stage from its options (``--response-format``
    checked here)."""
    from socialbench.construction.images import ImageSettings

    if response_format not in ("b64_json", "url", "none"):
        raise UsageError("--response-format must be b64_json, url or none")
    return ImageSettings(
        model=image_model,
        size=size,
        quality=quality,
        response_format=None if response_format == "none" else response_format,
        api_key_env=api_key_env,
        timeout_s=timeout,
        max_attempts=max_attempts,
        concurrency=concurrency,
        price_per_image=price_per_image,
        progress=progress,
        base_delay_s=base_delay_s,
    )


def images_cmd(
    image_model: ImageModel,
    work: Work = Path("build"),
    inp: InPath = None,
    size: Annotated[str | None, typer.Option(help="e.g. 1536x1024 (default: the server's).")] = None,
    quality: Annotated[str | None, typer.Option()] = None,
    response_format: Annotated[
        str, typer.Option(help="b64_json, url, or none (omit; gpt-image models always return b64_json).")
    ] = "b64_json",
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key.")] = "OPENAI_API_KEY",
    concurrency: Concurrency = 4,
    timeout: Timeout = 300.0,
    max_attempts: MaxAttempts = 4,
    price_per_image: Annotated[float | None, typer.Option(help="USD per generated image (cost report).")] = None,
    retry_delay: RetryDelay = 2.0,
    progress: Progress = False,
) -> None:
    """One candidate image per visual prompt, saved with provenance."""
    from socialbench.construction.stages.image_stages import images_stage

    settings = image_settings(
        image_model,
        size,
        quality,
        response_format,
        api_key_env,
        timeout,
        max_attempts,
        concurrency,
        price_per_image,
        progress,
        retry_delay,
    )
    run_stage(work, lambda: images_stage(work, inp, settings))


# --------------------------------------------------------------------------- review


@with_llm_options(timeout=300.0)
def review_cmd(
    model: Model,
    image_model: ImageModel,
    work: Work = Path("build"),
    inp: InPath = None,
    max_rounds: Annotated[int, typer.Option(help="Edit rounds per image at most.")] = 2,
    optional_edits: Annotated[bool, typer.Option(help="Also edit images that only failed Soft criteria.")] = False,
    no_edit: Annotated[bool, typer.Option("--no-edit", help="Review only; never call the edit endpoint.")] = False,
    size: Annotated[str | None, typer.Option()] = None,
    response_format: Annotated[str, typer.Option()] = "b64_json",
    api_key_env: Annotated[str, typer.Option()] = "OPENAI_API_KEY",
    image_concurrency: Annotated[int, typer.Option(help="Edit calls in flight.")] = 4,
    price_per_image: Annotated[float | None, typer.Option(help="USD per edited image.")] = None,
    retry_delay: RetryDelay = 2.0,
    max_tokens: Annotated[int, typer.Option()] = 2048,
    *,
    llm: LLMOptions,
) -> None:
    """VLM review on the 7 criteria of Table 3; mandatory revisions through the edit endpoint."""
    from socialbench.construction.review import ReviewOptions
    from socialbench.construction.stages.image_stages import review_stage

    s = llm.settings(model, work, temperature=0.0, max_tokens=max_tokens)
    isettings = image_settings(
        image_model,
        size,
        None,
        response_format,
        api_key_env,
        llm.timeout,
        llm.max_attempts,
        image_concurrency,
        price_per_image,
        llm.progress,
        retry_delay,
    )
    opts = ReviewOptions(
        max_rounds=max_rounds,
        optional_edits=optional_edits,
        parse_retries=llm.parse_retries,
        max_tokens=max_tokens,
        progress=llm.progress,
    )
    run_stage(work, lambda: review_stage(work, inp, s, isettings, opts, edit=not no_edit))


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
