"""``socialbench build socialnav-survey``: write the Label Studio project of a dataset's
human study into one folder (:func:`export_survey`), whole or not at all.

Files: ``config.xml`` (the labeling config, :mod:`.config`), ``tasks.json`` (one task per
scenario, :mod:`.tasks`), ``project.json`` (the body of Label Studio's ``POST
/api/projects/``: title, config, instructions, and ``maximum_annotations`` = K with
``overlap_cohort_percentage`` 100, so every task is served until K people annotated it;
"Uniform sampling" hands each annotator the scenarios in random order, as the paper's
randomly sampled questionnaires), ``survey.json`` (what the import checks an export
against) and ``README.md`` (how to run it)."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path

from socialbench.construction.annotation_tasks import ImageRefs
from socialbench.construction.socialnav_survey.config import survey_config
from socialbench.construction.socialnav_survey.dataset import check_composites, read_survey_dataset
from socialbench.construction.socialnav_survey.order import PERSON_KEYS, SCENE_KEYS, TASK_KIND
from socialbench.construction.socialnav_survey.staging import discard, publish, staging_folder, write_staged
from socialbench.construction.socialnav_survey.tasks import instructions_text, survey_task
from socialbench.errors import DataError, UsageError
from socialbench.files.safe_read import read_json

__all__ = ["SurveyExport", "export_survey", "DEFAULT_ANNOTATORS", "MANIFEST", "read_manifest"]

#: Annotators per scenario: "at least five human participants for each scenario" (§3.4).
DEFAULT_ANNOTATORS = 5
MANIFEST = "survey.json"
FILES = ("config.xml", "tasks.json", "project.json", MANIFEST, "README.md")


@dataclass(frozen=True)
class SurveyExport:
    """What :func:`export_survey` wrote."""

    out: Path
    scenarios: int
    people: int
    questions: int
    annotators: int
    survey_id: str


def read_manifest(folder: Path) -> dict[str, object] | None:
    """The manifest of a survey folder, or None when ``folder`` holds none (or another file)."""
    path = folder / MANIFEST
    if not path.is_file() or path.is_symlink():
        return None
    try:
        doc = read_json(path)
    except (DataError, OSError):  # any unreadable manifest means "not a survey folder"
        return None
    return doc if isinstance(doc, dict) and doc.get("kind") == TASK_KIND else None


def _check_out(out: Path, overwrite: bool) -> None:
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UsageError(f"--out {out} is not a folder (fix: name a new folder)")
    if out.is_dir() and any(out.iterdir()):
        if read_manifest(out) is None:
            raise UsageError(f"--out {out} is not empty and holds no survey (fix: name a new or empty folder)")
        if not overwrite:
            raise UsageError(
                f"--out {out} already holds a survey (fix: pass --overwrite to replace it, or a new folder)"
            )


def _readme(ds_root: Path, refs: ImageRefs, annotators: int) -> str:
    if refs.mode == "local-files":
        images = (
            "Images are served by Label Studio from local files: start it with\n"
            "`LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED=true` and\n"
            f"`LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT={(refs.document_root or ds_root).resolve()}`,\n"
            "and add a Local Files storage on that folder to the project (Settings > Cloud Storage)."
        )
    elif refs.mode == "prefix":
        images = f"Images are fetched from {refs.prefix} (the dataset folder must be served there)."
    else:
        images = "Images are embedded in the tasks (data URIs)."
    return (
        "# SocialNav-SUB survey (Label Studio project)\n\n"
        f"Made by `socialbench build socialnav-survey` from {ds_root}.\n\n"
        "1. Create a project from `project.json` (`POST /api/projects/` with it as the body), or paste\n"
        "   `config.xml` into Settings > Labeling Interface and set Settings > Annotation >\n"
        f"   'Annotations per task' to {annotators} for 100% of tasks.\n"
        "2. Import `tasks.json` (Import, or `POST /api/projects/<id>/import`).\n"
        f"3. {images}\n"
        f"4. Let at least {annotators} annotators answer every task, then export the project as JSON\n"
        "   (Export > JSON, all tasks).\n"
        f"5. `socialbench build socialnav-answers --data {ds_root} EXPORT.json` writes\n"
        "   human_labels/<S>/common_answers.json and raw_answers.json and the agreement statistics.\n"
    )


def export_survey(
    data: Path,
    out: Path,
    *,
    annotators: int = DEFAULT_ANNOTATORS,
    image_refs: str = "local-files",
    prefix: str = "",
    document_root: Path | None = None,
    overwrite: bool = False,
) -> SurveyExport:
    """Write the survey of dataset ``data`` into ``out`` (see the module docstring).

    Raises :class:`UsageError` for fewer than 2 annotators (leave-one-out agreement needs
    two answers per question), a bad ``--image-refs`` or an ``out`` that is not new, empty
    or a survey (replaced only with ``overwrite``); :class:`DataError` for a dataset without
    a sample list or prompt bank, or with a composite missing."""
    if isinstance(annotators, bool) or not isinstance(annotators, int) or annotators < 2:
        raise UsageError(
            f"--annotators must be at least 2 (got {annotators!r}): PA and CWPA compare each answer with the others"
        )
    if image_refs not in ("local-files", "prefix", "data-uri"):
        raise UsageError(f"--image-refs must be local-files, prefix or data-uri (got {image_refs!r})")
    if image_refs == "prefix" and not prefix:
        raise UsageError("--image-refs prefix needs --prefix URL")
    out = Path(out).expanduser().absolute()
    _check_out(out, overwrite)
    ds = read_survey_dataset(data)
    if not ds.samples:
        raise UsageError(f"{ds.sample_info}: the sample list is empty (fix: list the scenarios to survey)")
    check_composites(ds)
    refs = ImageRefs(mode=image_refs, work=ds.root, document_root=document_root, prefix=prefix)
    instructions = instructions_text(ds.bank)
    tasks = [
        survey_task(
            sid,
            n,
            ds.bank,
            refs,
            survey=ds.survey_id,
            annotators=annotators,
            position=(i, len(ds.samples)),
            instructions=instructions,
        )
        for i, (sid, n) in enumerate(ds.samples, 1)
    ]
    config = survey_config(ds.bank)
    n_people = sum(n for _, n in ds.samples)
    project = {
        "title": f"SocialNav-SUB survey: {len(ds.samples)} scenarios",
        "description": f"Human answers for {ds.root.name} (socialbench build socialnav-survey, survey {ds.survey_id})",
        "label_config": config,
        "expert_instruction": "".join(f"<p>{html.escape(p)}</p>" for p in instructions.split("\n")),
        "show_instruction": True,
        "maximum_annotations": annotators,
        "overlap_cohort_percentage": 100,
        "sampling": "Uniform sampling",
    }
    manifest = {
        "kind": TASK_KIND,
        "survey_id": ds.survey_id,
        "data": str(ds.root),
        "annotators": annotators,
        "scenarios": [{"sample_id": sid, "n_people": n} for sid, n in ds.samples],
        "question_order": {"scenario": list(SCENE_KEYS), "per_person": list(PERSON_KEYS)},
        "image_refs": image_refs,
    }
    files = {
        "config.xml": config + "\n",
        "tasks.json": json.dumps(tasks, indent=1, ensure_ascii=False) + "\n",
        "project.json": json.dumps(project, indent=1, ensure_ascii=False) + "\n",
        MANIFEST: json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
        "README.md": _readme(ds.root, refs, annotators),
    }
    stage = staging_folder(out)
    try:
        for name in FILES:
            write_staged(stage, name, files[name].encode("utf-8"))
        publish(stage, out)
    except BaseException:
        discard(stage)
        raise
    questions = len(SCENE_KEYS) * len(ds.samples) + len(PERSON_KEYS) * n_people
    return SurveyExport(out, len(ds.samples), n_people, questions, annotators, ds.survey_id)
