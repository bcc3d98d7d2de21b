"""The run gives up on a backend that keeps failing: rounds of failures counted by send
order (runner/give_up.py), and the engine's requests bounded by them (issue 42)."""

import asyncio

from socialbench.models.base import FatalModelError, RetryableModelError
from socialbench.runner.engine import Engine, RetryPolicy
from socialbench.runner.give_up import GiveUp
from socialbench.types import Generation, Request

PROMPT = 'Q?\nPossible answers: "yes", "no"'


def test_failures_of_requests_in_flight_together_count_as_one_round():
    rule = GiveUp(rounds=2)
    # attempts 1..4 sent together; all fail before anything else is sent
    assert [rule.failed(n, 4, "server_error", "HTTP 500") for n in (1, 2, 3, 4)] == [False] * 4
    assert rule.streak == 1 and rule.failures == 4


def test_a_failure_of_an_attempt_sent_after_the_last_round_opens_the_breaker():
    rule = GiveUp(rounds=2)
    rule.failed(1, 1, "server_error", "HTTP 500")
    assert rule.failed(2, 2, "server_error", "HTTP 500") is True
    assert rule.opened == {
        "kind": "server_error",
        "kinds": {"server_error": 2},
        "rounds": 2,
        "failed_attempts": 2,
        "last_error": "HTTP 500",
    }


def test_an_answer_starts_the_count_again():
    rule = GiveUp(rounds=2)
    rule.failed(1, 1, "server_error", "HTTP 500")
    rule.answered()
    assert rule.failed(2, 2, "server_error", "HTTP 500") is False and rule.streak == 1


def test_failures_of_mixed_kinds_count_toward_giving_up():
    rule = GiveUp(rounds=3)  # a dead backend alternating 500s and timeouts
    assert rule.failed(1, 1, "server_error", "HTTP 500") is False
    assert rule.failed(2, 2, "timeout", "slow") is False
    assert rule.failed(3, 3, "server_error", "HTTP 500") is True
    assert rule.opened["kinds"] == {"server_error": 2, "timeout": 1}


def test_zero_rounds_never_gives_up():
    rule = GiveUp(rounds=0)
    assert not any(rule.failed(n, n, "timeout", "") for n in range(1, 100))


class AlwaysFailing:
    """A backend whose every attempt fails with ``kind`` (counted)."""

    cacheable = False
    needs_prompt = True
    spec = "mock:failing"

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.calls = 0

    def identity(self) -> str:
        return self.spec

    async def generate(self, request: Request) -> Generation:
        self.calls += 1
        await asyncio.sleep(0)
        raise RetryableModelError(self.kind, "HTTP 500: scripted error 500")

    async def aclose(self) -> None:
        return None


def _run_all(model, n, concurrency, policy):
    async def go():
        eng = Engine(model, concurrency=concurrency, retry=policy)
        outs = await asyncio.gather(*(eng.run(Request(prompt=PROMPT), priority=i) for i in range(n)))
        return outs, eng.stats

    return asyncio.run(go())


def test_a_dead_backend_costs_at_most_the_rounds_times_the_concurrency():
    model = AlwaysFailing("server_error")
    policy = RetryPolicy(max_attempts=6, base_delay_s=0.001, max_delay_s=0.002, timeout_s=5.0, give_up_after=3)
    outs, stats = _run_all(model, 100, 4, policy)
    assert model.calls <= 3 * 4  # 3 rounds of at most 4 in flight, against 600 without giving up
    assert stats.requests == model.calls
    kinds = {o.error for o in outs}
    assert kinds <= {"server_error", "gave_up"} and "gave_up" in kinds and all(o.text is None for o in outs)
    assert stats.gave_up["kind"] == "server_error" and stats.gave_up["rounds"] == 3


def test_a_request_not_sent_after_giving_up_says_why():
    policy = RetryPolicy(max_attempts=6, base_delay_s=0.001, max_delay_s=0.002, timeout_s=5.0, give_up_after=2)
    outs, _ = _run_all(AlwaysFailing("rate_limit"), 10, 1, policy)
    message = next(o.error_message for o in outs if o.error == "gave_up")
    assert "gave up after 2 rounds of rate_limit" in message and "run the same command again" in message


def test_fatal_replies_keep_the_run_going():
    class Refusing(AlwaysFailing):
        async def generate(self, request: Request) -> Generation:
            self.calls += 1
            raise FatalModelError("bad_request", "HTTP 400: no")

    model = Refusing("bad_request")
    policy = RetryPolicy(max_attempts=2, base_delay_s=0.001, timeout_s=5.0, give_up_after=2)
    outs, stats = _run_all(model, 20, 1, policy)
    assert model.calls == 20 and {o.error for o in outs} == {"bad_request"} and not stats.gave_up


def test_rate_limits_halve_the_requests_in_flight():
    in_flight = most = 0
    first = True

    class Limited(AlwaysFailing):
        async def generate(self, request: Request) -> Generation:
            nonlocal in_flight, most, first
            in_flight += 1
            try:
                if first:
                    first = False
                    raise RetryableModelError("rate_limit", "HTTP 429", retry_after=0.0)
                await asyncio.sleep(0.01)
                most = max(most, in_flight)
                return Generation(text="ok")
            finally:
                in_flight -= 1

    policy = RetryPolicy(max_attempts=3, base_delay_s=0.001, timeout_s=5.0)
    outs, stats = _run_all(Limited("rate_limit"), 8, 8, policy)
    assert all(o.error is None for o in outs)
    assert stats.concurrency["cuts"] == 1 and stats.concurrency["lowest"] == 4 and most <= 4
