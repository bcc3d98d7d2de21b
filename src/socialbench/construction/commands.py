"""``socialbench build ...``: the RobotEQ-Data construction pipeline, one command per stage.

This module assembles the command line: ``register(app)`` adds a ``build`` sub-app holding
the stage commands of the ``commands_*`` modules (each parses its options, runs the stage,
the ``*_stage`` functions of :mod:`socialbench.construction.stages`, and prints its summary). Every stage works in one folder (``--work``,
default ``build``) with fixed file names, reads the previous stage's JSONL and appends to its
own; rerunning a command resumes it (finished ids are skipped, failures retried). Exit
codes: 0 done; 1 usage or data error; 2 the stage finished but some records failed (they are
in ``<output>.failures.jsonl``; run the same command again to retry them).

Files in the work folder::

    taxonomy.yaml, taxonomy.jsonl               taxonomy
    scenarios/beams.jsonl, scenarios/merged.jsonl,
    scenarios.jsonl, scenarios.removed.jsonl    scenarios
    image_prompts.jsonl                         image-prompts
    images.jsonl, images/<id>/round<r>.png|json images
    review_steps.jsonl, review.jsonl            review
    behaviors.jsonl                             behaviors
    annotation/<kind>/tasks.json, config.xml    annotate export
    annotation/<kind>/annotations.jsonl         annotate import
    aggregated/*.jsonl, aggregated/agreement.json  aggregate
    overlays/*.png, grounding_items.jsonl       overlays
    topics.jsonl (topics.model.jsonl)           topics
    grounding_questions.jsonl                   grounding-questions
    grounding_items.jsonl, overlays/, grounding_images/  grounding-images
    crawl_queries.jsonl, crawl.jsonl, crawl/*   crawl
    real/*, real_images.jsonl                   real-images
    summaries/<stage>.json                      every stage (report)
"""

from __future__ import annotations

import typer

from socialbench.construction import (
    commands_annotation,
    commands_dataset,
    commands_generation,
    commands_grounding,
    commands_images,
)

__all__ = ["register", "build_app"]

build_app = typer.Typer(no_args_is_help=True, help="Build a RobotEQ-style dataset: one resumable command per stage.")
annotate_app = typer.Typer(no_args_is_help=True, help="Label Studio tasks and configs; import of exports.")
build_app.add_typer(annotate_app, name="annotate")

# in pipeline order, which is the order `build --help` lists them in
build_app.command("taxonomy")(commands_generation.taxonomy_cmd)
build_app.command("scenarios")(commands_generation.scenarios_cmd)
build_app.command("image-prompts")(commands_generation.image_prompts_cmd)
build_app.command("images")(commands_images.images_cmd)
build_app.command("review")(commands_images.review_cmd)
build_app.command("behaviors")(commands_generation.behaviors_cmd)
annotate_app.command("export")(commands_annotation.annotate_export_cmd)
annotate_app.command("import")(commands_annotation.annotate_import_cmd)
build_app.command("aggregate")(commands_annotation.aggregate_cmd)
build_app.command("overlays")(commands_annotation.overlays_cmd)
build_app.command("topics")(commands_grounding.topics_cmd)
build_app.command("grounding-questions")(commands_grounding.grounding_questions_cmd)
build_app.command("grounding-images")(commands_grounding.grounding_images_cmd)
build_app.command("real-images")(commands_dataset.real_images_cmd)
build_app.command("crawl")(commands_dataset.crawl_cmd)
build_app.command("export")(commands_dataset.export_cmd)
build_app.command("report")(commands_dataset.report_cmd)


def register(app: typer.Typer) -> None:
    """Add the ``build`` command group to ``app``."""
    app.add_typer(build_app, name="build")
