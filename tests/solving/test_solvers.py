"""The generic solvers: the order of asking, and replies made records."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from socialbench.solving.context import SolveContext
from socialbench.solving.solvers import LONG_REPLY_CHARS, in_order, parse_off_loop, sample_record
from socialbench.types import GenerationConfig, Outcome, Question, Request, SampleRecord, Usage

CONFIG = GenerationConfig(max_tokens=16, temperature=0.0, json_mode=True, seed=0)


def question(key: str, *depends_on: str) -> Question:
    return Question(key, key, "c", "single", key, ("a", "b"), depends_on=depends_on)


def context(records: list[SampleRecord]) -> SolveContext[None]:
    async def never(*args: Any) -> Any:
        raise AssertionError("not used")

    return SolveContext(
        generate=never,
        record=records.append,
        finished=lambda i, k: None,
        prepare=never,
        prepare_images=never,
        options=None,
        generation=CONFIG,
        needs_prompt=True,
    )


def test_in_order_does_not_ask_a_question_whose_dependency_failed():
    records: list[SampleRecord] = []
    asked: list[tuple[str, Any]] = []

    async def ask(q: Question, earlier: Any) -> SampleRecord:
        asked.append((q.key, earlier))
        rec = SampleRecord("i", q.key, None, None, None, "timeout" if q.key == "q1" else None, 0.0, {})
        records.append(rec)
        return rec

    questions = [question("q1"), question("q2", "q1"), question("q3")]
    asyncio.run(in_order(context(records), "i", questions, ask))
    assert [k for k, _ in asked] == ["q1", "q3"]
    assert [(r.question_key, r.error) for r in records] == [("q1", "timeout"), ("q2", "dependency_error"), ("q3", None)]


def test_in_order_gives_each_question_the_earlier_answers_it_depends_on():
    asked: dict[str, Any] = {}

    async def ask(q: Question, earlier: Any) -> SampleRecord:
        asked[q.key] = earlier
        return SampleRecord("i", q.key, None, "a", "json", None, 0.0, {})

    asyncio.run(in_order(context([]), "i", [question("q1"), question("q2", "q1")], ask))
    assert asked == {"q1": {}, "q2": {"q1": "a"}}


def test_a_failed_call_is_recorded_without_parsing():
    request = Request(prompt="p", images=(), config=CONFIG)
    failed = Outcome(text=None, error="timeout", error_message="no answer", latency_s=1.0, usage=Usage(), attempts=3)

    def parse(text: str | None) -> tuple[Any, str | None]:
        raise AssertionError("a failed call is not parsed")

    rec = sample_record("i", "q", request, failed, parse)
    assert (rec.parsed, rec.parse_method, rec.error, rec.attempts) == (None, None, "timeout", 3)


def test_a_reply_is_recorded_with_its_parsed_answer_and_extra_usage():
    request = Request(prompt="p", images=(), config=CONFIG)
    ok = Outcome(text='{"answer": "a"}', error=None, latency_s=0.5, usage=Usage(), attempts=1)
    rec = sample_record("i", "q", request, ok, lambda text: ("a", "json"), {"rag_added_tokens": 7})
    assert (rec.parsed, rec.parse_method, rec.usage["rag_added_tokens"], rec.request_hash) == (
        "a",
        "json",
        7,
        request.fingerprint(),
    )


def test_the_reasoning_section_is_recorded_apart_and_not_parsed():
    request = Request(prompt="p", images=(), config=CONFIG)
    ok = Outcome(text='{"answer": "a"}', error=None, reasoning='maybe {"answer": "b"}')
    seen: list[str | None] = []

    def parse(text: str | None) -> tuple[Any, str | None]:
        seen.append(text)
        return "a", "json"

    rec = sample_record("i", "q", request, ok, parse)
    assert seen == ['{"answer": "a"}'] and rec.to_json()["reasoning"] == 'maybe {"answer": "b"}'
    assert SampleRecord.from_json(rec.to_json()).reasoning == 'maybe {"answer": "b"}'


def test_a_record_without_reasoning_has_no_reasoning_field():
    request = Request(prompt="p", images=(), config=CONFIG)
    rec = sample_record("i", "q", request, Outcome(text="x", error=None), lambda text: (None, None))
    assert "reasoning" not in rec.to_json()


def _thread_of_parse(text: str) -> bool:
    """Whether ``parse_off_loop`` ran the parser on the event loop's own thread."""

    async def main() -> bool:
        loop_thread = threading.get_ident()
        seen: list[int] = []

        def parse(reply: str | None) -> tuple[Any, str | None]:
            seen.append(threading.get_ident())
            return (reply[:1] if reply else None, "test")

        await parse_off_loop(parse, text)
        return seen == [loop_thread]

    return asyncio.run(main())


def test_a_long_reply_is_parsed_off_the_event_loop():
    assert _thread_of_parse("x" * (LONG_REPLY_CHARS + 1)) is False


def test_a_short_reply_is_parsed_on_the_event_loop():
    assert _thread_of_parse("x" * LONG_REPLY_CHARS) is True
