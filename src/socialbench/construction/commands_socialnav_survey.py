"""``socialbench build socialnav-survey`` and ``socialbench build socialnav-answers``: the
human study of a SocialNav-SUB dataset as a Label Studio project, and the import of its
export into the release's human answer files (registered by
:mod:`socialbench.construction.commands`; the work: :mod:`.socialnav_survey`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from socialbench.construction.stage_command import out as console

DataDir = Annotated[
    Path,
    typer.Option("--data", "-d", help="SocialNav-SUB dataset folder in the release layout (e.g. `build socialnav`'s)."),
]


def _say(line: str) -> None:
    from socialbench.messages import terminal_safe

    console.print(terminal_safe(line), markup=False, highlight=False)


def socialnav_survey_cmd(
    data: DataDir,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the Label Studio project into.")],
    annotators: Annotated[
        int, typer.Option(help="Annotators per scenario (K): the project serves each task until K people answered it.")
    ] = 5,
    image_refs: Annotated[
        str, typer.Option(help="How tasks point at the composites: local-files, prefix or data-uri.")
    ] = "local-files",
    prefix: Annotated[str, typer.Option(help="URL prefix for --image-refs prefix (where --data is served).")] = "",
    document_root: Annotated[
        Path | None, typer.Option(help="LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT (default: --data).")
    ] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace a survey already in --out.")] = False,
) -> None:
    """Write the Label Studio project of the dataset's human study (paper App. 7.4): config.xml,
    tasks.json (one task per scenario: its 10 composites, the questions about the robot and
    the goal, then each person's, spatial -> spatiotemporal -> social), project.json
    (K annotations per task) and survey.json."""
    from socialbench.construction.socialnav_survey.export import export_survey

    done = export_survey(
        data,
        out,
        annotators=annotators,
        image_refs=image_refs,
        prefix=prefix,
        document_root=document_root,
        overwrite=overwrite,
    )
    _say(
        f"socialnav-survey: {done.scenarios} scenarios, {done.people} people, {done.questions} questions, "
        f"{done.annotators} annotators each -> {done.out} (survey {done.survey_id})"
    )
    _say(
        f"  next: create the project from {done.out / 'project.json'}, import {done.out / 'tasks.json'}; see its README.md"
    )


def socialnav_answers_cmd(
    exports: Annotated[list[Path], typer.Argument(help="Label Studio JSON export file(s) of the survey.")],
    data: DataDir,
    min_annotators: Annotated[
        int | None,
        typer.Option(help="Annotators each scenario needs (default: the K the survey was exported with)."),
    ] = None,
) -> None:
    """Import a completed survey's Label Studio export into the dataset's human answer files
    (human_labels/<S>/common_answers.json and raw_answers.json) with agreement statistics
    (human_labels/survey_answers.json); `eval` then scores against these answers."""
    from socialbench.construction.socialnav_survey.write import SUMMARY_FILE, import_answers

    done = import_answers(data, exports, min_annotators=min_annotators)
    overall = done.agreement["All"]

    def num(x: object) -> str:
        return "n/a" if x is None else f"{x:.3f}"

    _say(
        f"socialnav-answers: {done.scenarios} scenarios, {done.annotations} answer sets from {done.annotators} "
        f"annotators ({done.cancelled} skipped, {done.superseded} superseded) -> {done.labels}"
    )
    _say(
        f"  agreement over {overall['items']} questions: majority share {num(overall['majority_share'])}, "
        f"Krippendorff's alpha {num(overall['krippendorff_alpha'])}, pairwise {num(overall['percent_agreement'])} "
        f"(per question: {done.labels / SUMMARY_FILE})"
    )
    if done.previous is not None:
        _say(f"  note: the labels that were there before are kept in {done.previous}")
