"""``socialbench build ...``: the RobotEQ-Data construction pipeline, one command per stage.

``register(app)`` adds a ``build`` sub-app holding the stage commands of the ``commands_*``
modules (each parses its options, runs a ``*_stage`` function of
:mod:`socialbench.construction.stages` and prints its summary). Every stage works in one folder
(``--work``) with fixed file names and resumes when rerun. Exit codes: 0 done; 1 usage or data
error; 2 some records failed (in ``<output>.failures.jsonl``; rerun to retry them). The files
of each stage: docs/build.md."""

from __future__ import annotations

import typer

from socialbench.construction import (
    commands_annotation,
    commands_dataset,
    commands_generation,
    commands_images,
    commands_socialnav_survey,
)
from socialbench.construction.socialnav import commands as socialnav_commands

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
build_app.command("topics")(commands_generation.topics_cmd)
build_app.command("grounding-questions")(commands_generation.grounding_questions_cmd)
build_app.command("grounding-images")(commands_images.grounding_images_cmd)
build_app.command("real-images")(commands_dataset.real_images_cmd)
build_app.command("crawl")(commands_dataset.crawl_cmd)
build_app.command("export")(commands_dataset.export_cmd)
build_app.command("report")(commands_dataset.report_cmd)
# SocialNav-SUB: the human study of a dataset in the release layout (issue 40, step 5)
build_app.command("socialnav-survey")(commands_socialnav_survey.socialnav_survey_cmd)
build_app.command("socialnav-answers")(commands_socialnav_survey.socialnav_answers_cmd)
build_app.command("socialnav")(socialnav_commands.socialnav_cmd)


def register(app: typer.Typer) -> None:
    """Add the ``build`` command group to ``app``."""
    app.add_typer(build_app, name="build")
