"""The engine records why each request was retried and why each reply ended (issue 28 §4)."""

import asyncio

from socialbench.models.base import RetryableModelError
from socialbench.models.mock import MockModel
from socialbench.runner.engine import Engine, RetryPolicy
from socialbench.types import Generation, Request

FAST = RetryPolicy(max_attempts=3, base_delay_s=0.001, max_delay_s=0.01, timeout_s=2.0)


def _engine_run(script: list[object], reply: Generation) -> tuple[object, dict[str, object]]:
    model = MockModel("mock:test", lambda r: reply.text)
    model.script.extend(script)

    async def go() -> tuple[object, dict[str, object]]:
        engine = Engine(model, retry=FAST)
        return await engine.run(Request(prompt="Q?")), engine.stats.as_dict()

    return asyncio.run(go())


def test_each_retried_attempt_is_recorded_by_its_error_kind_in_order() -> None:
    out, _ = _engine_run([RetryableModelError("timeout"), RetryableModelError("rate_limit")], Generation("x"))
    assert out.retry_causes == ("timeout", "rate_limit")


def test_run_totals_count_retries_by_cause() -> None:
    script = [RetryableModelError("timeout"), RetryableModelError("timeout")]
    _, stats = _engine_run(script, Generation("x"))
    assert stats["retry_causes"] == {"timeout": 2}


def test_a_request_that_runs_out_of_attempts_keeps_the_causes_of_the_retried_ones() -> None:
    out, _ = _engine_run([RetryableModelError("server_error")] * 3, Generation("x"))
    assert (out.error, out.retry_causes) == ("server_error", ("server_error", "server_error"))


def test_a_first_try_answer_has_no_retry_causes() -> None:
    out, stats = _engine_run([], Generation("x"))
    assert (out.retry_causes, stats["retry_causes"]) == ((), {})


class _CutOff:
    """A model whose every reply ended at the token limit."""

    spec = "test:cut-off"
    cacheable = False
    needs_prompt = True

    async def generate(self, request: Request) -> Generation:
        return Generation('{"answer": "ye', finish_reason="length")

    def identity(self) -> str:
        return self.spec

    async def aclose(self) -> None:
        return None


def test_a_truncated_reply_keeps_its_finish_reason_and_is_counted() -> None:
    async def go() -> tuple[object, dict[str, object]]:
        engine = Engine(_CutOff(), retry=FAST)
        return await engine.run(Request(prompt="Q?")), engine.stats.as_dict()

    out, stats = asyncio.run(go())
    assert (out.finish_reason, stats["truncated"]) == ("length", 1)
