"""``socialbench build`` commands of the model-driven text stages: taxonomy, scenarios, image-prompts,
behaviors, topics and grounding-questions (registered by :mod:`socialbench.construction.commands`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from socialbench.construction.stage_command import run_stage
from socialbench.construction.stage_options import InPath, LLMOptions, Model, Work, with_llm_options

# --------------------------------------------------------------------------- taxonomy


def taxonomy_cmd(
    work: Work = Path("build"),
    taxonomy: Annotated[
        Path | None, typer.Option(help="Your taxonomy YAML (default: the shipped 10 x 56 one).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Replace <work>/taxonomy.yaml with --taxonomy.")] = False,
) -> None:
    """Write the editable taxonomy (<work>/taxonomy.yaml) and taxonomy.jsonl (one row per subcategory)."""
    from socialbench.construction.stages.generation import taxonomy_stage

    run_stage(work, lambda: taxonomy_stage(work, taxonomy, force=force))


# --------------------------------------------------------------------------- scenarios


@with_llm_options(timeout=300.0)
def scenarios_cmd(
    model: Model,
    work: Work = Path("build"),
    merge_model: Annotated[
        str | None,
        typer.Option(
            help="Model for the merge (deduplication) phase; the paper uses a different model family. Default: --model."
        ),
    ] = None,
    beams: Annotated[int, typer.Option(help="Independent beam requests per subcategory.")] = 10,
    k: Annotated[int, typer.Option("-k", "--per-beam", help="Scenarios each beam must return (at least).")] = 10,
    only: Annotated[
        str | None, typer.Option(help="Comma-separated subcategory ids to generate (default: all).")
    ] = None,
    similarity: Annotated[
        str, typer.Option(help="Local near-duplicate filter: ngram, minhash or embedding.")
    ] = "ngram",
    threshold: Annotated[
        float, typer.Option(help="Similarity at or above which a later scenario is a near-duplicate.")
    ] = 0.5,
    scope: Annotated[
        str, typer.Option(help="Compare scenarios within each subcategory or across all.")
    ] = "subcategory",
    embedding_model: Annotated[
        str | None, typer.Option(help="sentence-transformers model name or path (with --similarity embedding).")
    ] = None,
    temperature: Annotated[float, typer.Option(help="Sampling temperature of the beam phase.")] = 0.9,
    max_tokens: Annotated[int, typer.Option(help="Max completion tokens per request.")] = 8192,
    *,
    llm: LLMOptions,
) -> None:
    """Beam-merge scenario generation plus the local near-duplicate filter."""
    from socialbench.construction.stages.generation import scenarios_stage

    beam_s = llm.settings(model, work, temperature=temperature, max_tokens=max_tokens)
    merge_s = llm.settings(merge_model or model, work, temperature=0.0, max_tokens=max_tokens)
    run_stage(
        work,
        lambda: scenarios_stage(
            work,
            beam_s,
            merge_s,
            beams=beams,
            k=k,
            only=only,
            similarity=similarity,
            threshold=threshold,
            scope=scope,
            embedding_model=embedding_model,
        ),
    )


# --------------------------------------------------------------------------- image prompts


@with_llm_options(timeout=120.0)
def image_prompts_cmd(
    model: Model,
    work: Work = Path("build"),
    inp: InPath = None,
    temperature: Annotated[float, typer.Option()] = 0.3,
    max_tokens: Annotated[int, typer.Option()] = 2048,
    *,
    llm: LLMOptions,
) -> None:
    """Scenario -> robot first-person visual prompt (layout, people, gaze, posture, cues)."""
    from socialbench.construction.stages.generation import image_prompts_stage

    s = llm.settings(model, work, temperature=temperature, max_tokens=max_tokens)
    run_stage(work, lambda: image_prompts_stage(work, inp, s))


# --------------------------------------------------------------------------- behaviors


@with_llm_options(timeout=180.0)
def behaviors_cmd(
    model: Model,
    work: Work = Path("build"),
    source: Annotated[
        str, typer.Option(help="Scenes from review, verification (aggregated human choice), images or real-images.")
    ] = "review",
    inp: InPath = None,
    proper: Annotated[int, typer.Option(help="Proper candidates per scene, at least.")] = 3,
    improper: Annotated[int, typer.Option(help="Improper candidates per scene, at least.")] = 3,
    include_rejected: Annotated[bool, typer.Option(help="Also use images the review rejected.")] = False,
    temperature: Annotated[float, typer.Option()] = 0.7,
    max_tokens: Annotated[int, typer.Option()] = 4096,
    *,
    llm: LLMOptions,
) -> None:
    """Candidate next actions per scene image (proper and improper, with suggested facets)."""
    from socialbench.construction.stages.behaviors import behaviors_stage

    s = llm.settings(model, work, temperature=temperature, max_tokens=max_tokens)
    run_stage(
        work,
        lambda: behaviors_stage(
            work, source, inp, s, proper=proper, improper=improper, include_rejected=include_rejected
        ),
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
