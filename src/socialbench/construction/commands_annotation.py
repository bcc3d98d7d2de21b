"""``socialbench build`` commands of the human-annotation stages: annotate export/import,
aggregate and overlays (registered by :mod:`socialbench.construction.commands`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from socialbench.construction.stage_command import run_stage
from socialbench.construction.stage_options import InPath, Work

# --------------------------------------------------------------------------- annotation


def annotate_export_cmd(
    kind: Annotated[
        str,
        typer.Option(
            help="verification, judgment, grounding, topics or judgment-no-image (Figure 6(a): final behaviors "
            "without their image)."
        ),
    ],
    work: Work = Path("build"),
    inp: InPath = None,
    image_refs: Annotated[
        str, typer.Option(help="How tasks point at images: local-files, prefix or data-uri.")
    ] = "local-files",
    prefix: Annotated[str, typer.Option(help="URL prefix for --image-refs prefix.")] = "",
    document_root: Annotated[
        Path | None, typer.Option(help="LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT (default: --work).")
    ] = None,
    prefill_facets: Annotated[bool, typer.Option(help="Pre-fill suggested facets as a prediction (judgment).")] = True,
    sample: Annotated[
        int | None,
        typer.Option(help="judgment-no-image: a random sample of this many behaviors (the paper's is 200)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of --sample.")] = 0,
) -> None:
    """Write <work>/annotation/<kind>/tasks.json and config.xml for Label Studio."""
    from socialbench.construction.stages.annotation import annotate_export_stage

    run_stage(
        work,
        lambda: annotate_export_stage(
            work,
            kind,
            inp,
            image_refs=image_refs,
            prefix=prefix,
            document_root=document_root,
            prefill_facets=prefill_facets,
            sample=sample,
            seed=seed,
        ),
    )


def annotate_import_cmd(
    exports: Annotated[list[Path], typer.Argument(help="Label Studio JSON export file(s).")],
    work: Work = Path("build"),
    replace: Annotated[bool, typer.Option(help="Replace earlier imported rows instead of merging with them.")] = False,
) -> None:
    """Read Label Studio JSON exports into <work>/annotation/<kind>/annotations.jsonl."""
    from socialbench.construction.stages.annotation import annotate_import_stage

    run_stage(work, lambda: annotate_import_stage(work, exports, replace=replace))


# --------------------------------------------------------------------------- aggregate


def aggregate_cmd(
    work: Work = Path("build"),
    min_annotators: Annotated[int, typer.Option(help="Annotators needed per behavior / question / edited image.")] = 3,
    resolutions: Annotated[Path | None, typer.Option(help="Expert decisions for escalated items (JSONL).")] = None,
    gold: Annotated[
        Path | None, typer.Option(help="Expert gold labels for annotator accuracy (JSONL: item_id, k, label).")
    ] = None,
    text_only: Annotated[
        list[Path] | None,
        typer.Option(
            "--text-only", help="Run folder or samples.jsonl of a no-image eval (repeatable): image-necessity filter."
        ),
    ] = None,
    min_correct: Annotated[
        float, typer.Option(help="Drop a behavior when at least this share of the text-only runs judged it correctly.")
    ] = 1.0,
) -> None:
    """Majority vote, escalations, invalid removal, agreement and the image-necessity filter."""
    from socialbench.construction.stages.annotation import aggregate_stage

    run_stage(
        work,
        lambda: aggregate_stage(
            work,
            min_annotators=min_annotators,
            resolutions=resolutions,
            gold=gold,
            text_only=text_only,
            min_correct=min_correct,
        ),
    )


# --------------------------------------------------------------------------- overlays


def overlays_cmd(
    specs: Annotated[Path, typer.Option("--specs", help="Region specs JSONL (see socialbench.construction.overlays).")],
    work: Work = Path("build"),
) -> None:
    """Draw A-D region overlays from specs into <work>/overlays and write grounding_items.jsonl
    (each item inherits subset, category and subcategory from its source scene)."""
    from socialbench.construction.stages.assembly import overlays_stage

    run_stage(work, lambda: overlays_stage(work, specs))
