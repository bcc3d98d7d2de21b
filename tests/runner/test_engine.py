"""Engine: bounded concurrency, retries with backoff / Retry-After, timeouts, cache, errors kept apart."""

import asyncio

from socialbench.models.base import FatalModelError, RetryableModelError
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.runner.cache import ResponseCache
from socialbench.runner.engine import Engine, RetryPolicy
from socialbench.types import Generation, Request

FAST = RetryPolicy(max_attempts=4, base_delay_s=0.001, max_delay_s=0.01, timeout_s=2.0)
PROMPT = 'Q?\nPossible answers: "yes", "no"'


def mock() -> MockModel:
    return MockModel("mock:test", lambda r: first_option_answer(r.prompt))


def run(coro):
    return asyncio.run(coro)


def test_success_returns_text_and_usage():
    m = mock()
    out = run(Engine(m, retry=FAST).run(Request(prompt=PROMPT)))
    assert out.error is None and out.text == '{"answer": "yes"}' and out.attempts == 1


def test_retryable_error_is_retried_then_succeeds():
    m = mock()
    m.script.extend([RetryableModelError("server_error"), RetryableModelError("rate_limit")])

    async def go():
        eng = Engine(m, retry=FAST)
        return await eng.run(Request(prompt=PROMPT)), eng.stats

    out, stats = run(go())
    assert out.error is None and out.attempts == 3 and stats.retries == 2


def test_retry_after_is_honoured():
    m = mock()
    m.script.append(RetryableModelError("rate_limit", retry_after=0.3))

    async def go():
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        policy = RetryPolicy(max_attempts=2, base_delay_s=0.001, max_delay_s=1.0, timeout_s=2.0)
        await Engine(m, retry=policy).run(Request(prompt=PROMPT))
        return loop.time() - t0

    assert run(go()) >= 0.3


def test_fatal_error_is_recorded_not_retried():
    m = mock()
    m.script.append(FatalModelError("refusal", "content filter"))
    out = run(Engine(m, retry=FAST).run(Request(prompt=PROMPT)))
    assert (out.text, out.error, out.attempts) == (None, "refusal", 1)


def test_exhausted_retries_give_the_last_error_kind():
    m = mock()
    m.script.extend([RetryableModelError("overloaded")] * 4)
    out = run(Engine(m, retry=FAST).run(Request(prompt=PROMPT)))
    assert (out.error, out.attempts) == ("overloaded", 4)


def test_attempt_past_timeout_is_a_timeout_error():
    m = mock()
    m.script.extend([(1.0, None)] * 2)
    policy = RetryPolicy(max_attempts=2, base_delay_s=0.001, timeout_s=0.05)
    out = run(Engine(m, retry=policy).run(Request(prompt=PROMPT)))
    assert out.error == "timeout"


def test_backend_bug_becomes_backend_error_kind():
    class Broken(MockModel):
        async def generate(self, request):
            raise ZeroDivisionError("oops")

    out = run(Engine(Broken("mock:broken", str), retry=FAST).run(Request(prompt=PROMPT)))
    assert out.error == "backend_error" and "ZeroDivisionError" in out.error_message


def test_concurrency_is_bounded_at_the_model_call():
    in_flight = peak = 0

    class Slow(MockModel):
        async def generate(self, request):
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1
            return await super().generate(request)

    m = Slow("mock:slow", lambda r: "x")

    async def go():
        eng = Engine(m, concurrency=3, retry=FAST)
        await asyncio.gather(*(eng.run(Request(prompt=f"{i}")) for i in range(20)))

    run(go())
    assert peak == 3


def test_cache_hit_makes_no_model_call(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    m = mock()
    run(Engine(m, retry=FAST, cache=cache).run(Request(prompt=PROMPT)))
    out = run(Engine(m, retry=FAST, cache=cache).run(Request(prompt=PROMPT)))
    assert out.cached and len(m.calls) == 1


def test_failures_are_never_cached(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    m = mock()
    m.script.append(FatalModelError("refusal"))
    run(Engine(m, retry=FAST, cache=cache).run(Request(prompt=PROMPT)))
    assert len(cache) == 0


def test_retry_policy_delay_grows_and_is_capped():
    import random

    p = RetryPolicy(base_delay_s=1.0, max_delay_s=4.0)
    rng = random.Random(0)
    delays = [p.delay(k, None, rng) for k in (1, 2, 3, 4, 5)]
    assert 0.5 <= delays[0] <= 1.0 and all(d <= 4.0 for d in delays) and delays[4] >= 2.0


def test_lone_surrogate_in_a_reply_is_replaced_and_cached(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    m = mock()
    m.script.append('{"answer": "yes"} \ud83d')
    out = run(Engine(m, retry=FAST, cache=cache).run(Request(prompt=PROMPT)))
    assert out.error is None and out.text == '{"answer": "yes"} ?' and len(cache) == 1


def test_retry_after_is_capped_at_max_delay():
    import random

    assert RetryPolicy(max_delay_s=5.0).delay(1, 3600.0, random.Random(0)) == 5.0


def test_backlog_counts_requests_waiting_for_a_slot_and_says_when_it_drops():
    gate = asyncio.Event()

    class Held(MockModel):
        async def generate(self, request):
            await gate.wait()
            return await super().generate(request)

    slot_taken = []

    async def go():
        eng = Engine(Held("mock:held", lambda r: "x"), concurrency=2, retry=FAST, on_slot=lambda: slot_taken.append(1))
        tasks = [asyncio.ensure_future(eng.run(Request(prompt=f"{i}"))) for i in range(5)]
        for _ in range(5):
            await asyncio.sleep(0)
        waiting = eng.backlog
        gate.set()
        await asyncio.gather(*tasks)
        return waiting, eng.backlog

    waiting, after = run(go())
    assert (waiting, after) == (3, 0)
    assert len(slot_taken) == 5  # once per request, as it leaves the queue


class ThinkingModel:
    """Answers with a reasoning section apart from the answer."""

    spec = "thinking:test"
    cacheable = True
    needs_prompt = True

    def __init__(self) -> None:
        self.calls = 0

    def identity(self) -> str:
        return self.spec

    async def generate(self, request: Request) -> Generation:
        self.calls += 1
        return Generation('{"answer": "yes"}', reasoning="the robot waits")

    async def aclose(self) -> None:
        pass


def test_the_reasoning_section_reaches_the_outcome_and_comes_back_from_the_cache(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    m = ThinkingModel()
    fresh = run(Engine(m, retry=FAST, cache=cache).run(Request(prompt=PROMPT)))
    cached = run(Engine(m, retry=FAST, cache=cache).run(Request(prompt=PROMPT)))
    assert (fresh.text, fresh.reasoning) == ('{"answer": "yes"}', "the robot waits")
    assert (cached.cached, cached.reasoning, m.calls) == (True, "the robot waits", 1)


def test_an_unusable_cache_entry_is_a_miss_the_model_answers_and_replaces(tmp_path):
    import sqlite3

    from socialbench.runner.cache import cache_key

    cache = ResponseCache(tmp_path / "c.sqlite")
    m = mock()
    key = cache_key(m.identity(), Request(prompt=PROMPT))
    db = sqlite3.connect(str(tmp_path / "c.sqlite"))
    db.execute(
        "INSERT INTO responses (key, model, text, usage, created) VALUES (?, 'm', 'stale', '{not json', 0)", (key,)
    )
    db.commit()
    db.close()

    async def go():
        eng = Engine(m, retry=FAST, cache=cache)
        return await eng.run(Request(prompt=PROMPT)), eng.stats

    out, stats = run(go())
    assert out.error is None and not out.cached and len(m.calls) == 1 and stats.cache_errors == 1
    assert cache.get(key).text == '{"answer": "yes"}'


def test_timeouts_halve_the_requests_in_flight_and_are_recorded():
    in_flight = most_after_cut = 0
    cut = False

    async def slow_then_fast(request: Request) -> Generation:
        nonlocal in_flight, most_after_cut, cut
        in_flight += 1
        try:
            if not cut:
                cut = True
                raise RetryableModelError("timeout", "no answer within 1 s")
            most_after_cut = max(most_after_cut, in_flight)
            await asyncio.sleep(0.01)
            return Generation(text="ok")
        finally:
            in_flight -= 1

    class Slow(MockModel):
        async def generate(self, request: Request) -> Generation:
            return await slow_then_fast(request)

    async def go():
        eng = Engine(Slow("mock:slow", lambda r: "ok"), concurrency=8, retry=FAST)
        await asyncio.gather(*(eng.run(Request(prompt=PROMPT)) for _ in range(8)))
        return eng.stats

    stats = run(go())
    assert most_after_cut <= 4
    assert stats.as_dict()["concurrency"]["cuts"] == 1 and stats.as_dict()["concurrency"]["lowest"] == 4
