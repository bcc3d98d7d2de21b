"""Built-in baselines that answer from the item itself: random, human, replay.

They answer as a model would (JSON text ``{"answer": ...}``) so their answers go through the
same parser, store and metrics as any VLM. None of them needs prompts or images.

``human:oracle``
    The human mode (first maximum in option order). Under Eq. 1 its PA is max p_h — the
    paper's Human Oracle.
``human:average``
    One human answer drawn per question from the human distribution (seeded). Its *expected*
    Eq. 1 PA is sum_x p_h(x)^2, which counts a human agreeing with themself; the
    leave-one-out Average-Human row in ``metrics.json`` is the paper's baseline.
``baseline:random``
    A uniformly random choice (one of the 7 subsets for the multiple-select question),
    seeded per (seed, item, question) so the answers do not depend on scheduling order.
``replay:PATH``
    Answers read from a ``samples.jsonl`` (or the run folder holding one), or from a folder
    in a benchmark's own format: a benchmark package registers a reader for it with
    :func:`register_replay_folder` (SocialNav-SUB's official experiment folders, see
    :mod:`socialbench.benchmarks.socialnav_sub.baselines`).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path

from socialbench.errors import DataError, UsageError
from socialbench.models.base import FatalModelError
from socialbench.models.registry import ModelOptions, register
from socialbench.records import read_samples
from socialbench.types import Answer, Generation, Item, Question, Request, SampleRecord


def _rng(seed: int, *parts: str) -> random.Random:
    digest = hashlib.sha256("\0".join([str(seed), *parts]).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def answer_text(answer: object) -> str:
    """``{"answer": ...}`` JSON of a chosen answer (a tuple as a list): what a model would reply."""
    value = list(answer) if isinstance(answer, tuple) else answer
    return json.dumps({"answer": value})


class ItemBaseline:
    """A baseline defined by a function (item, question) -> answer."""

    cacheable = False
    needs_prompt = False

    def __init__(self, spec: str, choose: Callable[[Item, Question], object]):
        self.spec = spec
        self._choose = choose

    def identity(self) -> str:
        return self.spec

    async def generate(self, request: Request) -> Generation:
        if request.item is None or request.question is None:
            raise FatalModelError("bad_request", f"{self.spec} needs the item and question in the request")
        return Generation(text=answer_text(self._choose(request.item, request.question)))

    async def aclose(self) -> None:
        return None


@register("baseline:random", summary="uniformly random valid answer, seeded per question", example="baseline:random")
def make_random(_: str, options: ModelOptions) -> ItemBaseline:
    def choose(item: Item, q: Question) -> Answer:
        return _rng(options.seed, item.item_id, q.key).choice(q.choices)

    return ItemBaseline("baseline:random", choose)


@register("human:oracle", summary="the human mode of each question (Human Oracle)", example="human:oracle")
def make_oracle(_: str, options: ModelOptions) -> ItemBaseline:
    def choose(item: Item, q: Question) -> Answer:
        return item.votes[q.key].mode(q.choices)

    return ItemBaseline("human:oracle", choose)


@register(
    "human:average", summary="one human answer drawn from the human distribution (seeded)", example="human:average"
)
def make_average(_: str, options: ModelOptions) -> ItemBaseline:
    def choose(item: Item, q: Question) -> Answer:
        votes = item.votes[q.key]
        return _rng(options.seed, item.item_id, q.key).choices(votes.answers, weights=votes.probabilities)[0]

    return ItemBaseline("human:average", choose)


class ReplayModel:
    """Answers from earlier predictions. The recorded raw text is replayed when present so
    that parsing is applied afresh; otherwise the parsed answer is re-encoded as JSON."""

    cacheable = False
    needs_prompt = False

    def __init__(self, path: Path, answers: dict[tuple[str, str], str]):
        self.path = path
        self.spec = f"replay:{path}"
        self._answers = answers

    def identity(self) -> str:
        return self.spec

    async def generate(self, request: Request) -> Generation:
        if request.item is None or request.question is None:
            raise FatalModelError("bad_request", "replay needs the item and question in the request")
        key = (request.item.item_id, request.question.key)
        if key not in self._answers:
            raise FatalModelError("missing_answer", f"{self.path} has no answer for {key[0]} {key[1]}")
        return Generation(text=self._answers[key])

    async def aclose(self) -> None:
        return None


FolderReader = Callable[[Path], Sequence[SampleRecord]]

#: Readers of replay folders without a ``samples.jsonl``, in registration order.
_FOLDER_READERS: list[FolderReader] = []


def register_replay_folder(reader: FolderReader) -> FolderReader:
    """Let ``replay:DIR`` read a folder that holds no ``samples.jsonl`` with ``reader``,
    which returns its records or raises :class:`DataError` (a benchmark package calls this
    when it is imported, for its own run format)."""
    if reader not in _FOLDER_READERS:
        _FOLDER_READERS.append(reader)
    return reader


def _read_replay_folder(path: Path) -> Sequence[SampleRecord]:
    """The records of a replay folder, from the first registered reader that accepts it."""
    if not _FOLDER_READERS:
        raise UsageError(
            f"replay source {path} is a folder without samples.jsonl; give a samples.jsonl or the run folder holding one"
        )
    failures: list[DataError] = []
    for reader in _FOLDER_READERS:
        try:
            return reader(path)
        except DataError as exc:
            failures.append(exc)
    if len(failures) == 1:
        raise failures[0]
    raise DataError([p for exc in failures for p in exc.problems])


def load_replay_answers(path: Path) -> dict[tuple[str, str], str]:
    """(item id, question key) -> answer text of every recorded answer without an error."""
    if path.is_dir() and (path / "samples.jsonl").exists():
        path = path / "samples.jsonl"
    if path.is_dir():
        records = _read_replay_folder(path)
    elif path.exists():
        records = read_samples(path)
    else:
        raise UsageError(f"replay source {path} does not exist; give a samples.jsonl or an official experiment folder")
    out: dict[tuple[str, str], str] = {}
    for r in records:
        if r.error is not None:
            continue
        out[(r.item_id, r.question_key)] = r.raw if r.raw is not None else answer_text(r.parsed)
    return out


@register(
    "replay",
    summary="answers read from a samples.jsonl or official experiment folder",
    example="replay:runs/gpt4o/samples.jsonl",
)
def make_replay(rest: str, options: ModelOptions) -> ReplayModel:
    if not rest:
        raise UsageError("replay needs a path: replay:PATH")
    path = Path(rest)
    return ReplayModel(path, load_replay_answers(path))
