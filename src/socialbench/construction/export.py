"""Export the aggregated data as a RobotEQ dataset folder: ``roboteq.jsonl`` (canonical),
``images/<subset>/`` (file names from :func:`image_path`, never shared by two records),
``data/*.jsonl`` per task for ``datasets`` and a ``README.md`` card; the folder is checked with
the RobotEQ validator after writing (see docs/build.md, "12. export")."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from socialbench.benchmarks.roboteq.schema import (
    FACETS,
    LABELS,
    LETTERS,
    TASK_BJ,
    TASK_SG,
    Behavior,
    GroundingQuestion,
    JudgmentScene,
)
from socialbench.benchmarks.roboteq.validate import validate_roboteq
from socialbench.benchmarks.roboteq.write import canonical_row, write_canonical
from socialbench.construction.file_names import safe_name, short_hash, unique_name
from socialbench.construction.jsonl import write_jsonl
from socialbench.errors import DataError, Problem, UsageError
from socialbench.files.clear_folder import remove_generated

__all__ = ["ExportResult", "judgment_scene", "grounding_question", "image_path", "export_dataset", "dataset_card"]


@dataclass
class ExportResult:
    dest: Path
    scenes: int = 0
    behaviors: int = 0
    questions: int = 0
    images: int = 0


def _subset(value: object) -> str:
    return value if isinstance(value, str) and value in ("synthetic", "real") else "unknown"


def judgment_scene(rec: Mapping[str, Any], image: str) -> JudgmentScene:
    """A loader record from an aggregated judgment scene (``image``: path in the export)."""
    behaviors = []
    for b in rec["behaviors"]:
        votes = Counter(v for v in b.get("votes") or [] if v in LABELS)
        no_image = Counter(v for v in b.get("votes_no_image") or [] if v in LABELS)
        behaviors.append(
            Behavior(
                k=int(b["k"]),
                text=b["text"],
                label=b["label"],
                facets=tuple(f for f in b.get("facets") or [] if f in FACETS),
                votes=tuple((lab, votes[lab]) for lab in LABELS if votes[lab]) or None,
                votes_no_image=tuple((lab, no_image[lab]) for lab in LABELS if no_image[lab]) or None,
            )
        )
    subset = rec.get("subset")
    return JudgmentScene(
        scene_id=rec["id"],
        image=image,
        question=rec["question"],
        behaviors=tuple(behaviors),
        subset=subset if subset in ("synthetic", "real") else None,
        category=rec.get("category"),
        subcategory=rec.get("subcategory"),
    )


def grounding_question(rec: Mapping[str, Any], image: str) -> GroundingQuestion:
    """A loader record from an aggregated grounding question."""
    options = rec.get("options") or {}
    votes = [tuple(x for x in LETTERS if x in v) for v in rec.get("votes") or [] if v]
    subset = rec.get("subset")
    return GroundingQuestion(
        question_id=rec["id"],
        image=image,
        question=rec["question"],
        answer=tuple(x for x in LETTERS if x in rec["answer"]),
        options=tuple((k, str(options[k])) for k in LETTERS if options.get(k)),
        votes=tuple(votes) or None,
        subset=subset if subset in ("synthetic", "real") else None,
        category=rec.get("category"),
        subcategory=rec.get("subcategory"),
        facets=tuple(f for f in rec.get("facets") or [] if f in FACETS),
    )


def image_path(record_id: str, subset: str, ext: str, *, grounding: bool, taken: dict[str, str]) -> str:
    """The export path of a record's image, unique among ``taken`` (casefolded path ->
    record id; updated). Uses :func:`unique_name`; when that path is already taken by
    another record (e.g. judgment ``foo-sg`` and grounding ``foo``, or ``A1`` / ``a1`` on a
    case-insensitive file system) a hash of the id is appended. Raises :class:`DataError`
    if that clashes too."""
    tail = f"-sg{ext}" if grounding else ext
    candidates = [
        unique_name(record_id),
        f"{safe_name(record_id)}-{short_hash(('sg:' if grounding else 'bj:') + record_id)}",
    ]
    for stem in candidates:
        rel = f"images/{subset}/{stem}{tail}"
        owner = taken.get(rel.casefold())
        if owner is None or owner == record_id:
            taken[rel.casefold()] = record_id
            return rel
    raise DataError.single(
        "export",
        "id",
        f"the image file of {record_id!r} clashes with that of {owner!r}",
        "rename one of the two records",
    )


def _copy(src: Path, dest_root: Path, rel: Callable[[], str], copied: dict[Path, str]) -> str:
    if src in copied:
        return copied[src]
    if not src.is_file():
        raise DataError.single(src, "image", "image file is missing", "rerun the stage that made it or fix the path")
    path = rel()
    target = dest_root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, target)
    copied[src] = path
    return path


class DatasetStats(TypedDict):
    """Counts of an exported dataset (card and report): scenes, behaviors and questions, then
    per subset, label, category, facet, answer size and answer letter."""

    scenes: int
    behaviors: int
    questions: int
    subsets: dict[str, int]
    labels: dict[str, int]
    categories: dict[str, int]
    behaviors_by_category: dict[str, int]
    facets: dict[str, int]
    answer_sizes: dict[int, int]
    answer_letters: dict[str, int]
    with_votes: int


def dataset_stats(scenes: Sequence[JudgmentScene], questions: Sequence[GroundingQuestion]) -> DatasetStats:
    """Counts for the dataset card and report: categories, facets, labels, answers."""
    behaviors = [b for s in scenes for b in s.behaviors]
    return {
        "scenes": len(scenes),
        "behaviors": len(behaviors),
        "questions": len(questions),
        "subsets": dict(Counter(_subset(s.subset) for s in scenes)),
        "labels": {lab: sum(b.label == lab for b in behaviors) for lab in LABELS},
        "categories": dict(Counter(s.category or "unknown" for s in scenes).most_common()),
        "behaviors_by_category": dict(
            Counter(s.category or "unknown" for s in scenes for _ in s.behaviors).most_common()
        ),
        "facets": {f: sum(f in b.facets for b in behaviors) for f in FACETS},
        "answer_sizes": dict(sorted(Counter(len(q.answer) for q in questions).items())),
        "answer_letters": {x: sum(x in q.answer for q in questions) for x in LETTERS},
        "with_votes": sum(b.votes is not None for b in behaviors),
    }


def dataset_card(
    name: str,
    stats: DatasetStats,
    *,
    license: str,
    agreement: Mapping[str, object] | None,
    provenance: Mapping[str, object] | None,
) -> str:
    """README.md text: a Hugging Face YAML header (configs per task) and the summary."""
    lines = [
        "---",
        f"license: {license}",
        f"pretty_name: {name}",
        "task_categories:",
        "- visual-question-answering",
        "configs:",
        "- config_name: behavior_judgment",
        "  data_files: data/behavior_judgment.jsonl",
        "- config_name: spatial_grounding",
        "  data_files: data/spatial_grounding.jsonl",
        "---",
        "",
        f"# {name}",
        "",
        "A RobotEQ-style dataset of robot-centric scenes for Social Proactive Intelligence, built with "
        "`socialbench build` (taxonomy -> beam-merge scenarios -> image prompts -> images -> review loop -> "
        "candidate behaviors -> Label Studio annotation -> majority vote).",
        "",
        "Load it with `socialbench eval --benchmark roboteq-bj --data .` (behavior judgment) or "
        "`--benchmark roboteq-sg` (spatial grounding); the canonical rows are in `roboteq.jsonl` "
        "(format: socialbench docs/roboteq-format.md).",
        "",
        "## Contents",
        "",
        f"- scenes (behavior judgment): {stats['scenes']}, behaviors: {stats['behaviors']} "
        f"(proper {stats['labels'].get('proper', 0)}, improper {stats['labels'].get('improper', 0)})",
        f"- spatial-grounding questions: {stats['questions']}",
        f"- subsets: {', '.join(f'{k} {v}' for k, v in stats['subsets'].items()) or 'none'}",
        "",
        "| category | scenes | behaviors |",
        "| --- | ---: | ---: |",
    ]
    for cat, n in stats["categories"].items():
        lines.append(f"| {cat} | {n} | {stats['behaviors_by_category'].get(cat, 0)} |")
    lines += ["", "| facet | behaviors |", "| --- | ---: |"]
    lines += [f"| {f} | {n} |" for f, n in stats["facets"].items()]
    if agreement:
        lines += [
            "",
            "## Annotation agreement",
            "",
            "| task | units | Fleiss' kappa | Krippendorff's alpha | pairwise agreement |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for task, a in agreement.items():
            if isinstance(a, dict) and "units" in a:
                lines.append(
                    f"| {task} | {a['units']} | {a.get('fleiss_kappa')} | {a.get('krippendorff_alpha')} | {a.get('percent_agreement')} |"
                )
    if provenance:
        lines += ["", "## Provenance", "", "```json", json.dumps(provenance, indent=2, ensure_ascii=False), "```"]
    return "\n".join(lines) + "\n"


def export_dataset(
    judgment: Sequence[Mapping[str, Any]],
    grounding: Sequence[Mapping[str, Any]],
    work: Path,
    dest: Path,
    *,
    name: str = "RobotEQ-style SPI dataset",
    license: str = "other",
    agreement: Mapping[str, object] | None = None,
    provenance: Mapping[str, object] | None = None,
    overwrite: bool = False,
) -> ExportResult:
    """Write the dataset folder (see the module docstring) and validate it."""
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        if not overwrite:
            raise UsageError(f"{dest} is not empty; pass --overwrite to replace its contents or choose another folder")
        remove_generated(dest, ("roboteq.jsonl", "images", "data", "README.md"))
    dest.mkdir(parents=True, exist_ok=True)
    copied: dict[Path, str] = {}
    scenes: list[JudgmentScene] = []
    questions: list[GroundingQuestion] = []
    ids = Counter([r["id"] for r in judgment] + [r["id"] for r in grounding])
    dups = [i for i, n in ids.items() if n > 1]
    if dups:
        raise DataError(
            [
                Problem(
                    "export", "id", f"id {i!r} is used by {ids[i]} records", "give every scene and question its own id"
                )
                for i in dups
            ]
        )
    taken: dict[str, str] = {}

    def target(rec: Mapping[str, Any], src: Path, grounding: bool) -> Callable[[], str]:
        return lambda: image_path(
            rec["id"], _subset(rec.get("subset")), src.suffix.lower() or ".png", grounding=grounding, taken=taken
        )

    for rec in judgment:
        src = (work / rec["image"]).resolve()
        scenes.append(judgment_scene(rec, _copy(src, dest, target(rec, src, False), copied)))
    for rec in grounding:
        src = (work / rec["image"]).resolve()
        questions.append(grounding_question(rec, _copy(src, dest, target(rec, src, True), copied)))
    write_canonical(dest / "roboteq.jsonl", [*scenes, *questions])
    write_jsonl(dest / "data" / "behavior_judgment.jsonl", [canonical_row(s) for s in scenes])
    write_jsonl(dest / "data" / "spatial_grounding.jsonl", [canonical_row(q) for q in questions])
    stats = dataset_stats(scenes, questions)
    (dest / "README.md").write_text(
        dataset_card(name, stats, license=license, agreement=agreement, provenance=provenance), encoding="utf-8"
    )
    problems: list[Problem] = []
    if scenes:
        problems += validate_roboteq(dest, TASK_BJ)
    if questions:
        problems += validate_roboteq(dest, TASK_SG)
    if problems:
        raise DataError(problems)
    return ExportResult(dest, len(scenes), stats["behaviors"], len(questions), len(copied))
