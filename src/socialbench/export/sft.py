"""Supervised fine-tuning data from a RobotEQ dataset (paper §6, Figure 7: train on the
synthetic subset, evaluate on the real one).

Each example pairs the prompt ``socialbench eval --strategy standard`` sends, with the user
turn laid out as ``eval`` lays it out (:func:`socialbench.prompting.turns.user_turn`), and
the scene image with the ground-truth reply as JSON. The formats (``messages``,
``sharegpt``, ``llava``), the image paths under ``images/``, ``split.json``, the dataset card
and what ``--overwrite`` removes (:data:`GENERATED`) are described in docs/training.md,
"1. Write the SFT files"; which choices are the paper's and which socialbench's, in its
"What is the paper's and what is socialbench's".
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from socialbench.benchmarks.roboteq.hub import resolve_data
from socialbench.benchmarks.roboteq.loader import load_roboteq
from socialbench.benchmarks.roboteq.prompts import grounding_prompt, scene_prompt
from socialbench.benchmarks.roboteq.schema import TASK_BJ, TASK_SG
from socialbench.errors import UsageError
from socialbench.files.atomic_write import ensure_folder, refuse_links_in, write_bytes_atomic
from socialbench.files.clear_folder import remove_generated
from socialbench.files.safe_read import read_regular_bytes
from socialbench.prompting.turns import ChatMessage, user_turn
from socialbench.types import Item

_OUT = "--out folder"

__all__ = [
    "FORMATS",
    "GENERATED",
    "TASKS",
    "SUBSETS",
    "SftExample",
    "examples_from_items",
    "export_image_path",
    "write_sft",
    "SftResult",
]

FORMATS = ("messages", "sharegpt", "llava")
TASKS = {"bj": (TASK_BJ,), "sg": (TASK_SG,), "both": (TASK_BJ, TASK_SG)}
SUBSETS = ("synthetic", "real", "all", "none")
#: Every name an export writes in its output folder, whatever the format: what
#: ``--overwrite`` removes before writing (anything else in the folder is left alone).
GENERATED = (
    "train.jsonl",
    "eval.jsonl",
    "train.json",
    "eval.json",
    "dataset_info.json",
    "split.json",
    "README.md",
    "images",
)


@dataclass(frozen=True)
class SftExample:
    """One training example: the eval prompt, the gold reply and the scene image."""

    id: str
    task: str
    subset: str
    prompt: str
    answer: str
    image: Path  # absolute path of the source image
    image_rel: str  # path relative to the dataset root (kept in the export)


def _judgment_example(item: Item) -> SftExample:
    beh = item.metadata["behaviors"]
    listing = [(int(beh[q.key]["k"]), q.text) for q in item.questions]
    answer = {str(beh[q.key]["k"]): beh[q.key]["label"] for q in item.questions}
    return SftExample(
        item.item_id,
        TASK_BJ,
        str(item.metadata.get("subset") or "unknown"),
        scene_prompt(item.metadata["role"], listing, "standard"),
        json.dumps({"answer": answer}),
        Path(item.metadata["image"]),
        str(item.metadata["image_rel"]),
    )


def _grounding_example(item: Item) -> SftExample:
    meta = item.metadata
    return SftExample(
        item.item_id,
        TASK_SG,
        str(meta.get("subset") or "unknown"),
        grounding_prompt(meta["question"], meta.get("options") or {}, "standard"),
        json.dumps({"answer": list(meta["answer"])}),
        Path(meta["image"]),
        str(meta["image_rel"]),
    )


def examples_from_items(items: Iterable[Item]) -> list[SftExample]:
    """One example per judgment scene / grounding question, in dataset order."""
    return [_judgment_example(it) if it.metadata.get("task") == TASK_BJ else _grounding_example(it) for it in items]


def _select(examples: Sequence[SftExample], subset: str) -> list[SftExample]:
    if subset == "none":
        return []
    return [e for e in examples if subset == "all" or e.subset == subset]


#: The placeholder of an image part in the plain-text formats (LLaMA-Factory, LLaVA).
IMAGE_TAG = "<image>"


def flat_user_text(turn: ChatMessage, sep: str) -> str:
    """The parts of a :func:`~socialbench.prompting.turns.user_turn` joined in their order
    with ``sep``, an image part written as :data:`IMAGE_TAG`."""
    return sep.join(IMAGE_TAG if part["type"] == "image" else str(part["text"]) for part in turn["content"])


def export_image_path(image_rel: str) -> str:
    """Where an image with the dataset-relative path ``image_rel`` goes in the export,
    relative to the output folder: its dataset-relative path under ``images/``, a path that
    already starts with ``images/`` kept as it is rather than nested in a second one
    (``images/synthetic/x.png`` stays, ``behavior_judgment/images/x.png`` becomes
    ``images/behavior_judgment/images/x.png``). :class:`UsageError` for a path that is
    absolute or climbs out with ``..``."""
    parts = Path(image_rel).parts
    if Path(image_rel).is_absolute() or ".." in parts:
        raise UsageError(f"image path {image_rel!r} leaves the dataset folder; fix the dataset's image paths")
    inner = parts[1:] if parts[:1] == ("images",) else parts
    return "/".join(("images", *inner))


def _image_paths(examples: Iterable[SftExample]) -> dict[str, str]:
    """Each source image's export path (:func:`export_image_path`); :class:`UsageError` when
    two different dataset images would be written to one path."""
    paths: dict[str, str] = {}
    source: dict[str, str] = {}
    for e in examples:
        if e.image_rel in paths:
            continue
        path = export_image_path(e.image_rel)
        other = source.setdefault(path, e.image_rel)
        if other != e.image_rel:
            raise UsageError(
                f"dataset images {other} and {e.image_rel} would both be exported as {path}; "
                "rename one of them in the dataset (or keep every image under images/)"
            )
        paths[e.image_rel] = path
    return paths


def _row(e: SftExample, fmt: str, path: str, images_first: bool = False) -> dict[str, object]:
    turn = user_turn(e.prompt, 1, images_first)
    head = {"id": e.id, "task": e.task, "subset": e.subset}
    if fmt == "messages":
        reply = {"role": "assistant", "content": [{"type": "text", "text": e.answer}]}
        return {**head, "images": [path], "messages": [turn, reply]}
    if fmt == "sharegpt":
        user = {"role": "user", "content": flat_user_text(turn, "")}
        return {**head, "images": [path], "messages": [user, {"role": "assistant", "content": e.answer}]}
    human = {"from": "human", "value": flat_user_text(turn, "\n")}
    return {**head, "image": path, "conversations": [human, {"from": "gpt", "value": e.answer}]}


@dataclass
class SftResult:
    """What :func:`write_sft` wrote: file per split and example counts."""

    files: dict[str, Path] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    images: int = 0
    warnings: list[str] = field(default_factory=list)


def _card(
    name: str,
    data: str,
    fmt: str,
    result: SftResult,
    subsets: dict[str, str],
    tasks: Sequence[str],
    images_first: bool = False,
) -> str:
    lines = [
        "---",
        "task_categories:",
        "- visual-question-answering",
        "configs:",
        "- config_name: default",
        "  data_files:",
        *[f"  - split: {split}\n    path: {path.name}" for split, path in result.files.items()],
        "---",
        "",
        f"# {name}",
        "",
        f"Supervised fine-tuning data written by `socialbench export sft` from `{data}` "
        f"(tasks: {', '.join(tasks)}; format: `{fmt}`).",
        "Prompts are exactly those `socialbench eval --strategy standard` sends, laid out as it sends them",
        f"({'image first, then the text' if images_first else 'text first, then the image'}); replies are the",
        "ground-truth labels as JSON. Paper protocol (RobotEQ §6, Figure 7): train on synthetic scenes, evaluate on",
        "real ones.",
        "",
        "| split | subset | examples |",
        "|---|---|---|",
        *[f"| {split} | {subsets[split]} | {result.counts[split]} |" for split in result.files],
        "",
        f"Images: {result.images} files under `images/`. Ids per split: `split.json`.",
        "",
    ]
    return "\n".join(lines)


def write_sft(
    data: str | Path,
    out: Path,
    *,
    fmt: str = "messages",
    task: str = "both",
    train_subset: str = "synthetic",
    eval_subset: str = "real",
    overwrite: bool = False,
    images_first: bool = False,
) -> SftResult:
    """Write SFT files for ``data`` (a RobotEQ folder or hub id) into ``out`` (see the
    module docstring); ``images_first`` puts the image before the text in the user turn,
    as ``eval`` does with the model option ``images_first=true``. Raises :class:`UsageError`
    for a bad option, an existing non-empty ``out`` without ``overwrite``, an empty train
    split or two images exported to one path; an empty eval split is left out with a
    warning in :attr:`SftResult.warnings`. With ``overwrite`` the files of an earlier export
    (:data:`GENERATED`) are removed first, links never followed."""
    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    if task not in TASKS:
        raise UsageError(f"--task must be one of {', '.join(TASKS)} (got {task!r})")
    for opt, value in (("--train-subset", train_subset), ("--eval-subset", eval_subset)):
        if value not in SUBSETS:
            raise UsageError(f"{opt} must be one of {', '.join(SUBSETS)} (got {value!r})")
    if train_subset == "none":
        raise UsageError("--train-subset none leaves nothing to train on; use synthetic, real or all")
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise UsageError(f"{out} is not empty; pass --overwrite to replace its SFT files, or choose another --out")
    refuse_links_in(out, _OUT)  # --overwrite would write through a link planted in --out
    root = resolve_data(str(data))
    examples: list[SftExample] = []
    for t in TASKS[task]:
        examples += examples_from_items(load_roboteq(root, t, require_images=True).items)
    splits = {"train": train_subset, "eval": eval_subset}
    chosen = {split: _select(examples, subset) for split, subset in splits.items()}
    found = ", ".join(f"{k}: {v}" for k, v in sorted(Counter(e.subset for e in examples).items())) or "none"
    if not chosen["train"]:
        raise UsageError(
            f"no {train_subset} examples to train on in {data} (subsets found: {found}); choose another --train-subset"
        )
    result = SftResult()
    if not chosen["eval"]:
        if eval_subset != "none":
            result.warnings.append(
                f"no {eval_subset} examples for the eval split in {data} (subsets found: {found}); "
                "writing the train split only: choose another --eval-subset, or pass --eval-subset none to export train only"
            )
        del chosen["eval"]
    image_paths = _image_paths(e for rows in chosen.values() for e in rows)
    if overwrite:
        remove_generated(out, GENERATED)  # refuse_links_in above: no link left in --out to follow
    ensure_folder(out, out, _OUT)

    def write(name: str, text: str) -> Path:
        path = out / name
        write_bytes_atomic(path, text.encode("utf-8"), root=out, option=_OUT)
        return path

    copied: set[str] = set()
    for split, rows in chosen.items():
        for e in rows:
            image = image_paths[e.image_rel]
            if image not in copied:
                write_bytes_atomic(out / image, read_regular_bytes(e.image), root=out, option=_OUT)
                copied.add(image)
        dicts = [_row(e, fmt, image_paths[e.image_rel], images_first) for e in rows]
        if fmt == "llava":
            path = write(f"{split}.json", json.dumps(dicts, ensure_ascii=False, indent=1) + "\n")
        else:
            path = write(f"{split}.jsonl", "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in dicts))
        result.files[split] = path
        result.counts[split] = len(rows)
    result.images = len(copied)
    write(
        "split.json",
        json.dumps(
            {
                split: {"subset": splits[split], "ids": [f"{e.task}:{e.id}" for e in chosen[split]]}
                for split in result.files
            },
            indent=1,
        )
        + "\n",
    )
    if fmt == "sharegpt":
        info = {
            f"socialbench_{split}": {
                "file_name": path.name,
                "formatting": "sharegpt",
                "columns": {"messages": "messages", "images": "images"},
                "tags": {
                    "role_tag": "role",
                    "content_tag": "content",
                    "user_tag": "user",
                    "assistant_tag": "assistant",
                },
            }
            for split, path in result.files.items()
        }
        write("dataset_info.json", json.dumps(info, indent=1) + "\n")
    write("README.md", _card("RobotEQ SFT data", str(data), fmt, result, splits, TASKS[task], images_first))
    return result
