"""Generic solvers: the orders in which a benchmark's questions are asked, and the one way a
model's reply becomes a :class:`~socialbench.types.SampleRecord`.

* :func:`each_independently`: every question on its own, all at once.
* :func:`in_order`: one after another, each given the answers to the earlier questions it
  depends on; a question whose dependency failed is not asked but recorded as
  ``dependency_error`` (the next run asks the dependency first, then it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

from socialbench.solving.context import SolveContext
from socialbench.types import Outcome, ParsedAnswer, Question, Request, SampleRecord

R = TypeVar("R")

#: A reply's parser: (the answer, how it was read), or (None, ...) for an invalid reply.
Parse = Callable[[str | None], tuple[ParsedAnswer, str | None]]
#: Replies longer than this (characters) are parsed in a worker thread, so that one long
#: reply (a reasoning model's, or a hostile one) never holds up the other requests in flight
#: on the event loop. Parsing is linear in the reply's length and replies are capped in bytes
#: (``models.http_post``), so the thread's work is bounded; shorter replies are parsed inline,
#: where a thread hop would cost more than the parse.
LONG_REPLY_CHARS = 16_384
#: Ask one question, given the earlier answers it depends on (None: asked on its own).
Ask = Callable[[Question, Mapping[str, ParsedAnswer] | None], Awaitable[SampleRecord]]


def sample_record(
    item_id: str,
    key: str,
    request: Request,
    outcome: Outcome,
    parse: Parse,
    usage: Mapping[str, int] | None = None,
    extra: Mapping[str, object] | None = None,
) -> SampleRecord:
    """The record of one question answered by ``outcome`` (the reply to ``request``): the
    parsed answer when the call succeeded, the error kind when it failed; ``usage`` adds
    accounting to the request's token counts; ``extra`` is what the benchmark records
    beside the answer."""
    parsed, how = parse(outcome.text) if outcome.error is None else (None, None)
    return SampleRecord(
        item_id=item_id,
        question_key=key,
        raw=outcome.text,
        parsed=parsed,
        parse_method=how,
        error=outcome.error,
        latency_s=round(outcome.latency_s, 6),
        usage={**outcome.usage.as_dict(), **(usage or {})},
        request_hash=request.fingerprint(),
        error_message=outcome.error_message,
        attempts=outcome.attempts,
        cached=outcome.cached,
        extra=extra,
        reasoning=outcome.reasoning,
        finish_reason=outcome.finish_reason,
        retry_causes=outcome.retry_causes,
    )


async def parse_off_loop(parse: Callable[[str | None], R], text: str | None) -> R:
    """``parse(text)``: inline for a short reply, in a worker thread for one longer than
    :data:`LONG_REPLY_CHARS` characters (so the event loop keeps serving other requests)."""
    if text is not None and len(text) > LONG_REPLY_CHARS:
        return await asyncio.to_thread(parse, text)
    return parse(text)


def _parsed_already(parsed: tuple[ParsedAnswer, str | None]) -> Parse:
    return lambda _text: parsed


async def answer(
    ctx: SolveContext[object],
    request: Request,
    parse: Parse,
    usage: Mapping[str, int] | None = None,
    extra: Mapping[str, object] | None = None,
) -> SampleRecord:
    """Send ``request`` (about one question: ``request.question``), record and return its
    answer (with ``extra`` beside it in the record)."""
    assert request.item is not None and request.question is not None
    outcome = await ctx.generate(request)
    if outcome.error is None:
        parse = _parsed_already(await parse_off_loop(parse, outcome.text))
    rec = sample_record(request.item.item_id, request.question.key, request, outcome, parse, usage, extra)
    ctx.record(rec)
    return rec


async def each_independently(questions: Sequence[Question], ask: Ask) -> None:
    """Ask every question on its own, all concurrently."""
    await asyncio.gather(*(ask(q, None) for q in questions))


def dependency_error(item_id: str, key: str, failed: str) -> SampleRecord:
    """The record of a question not asked because the earlier question ``failed`` failed."""
    return SampleRecord(
        item_id,
        key,
        None,
        None,
        None,
        "dependency_error",
        0.0,
        {},
        error_message=f"earlier question {failed} failed; asked again on the next run",
    )


async def in_order(
    ctx: SolveContext[object],
    item_id: str,
    questions: Sequence[Question],
    ask: Ask,
    key_of: Callable[[Question], str] = lambda q: q.key,
) -> None:
    """Ask ``questions`` one after another, each with the answers to its ``depends_on``
    (by :func:`key_of` of the question that gave them). Never asks with a hole where a
    failed answer should be: a question with a failed dependency is recorded as
    ``dependency_error``."""
    answers: dict[str, ParsedAnswer] = {}
    failed: set[str] = set()
    for q in questions:
        key = key_of(q)
        broken = [dep for dep in q.depends_on if dep in failed]
        if broken:
            failed.add(key)
            ctx.record(dependency_error(item_id, q.key, broken[0]))
            continue
        rec = await ask(q, {dep: answers.get(dep) for dep in q.depends_on})
        if rec.error is not None:
            failed.add(key)
        answers[key] = rec.parsed
