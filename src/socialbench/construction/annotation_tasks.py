"""Label Studio task lists (``[{"data": {...}}]``) for the annotation kinds of
:mod:`socialbench.construction.annotation_config`, from the records of earlier stages. Every task
carries ``kind``, ``item_id`` (and ``k`` for judgment) so an export maps back to our records.
Images are referenced by :class:`ImageRefs` (docs/build.md, "Label Studio round trip")."""

from __future__ import annotations

import base64
import mimetypes
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from socialbench.benchmarks.roboteq.schema import LETTERS
from socialbench.construction.annotation_config import NO_IMAGE_KIND
from socialbench.construction.record_fields import mapping, mappings, text, texts
from socialbench.errors import DataError

__all__ = [
    "ImageRefs",
    "verification_tasks",
    "judgment_tasks",
    "grounding_tasks",
    "topic_proposal_tasks",
    "judgment_no_image_tasks",
]


@dataclass(frozen=True)
class ImageRefs:
    """How task data refers to image files (see the module docstring)."""

    mode: str = "local-files"  # local-files | prefix | data-uri
    work: Path = Path(".")
    document_root: Path | None = None  # local-files: default = work
    prefix: str = ""

    def url(self, rel: str) -> str:
        path = (self.work / rel).resolve()
        if self.mode == "data-uri":
            mime = mimetypes.guess_type(path.name)[0] or "image/png"
            return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"
        if self.mode == "prefix":
            return self.prefix + quote(rel)
        if self.mode == "local-files":
            root = (self.document_root or self.work).resolve()
            try:
                inner = path.relative_to(root).as_posix()
            except ValueError:
                raise DataError.single(
                    path,
                    "image",
                    f"image is outside the document root {root}",
                    "pass --document-root above the work folder",
                ) from None
            return f"/data/local-files/?d={quote(inner)}"
        raise ValueError(f"unknown image reference mode {self.mode!r}; use local-files, prefix or data-uri")


def verification_tasks(review_records: Iterable[Mapping[str, object]], refs: ImageRefs) -> list[dict[str, object]]:
    """One task per reviewed image whose final image differs from the original."""
    tasks: list[dict[str, object]] = []
    for r in review_records:
        if r["final"] == r["original"]:
            continue
        s = mapping(r, "scenario")
        tasks.append(
            {
                "data": {
                    "kind": "verification",
                    "item_id": r["id"],
                    "title": s.get("title") or r["id"],
                    "scenario": f"{s.get('description', '')}\nDecision point: {s.get('decision_point', '')}".strip(),
                    "original": refs.url(text(r, "original")),
                    "edited": refs.url(text(r, "final")),
                    "original_path": r["original"],
                    "edited_path": r["final"],
                }
            }
        )
    return tasks


def judgment_tasks(
    behavior_records: Iterable[Mapping[str, object]], refs: ImageRefs, *, prefill_facets: bool = True
) -> list[dict[str, object]]:
    """One task per (scene, behavior); suggested facets become a prediction when asked."""
    tasks: list[dict[str, object]] = []
    for r in behavior_records:
        url = refs.url(text(r, "image"))
        for b in mappings(r, "behaviors"):
            task: dict[str, object] = {
                "data": {
                    "kind": "judgment",
                    "item_id": r["id"],
                    "k": b["k"],
                    "image": url,
                    "image_path": r["image"],
                    "question": r["question"],
                    "behavior": b["text"],
                }
            }
            if prefill_facets and b.get("facets"):
                task["predictions"] = [
                    {
                        "model_version": "behaviors-stage",
                        "result": [
                            {
                                "from_name": "facets",
                                "to_name": "behavior",
                                "type": "choices",
                                "value": {"choices": texts(b, "facets")},
                            }
                        ],
                    }
                ]
            tasks.append(task)
    return tasks


def grounding_tasks(grounding_records: Iterable[Mapping[str, object]], refs: ImageRefs) -> list[dict[str, object]]:
    """One task per grounding question (the overlay image); no answer is included."""
    tasks: list[dict[str, object]] = []
    for r in grounding_records:
        options = mapping(r, "options")
        options_text = "\n".join(f"{k}: {options[k]}" for k in LETTERS if options.get(k))
        tasks.append(
            {
                "data": {
                    "kind": "grounding",
                    "item_id": r["id"],
                    "image": refs.url(text(r, "image")),
                    "image_path": r["image"],
                    "question": r["question"],
                    "options_text": options_text or "Regions A-D are drawn on the image.",
                }
            }
        )
    return tasks


def topic_proposal_tasks(scene_records: Iterable[Mapping[str, object]], refs: ImageRefs) -> list[dict[str, object]]:
    """One topic-proposal task per scene image; the scenario text is left out on purpose
    (the proposals must rest on visual evidence)."""
    return [
        {"data": {"kind": "topics", "item_id": r["id"], "image": refs.url(text(r, "image")), "image_path": r["image"]}}
        for r in scene_records
    ]


def judgment_no_image_tasks(
    judgment_records: Sequence[Mapping[str, object]], *, sample: int | None = None, seed: int = 0
) -> list[dict[str, object]]:
    """One without-image task per behavior of the final judgment scenes (role and behavior
    text, no image field at all), or per behavior of a uniform random sample of ``sample``
    of them (``random.Random(seed)``; all when there are fewer), in dataset order.
    Raises ValueError for ``sample`` < 1."""
    pairs = [(r, b) for r in judgment_records for b in mappings(r, "behaviors")]
    if sample is not None:
        if sample < 1:
            raise ValueError(f"sample must be at least 1 (got {sample})")
        if sample < len(pairs):
            chosen = sorted(random.Random(seed).sample(range(len(pairs)), sample))
            pairs = [pairs[i] for i in chosen]
    return [
        {
            "data": {
                "kind": NO_IMAGE_KIND,
                "item_id": r["id"],
                "k": b["k"],
                "question": r["question"],
                "behavior": b["text"],
            }
        }
        for r, b in pairs
    ]
