"""What socialbench's Inspect AI tasks and ``socialbench export inspect`` share: a request as
Inspect messages, and the papers' metrics from the benchmark's own ``score``.

Imported only where ``inspect_ai`` is installed (the ``inspect`` extra): by
:mod:`socialbench.inspect_tasks` and, lazily, by ``export inspect``. Every sample's score
carries the item's records; :func:`benchmark_metrics` scores them under every protocol and
flattens the result into ``PROTOCOL/PATH`` -> number (docs/inspect.md). No number is
computed here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Literal

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, Content, ContentImage, ContentText

from socialbench.benchmarks.prepared import PreparedEval
from socialbench.metrics.protocols import PROTOCOL_NAMES
from socialbench.prompting.turns import user_content
from socialbench.types import TRUNCATED_FINISH_REASONS, EncodedImage, Item, Request, SampleRecord

#: Where a sample score's metadata keeps the item's records.
RECORDS_KEY = "socialbench_records"
#: Where a sample score reduced over several epochs keeps each epoch's records (a list of
#: record lists, epoch 1 first).
EPOCHS_KEY = "socialbench_epochs"
#: Parts of ``metrics.json`` that are counts or notes about the scoring, not metrics.
SKIPPED = frozenset({"header"})


def epochs_of(metadatas: Iterable[Mapping[str, Any] | None]) -> list[list[SampleRecord]]:
    """The records kept in sample scores' metadata, by epoch: a score reduced over epochs
    holds them under :data:`EPOCHS_KEY`, a score of one epoch under :data:`RECORDS_KEY`."""
    out: list[list[SampleRecord]] = []
    for meta in metadatas:
        meta = meta or {}
        per_epoch = meta[EPOCHS_KEY] if EPOCHS_KEY in meta else [meta.get(RECORDS_KEY, [])]
        for i, recs in enumerate(per_epoch):
            while len(out) <= i:
                out.append([])
            out[i].extend(SampleRecord.from_json(r) for r in recs)
    return out or [[]]


def flatten_numbers(data: object, prefix: str = "") -> dict[str, float]:
    """Every number in ``data`` (a ``metrics.json`` object) under its slash-joined path;
    booleans, strings and nulls are left out, as are lists (per-item detail) and the human
    baselines (``human:...`` entries: the dataset's, the same for every model)."""
    out: dict[str, float] = {}
    if isinstance(data, Mapping):
        for key, value in data.items():
            if (not prefix and key in SKIPPED) or str(key).startswith("human:"):
                continue
            out.update(flatten_numbers(value, f"{prefix}/{key}" if prefix else str(key)))
    elif isinstance(data, (int, float)) and not isinstance(data, bool):
        out[prefix] = float(data)
    return out


def benchmark_metrics(
    prepared: PreparedEval, records: Sequence[SampleRecord], protocols: Sequence[str] = PROTOCOL_NAMES
) -> dict[str, float]:
    """``prepared``'s benchmark's ``score`` of ``records`` under each of ``protocols``, as
    ``PROTOCOL/PATH`` -> number (see the module docstring)."""
    return epoch_metrics(prepared, [records], protocols)


def epoch_metrics(
    prepared: PreparedEval, epochs: Sequence[Sequence[SampleRecord]], protocols: Sequence[str] = PROTOCOL_NAMES
) -> dict[str, float]:
    """As :func:`benchmark_metrics`, of repeated epochs (each epoch's records): each epoch is
    scored on its own and the scores combined as ``socialbench eval --epochs`` combines them
    (:func:`socialbench.runner.epochs.combine_metrics`: means over the epochs, standard
    errors across them). One epoch: its scores as they are."""
    from socialbench.runner.epochs import combine_metrics

    out: dict[str, float] = {}
    for protocol in protocols:
        trees = [prepared.benchmark.score(prepared.dataset, list(recs), protocol).to_json() for recs in epochs]
        result = trees[0] if len(trees) == 1 else combine_metrics(trees)
        out.update({f"{protocol}/{k}": v for k, v in flatten_numbers(result).items()})
    return out


#: Data URLs made, by image digest: every question of an item sends the same images, and one
#: string per image (not one per request) keeps a sample's messages and events small in memory.
_DATA_URLS: dict[str, str] = {}
_DATA_URLS_KEPT = 512


def data_url(img: EncodedImage) -> str:
    """``data:MIME;base64,...`` of ``img``, the same string object for the same image."""
    url = _DATA_URLS.get(img.sha256)
    if url is None:
        if len(_DATA_URLS) >= _DATA_URLS_KEPT:
            _DATA_URLS.pop(next(iter(_DATA_URLS)))  # the oldest: items are asked about in turn
        url = _DATA_URLS[img.sha256] = f"data:{img.mime};base64,{img.b64}"
    return url


def request_messages(request: Request, images_first: bool = False) -> list[ChatMessage]:
    """The Inspect messages of one socialbench request: its system text, then the user turn
    laid out by :func:`~socialbench.prompting.turns.user_content` (the prompt text, then
    each image as a data URL, as the ``openai:`` backend sends them)."""
    images: list[Content] = [ContentImage(image=data_url(img)) for img in request.images]
    content = user_content(ContentText(text=request.prompt), images, images_first)
    messages: list[ChatMessage] = []
    if request.system:
        messages.append(ChatMessageSystem(content=request.system))
    messages.append(ChatMessageUser(content=content))
    return messages


def item_agreement(item: Item, records: Sequence[SampleRecord]) -> float:
    """The item's PA: the mean over its records of :func:`~socialbench.metrics.agreement.pa_paper`
    (eq. 1 of the SocialNav-SUB paper, §3.4, on this item's questions: the share of human
    votes for the model's answer). For the waypoint task, whose one vote is the gold
    candidate, this is accuracy; for RobotEQ, the per-behaviour PA. A failed or invalid
    answer scores 0; a record of no question of the item (the dataset changed since) or of a
    question without votes is left out; 0.0 when none has votes."""
    from socialbench.metrics.agreement import pa_paper

    questions = {q.key: q for q in item.questions}
    shares = [
        pa_paper(votes, None if r.error is not None else questions[r.question_key].canonical(r.parsed))
        for r in records
        if r.question_key in questions and (votes := item.votes.get(r.question_key)) is not None
    ]
    return sum(shares) / len(shares) if shares else 0.0


def item_targets(item: Item) -> list[str]:
    """The item's targets for Inspect: ``KEY=ANSWER`` per question, the answer most humans
    gave (ties to the earliest option, :meth:`HumanVotes.mode`); multi-select answers are
    joined with ``|``."""
    out: list[str] = []
    for q in item.questions:
        votes = item.votes.get(q.key)
        if votes is None or not votes.answers:
            continue
        mode = votes.mode(q.choices)
        out.append(f"{q.key}={'|'.join(mode) if isinstance(mode, tuple) else mode}")
    return out


def restricted_to(prepared: PreparedEval, item_ids: Collection[str]) -> PreparedEval:
    """``prepared`` with its dataset cut to the items ``item_ids`` (the samples Inspect ran,
    under its ``--limit`` or ``--sample-id``), so that items not asked are not scored as
    missing answers. ``prepared`` itself when every item is kept."""
    items = tuple(i for i in prepared.dataset.items if str(i.item_id) in item_ids)
    if len(items) == len(prepared.dataset.items):
        return prepared
    return dataclasses.replace(prepared, dataset=dataclasses.replace(prepared.dataset, items=items))


StopReason = Literal["stop", "max_tokens", "model_length", "tool_calls", "content_filter", "unknown"]


def stop_reason_of(finish_reason: str | None) -> StopReason:
    """Inspect's ``stop_reason`` for a record's ``finish_reason`` (OpenAI's or Anthropic's
    words): ``length``/``max_tokens`` -> ``max_tokens``, ``content_filter``/``refusal`` ->
    ``content_filter``, ``stop``/``end_turn``/``stop_sequence`` -> ``stop``,
    ``tool_calls``/``tool_use`` -> ``tool_calls``; anything else (or unknown) ``unknown``."""
    if finish_reason in TRUNCATED_FINISH_REASONS:
        return "max_tokens"
    return _STOP_REASONS.get(finish_reason or "", "unknown")


_STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "content_filter": "content_filter",
    "refusal": "content_filter",
    "tool_calls": "tool_calls",
    "tool_use": "tool_calls",
    "model_length": "model_length",
}
