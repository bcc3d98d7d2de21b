"""The candidate topic pool of spatial grounding (RobotEQ App. E, "Manual Questions Generation").

Annotators (Label Studio ``topics`` tasks) or, as a substitute, a VLM shown the image only
(:func:`topic_prompt`) propose topics per scene; :func:`pool_topics` merges them: topics equal
up to case and spacing are one, keeping every proposer, with the stable id
``<scene>-t<8 hex of its normalised text>`` (see docs/build.md, "9a")."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import TypedDict

from socialbench.construction.llm import JsonResult, JsonTask, OutputError, Validator, image_tasks
from socialbench.types import EncodedImage, GenerationConfig

__all__ = [
    "normalise_topic",
    "topic_id",
    "topic_prompt",
    "validate_topics",
    "topic_tasks",
    "topic_proposal_records",
    "pool_topics",
]


def normalise_topic(text: str) -> str:
    """``text`` case-folded with its whitespace collapsed (two proposals equal under it are
    one topic)."""
    return " ".join(text.casefold().split())


def topic_id(scene: str, text: str) -> str:
    """The stable id of topic ``text`` of ``scene``."""
    return f"{scene}-t{hashlib.sha256(normalise_topic(text).encode()).hexdigest()[:8]}"


def topic_prompt(n: int) -> str:
    """The model-proposal prompt (the annotators' instructions of App. E; image only)."""
    return "\n".join(
        [
            "You propose spatial grounding topics for a benchmark of socially intelligent robots.",
            "The image is what the robot currently sees through its own camera.",
            f"Propose at least {n} distinct topics. Each topic identifies a spatially relevant decision the robot "
            "could make from this image, such as where to move, which person to approach, or which object or "
            "region is socially appropriate to select.",
            "Base every topic on visual evidence in the image only; write each as one short sentence.",
            "",
            "Reply with only a JSON object of this form:",
            '{"topics": ["Where should the robot wait so it does not block the aisle?"]}',
        ]
    )


def validate_topics(n: int) -> Validator:
    """Validator: a ``topics`` list of at least ``n`` distinct non-empty strings."""

    def check(obj: dict[str, object]) -> list[str]:
        raw = obj.get("topics")
        if not isinstance(raw, list) or not raw:
            raise OutputError("missing_fields", "the reply lacks the topics list")
        topics: list[str] = []
        seen: set[str] = set()
        for i, t in enumerate(raw, start=1):
            if not isinstance(t, str) or not t.strip():
                raise OutputError("invalid_output", f"topic {i} is not a non-empty string")
            key = normalise_topic(t)
            if key not in seen:
                seen.add(key)
                topics.append(" ".join(t.split()))
        if len(topics) < n:
            raise OutputError("invalid_output", f"{len(topics)} distinct topics; at least {n} needed")
        return topics

    return check


def topic_tasks(
    scenes: Sequence[Mapping[str, object]],
    images: Mapping[str, EncodedImage],
    *,
    n: int,
    config: GenerationConfig,
    salts: Mapping[str, int] | None = None,
) -> list[JsonTask]:
    """One proposal request per scene whose image was read."""
    return image_tasks(scenes, images, lambda s: topic_prompt(n), validate_topics(n), config, salts)


def topic_proposal_records(result: JsonResult, model: str) -> list[dict[str, object]]:
    """The ``topics.model.jsonl`` record of one scene's proposals."""
    return [{"id": result.id, "topics": list(result.value), "proposer": f"model:{model}"}]


class _PooledTopic(TypedDict):
    topic: str  # as first proposed, whitespace collapsed
    proposed_by: list[str]


def pool_topics(
    scenes: Sequence[Mapping[str, object]], proposals: Iterable[tuple[str, str, Sequence[str]]]
) -> list[dict[str, object]]:
    """One ``topics.jsonl`` record per distinct topic of every scene in ``scenes``.

    ``proposals`` are ``(scene id, proposer, topics)``; proposals of scenes not in
    ``scenes`` are ignored (the caller reports them). Each record carries the scene's
    image, subset, category and subcategory, the topic text (as first proposed) and its
    proposers; records keep the order of ``scenes``, then of first proposal.
    """
    by_scene: dict[str, dict[str, _PooledTopic]] = {str(s["id"]): {} for s in scenes}
    for scene, proposer, topics in proposals:
        pool = by_scene.get(scene)
        if pool is None:
            continue
        for text in topics:
            key = normalise_topic(text)
            if not key:
                continue
            entry = pool.setdefault(key, {"topic": " ".join(text.split()), "proposed_by": []})
            if proposer not in entry["proposed_by"]:
                entry["proposed_by"].append(proposer)
    records = []
    for s in scenes:
        for entry in by_scene[str(s["id"])].values():
            records.append(
                {
                    "id": topic_id(str(s["id"]), entry["topic"]),
                    "scene": s["id"],
                    "image": s["image"],
                    "subset": s.get("subset"),
                    "category": s.get("category"),
                    "subcategory": s.get("subcategory"),
                    "topic": entry["topic"],
                    "proposed_by": entry["proposed_by"],
                }
            )
    return records
