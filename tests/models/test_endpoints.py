"""Several OpenAI-compatible endpoints for one model: routing, limits, health, identity."""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from socialbench.errors import UsageError
from socialbench.models.base import RetryableModelError
from socialbench.models.endpoint_pool import EndpointPool
from socialbench.models.endpoints import MultiEndpointModel, read_endpoints_file, split_urls
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.openai_factory import create_openai_model
from socialbench.models.registry import ModelOptions, create_model
from socialbench.runner.engine import Engine, RetryPolicy
from socialbench.testing.openai_server import ScriptedOpenAIServer, stall, status, wait_until
from socialbench.testing.responders import last_user_text
from socialbench.types import Outcome, Request


@pytest.fixture(autouse=True)
def _no_real_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


URLS = ["http://a:1/v1", "http://b:1/v1", "http://c:1/v1"]


# --------------------------------------------------------------------------- parsing


def test_spec_with_several_urls_builds_a_pool() -> None:
    model = create_openai_model("Qwen/Qwen2.5-VL-7B-Instruct@http://a:8000/v1,http://b:8000/v1/", ModelOptions())
    assert isinstance(model, MultiEndpointModel)
    assert model.urls == ["http://a:8000/v1", "http://b:8000/v1"]
    assert model.model == "Qwen/Qwen2.5-VL-7B-Instruct"


def test_spec_with_one_url_stays_a_single_endpoint_model() -> None:
    model = create_openai_model("m@http://a:8000/v1", ModelOptions())
    assert isinstance(model, OpenAICompatModel)


def test_identity_ignores_url_order_and_count() -> None:
    one = create_model("openai:m@http://a:1/v1,http://b:1/v1")
    two = create_model("openai:m@http://c:1/v1,http://b:1/v1,http://a:1/v1")
    other = create_model("openai:other@http://a:1/v1,http://b:1/v1")
    assert one.identity() == two.identity() == "openai|m|pool"
    assert other.identity() != one.identity()


def test_endpoints_file_adds_urls_and_skips_comments(tmp_path: Path) -> None:
    path = tmp_path / "endpoints.txt"
    path.write_text("# vLLM nodes\nhttp://n1:8000/v1\n\nhttp://n2:8000/v1  # second\nhttp://n1:8000/v1/\n")
    opts = ModelOptions(extra=(("endpoints_file", str(path)),))
    model = create_openai_model("m", opts)
    assert isinstance(model, MultiEndpointModel)
    assert model.urls == ["http://n1:8000/v1", "http://n2:8000/v1"]


def test_endpoints_file_line_without_url_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "endpoints.txt"
    path.write_text("http://n1:8000/v1\nnode2:8000\n")
    with pytest.raises(UsageError, match=r"endpoints.txt:2: 'node2:8000' is not a base URL"):
        read_endpoints_file(path)


def test_missing_endpoints_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot be read"):
        create_openai_model("m", ModelOptions(extra=(("endpoints_file", str(tmp_path / "nope.txt")),)))


def test_bad_per_endpoint_concurrency_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="per_endpoint_concurrency"):
        create_openai_model("m@http://a:1/v1,http://b:1/v1", ModelOptions(extra=(("per_endpoint_concurrency", "0"),)))


def test_split_urls_drops_blanks_and_duplicates() -> None:
    assert split_urls(" http://a/v1/, ,http://b/v1,http://a/v1") == ["http://a/v1", "http://b/v1"]


# --------------------------------------------------------------------------- routing logic


def test_pick_prefers_fewest_outstanding() -> None:
    pool = EndpointPool(URLS, clock=FakeClock())
    first = [pool.pick() for _ in range(3)]
    assert sorted(ep.url for ep in first if ep) == sorted(URLS)
    pool.release(first[1], ok=True)  # type: ignore[arg-type]
    assert pool.pick().url == first[1].url  # type: ignore[union-attr]


def test_pick_respects_per_endpoint_limit() -> None:
    pool = EndpointPool(URLS[:2], per_endpoint_concurrency=2, clock=FakeClock())
    picked = [pool.pick() for _ in range(4)]
    assert collections.Counter(ep.url for ep in picked if ep) == {URLS[0]: 2, URLS[1]: 2}
    assert pool.pick() is None


def test_failed_endpoint_cools_down_then_gets_one_probe() -> None:
    clock = FakeClock()
    pool = EndpointPool(URLS[:2], cooldown_s=5.0, clock=clock)
    bad = pool.endpoints[0]
    bad.outstanding += 1
    pool.release(bad, ok=False)
    assert {pool.pick().url for _ in range(4)} == {URLS[1]}  # type: ignore[union-attr]
    clock.now += 5.1
    probe = [pool.pick() for _ in range(3)]
    assert [ep.url for ep in probe if ep].count(URLS[0]) == 1


def test_consecutive_failures_double_the_cooldown() -> None:
    clock = FakeClock()
    pool = EndpointPool(URLS[:2], cooldown_s=1.0, max_cooldown_s=3.0, clock=clock)
    ep = pool.endpoints[0]
    durations = []
    for _ in range(4):
        ep.outstanding += 1
        pool.release(ep, ok=False)
        durations.append(round(ep.down_until - clock.now, 6))
        clock.now = ep.down_until
    assert durations == [1.0, 2.0, 3.0, 3.0]


def test_success_after_probe_restores_full_rotation() -> None:
    clock = FakeClock()
    pool = EndpointPool(URLS[:2], cooldown_s=1.0, clock=clock)
    ep = pool.endpoints[0]
    ep.outstanding += 1
    pool.release(ep, ok=False)
    clock.now += 1.5
    ep.outstanding += 1
    pool.release(ep, ok=True)
    picks = [pool.pick() for _ in range(4)]
    assert collections.Counter(p.url for p in picks if p) == {URLS[0]: 2, URLS[1]: 2}


def test_when_all_cool_down_the_soonest_back_is_used() -> None:
    clock = FakeClock()
    pool = EndpointPool(URLS[:2], cooldown_s=1.0, clock=clock)
    a, b = pool.endpoints
    b.outstanding += 1
    pool.release(b, ok=False)
    clock.now += 0.5
    a.outstanding += 1
    pool.release(a, ok=False)
    assert pool.pick().url == b.url  # type: ignore[union-attr]


def test_rate_limit_pauses_without_counting_a_failure() -> None:
    clock = FakeClock()
    pool = EndpointPool(URLS[:2], clock=clock)
    a = pool.endpoints[0]
    a.outstanding += 1
    pool.release(a, ok=None, pause_s=2.0)
    assert a.failures == 0 and a.cooling(clock.now)
    clock.now += 2.1
    assert not a.cooling(clock.now)


def test_acquire_waits_for_a_release_when_all_slots_are_taken() -> None:
    async def go() -> tuple[bool, str | None]:
        pool = EndpointPool(URLS[:1], per_endpoint_concurrency=1)
        held = pool.pick()
        assert held is not None
        waiter = asyncio.create_task(pool.acquire())
        await asyncio.sleep(0.02)
        waited = not waiter.done()
        pool.release(held, ok=True)
        got = await asyncio.wait_for(waiter, 1.0)
        return waited, got.url if got else None

    assert asyncio.run(go()) == (True, URLS[0])


def test_waiters_are_served_first_come_first_served() -> None:
    async def go() -> list[int]:
        pool = EndpointPool(URLS[:1], per_endpoint_concurrency=1)
        held = pool.pick()
        order: list[int] = []

        async def wait(i: int) -> None:
            ep = await pool.acquire()
            order.append(i)
            await asyncio.sleep(0)
            pool.release(ep, ok=True)  # type: ignore[arg-type]

        tasks = []
        for i in range(4):
            tasks.append(asyncio.create_task(wait(i)))
            await asyncio.sleep(0.001)
        pool.release(held, ok=True)  # type: ignore[arg-type]
        await asyncio.wait_for(asyncio.gather(*tasks), 2.0)
        return order

    assert asyncio.run(go()) == [0, 1, 2, 3]


# --------------------------------------------------------------------------- end to end


def _counting_responder(answered: list[str], lock: threading.Lock) -> Callable[[dict[str, Any]], str]:
    def respond(body: dict[str, Any]) -> str:
        text = last_user_text(body)
        with lock:
            answered.append(text)
        return f'{{"answer": "{text}"}}'

    return respond


def _run_engine(
    model: Any,
    n: int,
    during: Callable[[], Any] | None = None,
    concurrency: int = 8,
) -> list[Outcome]:
    async def go() -> list[Outcome]:
        engine = Engine(
            model, concurrency=concurrency, retry=RetryPolicy(max_attempts=4, base_delay_s=0.01, timeout_s=1)
        )
        side = asyncio.create_task(during()) if during is not None else None
        try:
            return await asyncio.gather(*(engine.run(Request(prompt=f"q{i}")) for i in range(n)))
        finally:
            if side is not None:
                await side
            await model.aclose()

    return asyncio.run(go())


def _three_servers(answered: list[str]) -> list[ScriptedOpenAIServer]:
    lock = threading.Lock()
    return [ScriptedOpenAIServer(_counting_responder(answered, lock), delay_s=0.01) for _ in range(3)]


def _pool(servers: list[ScriptedOpenAIServer], timeout_s: float = 120.0, **extra: str) -> MultiEndpointModel:
    opts = ModelOptions(timeout_s=timeout_s, extra=tuple({"cooldown_s": "0.3", **extra}.items()))
    model = create_model("openai:m@" + ",".join(s.base_url for s in servers), opts)
    assert isinstance(model, MultiEndpointModel)
    return model


def _assert_each_answered_once(outcomes: list[Outcome], answered: list[str], n: int) -> None:
    assert [o.error for o in outcomes] == [None] * n
    assert [o.text for o in outcomes] == [f'{{"answer": "q{i}"}}' for i in range(n)]
    assert collections.Counter(answered) == {f"q{i}": 1 for i in range(n)}


def test_run_completes_when_one_endpoint_starts_answering_500() -> None:
    answered: list[str] = []
    servers = _three_servers(answered)
    servers[2].push(*[stall(0.0)] * 5, *[status(500)] * 200)  # 5 good answers, then 500s
    with servers[0], servers[1], servers[2]:
        model = _pool(servers)
        outcomes = _run_engine(model, 60)
        bad = model.pool.endpoints[2]
    _assert_each_answered_once(outcomes, answered, 60)
    assert bad.failed >= 1 and bad.succeeded == 5


def test_run_completes_when_one_endpoint_goes_away_mid_run() -> None:
    answered: list[str] = []
    servers = _three_servers(answered)

    async def stop_third() -> None:
        while servers[2].count < 5:
            await asyncio.sleep(0.005)
        await asyncio.to_thread(servers[2].stop)

    with servers[0], servers[1], servers[2]:
        model = _pool(servers)
        outcomes = _run_engine(model, 60, during=stop_third)
    _assert_each_answered_once(outcomes, answered, 60)
    assert model.pool.endpoints[2].failed >= 1


def test_run_completes_when_one_endpoint_stalls_mid_run() -> None:
    answered: list[str] = []
    servers = _three_servers(answered)
    servers[1].push(*[stall(0.0)] * 5, *[stall(30.0)] * 200)  # 5 good answers, then hangs
    with servers[0], servers[1], servers[2]:
        model = _pool(servers, timeout_s=1.0)  # the pool times each HTTP call itself
        outcomes = _run_engine(model, 60)
        stalled = model.pool.endpoints[1]
    _assert_each_answered_once(outcomes, answered, 60)
    assert stalled.failed >= 1 and stalled.succeeded == 5


def test_connection_refused_is_rerouted_within_the_attempt() -> None:
    answered: list[str] = []
    lock = threading.Lock()
    with ScriptedOpenAIServer(_counting_responder(answered, lock)) as live:
        dead = ScriptedOpenAIServer().start()
        dead_url = dead.base_url
        dead.stop()
        model = create_model(f"openai:m@{dead_url},{live.base_url}", ModelOptions(timeout_s=5))
        outcomes = _run_engine(model, 6, concurrency=2)
    assert [o.attempts for o in outcomes] == [1] * 6
    assert collections.Counter(answered) == {f"q{i}": 1 for i in range(6)}


def test_all_endpoints_refusing_is_a_retryable_connection_error() -> None:
    servers = [ScriptedOpenAIServer().start() for _ in range(2)]
    urls = [s.base_url for s in servers]
    for s in servers:
        s.stop()
    model = create_model("openai:m@" + ",".join(urls), ModelOptions(timeout_s=5))

    async def go() -> None:
        try:
            await model.generate(Request(prompt="q"))
        finally:
            await model.aclose()

    with pytest.raises(RetryableModelError) as info:
        asyncio.run(go())
    assert info.value.kind == "connection"


def _run_engine_while_held(
    model: Any, n: int, concurrency: int, servers: list[ScriptedOpenAIServer], until: Callable[[], bool], what: str
) -> tuple[list[Outcome], list[int]]:
    """Run ``n`` requests with every server holding its answers until ``until()`` holds;
    return the outcomes and each server's ``in_flight`` at that moment. The held phase shows
    the pool's choices as events, whatever the machine's speed (no attempt can time out)."""

    async def go() -> list[Outcome]:
        engine = Engine(
            model, concurrency=concurrency, retry=RetryPolicy(max_attempts=4, base_delay_s=0.01, timeout_s=120)
        )
        try:
            return await asyncio.gather(*(engine.run(Request(prompt=f"q{i}")) for i in range(n)))
        finally:
            await model.aclose()

    for s in servers:
        s.hold()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        running = pool.submit(asyncio.run, go())
        try:
            wait_until(until, what)
            held = [s.in_flight for s in servers]
        finally:
            for s in servers:
                s.release()
        return running.result(timeout=120), held


def test_per_endpoint_concurrency_caps_in_flight_requests_per_server() -> None:
    answered: list[str] = []
    lock = threading.Lock()
    servers = [ScriptedOpenAIServer(_counting_responder(answered, lock)) for _ in range(2)]
    with servers[0], servers[1]:
        model = _pool(servers, per_endpoint_concurrency="3")
        outcomes, held = _run_engine_while_held(
            model, 24, 16, servers, lambda: sum(s.in_flight for s in servers) >= 6, "both servers have 3 requests"
        )
        peaks = [s.max_in_flight for s in servers]
    _assert_each_answered_once(outcomes, answered, 24)
    assert held == [3, 3]  # 16 could be sent; each server got only its 3
    assert peaks == [3, 3]  # and never more, before or after the release


def test_load_is_spread_evenly_over_equal_servers() -> None:
    answered: list[str] = []
    servers = _three_servers(answered)
    with servers[0], servers[1], servers[2]:
        model = _pool(servers)
        outcomes, held = _run_engine_while_held(
            model, 60, 6, servers, lambda: sum(s.in_flight for s in servers) >= 6, "6 requests are in flight"
        )
        counts = [s.count for s in servers]
    _assert_each_answered_once(outcomes, answered, 60)
    assert held == [2, 2, 2]  # the 6 concurrent requests went to the least busy servers
    assert sum(counts) == 60


def test_waiting_for_a_free_endpoint_slot_is_not_an_attempt_timeout() -> None:
    answered: list[str] = []
    lock = threading.Lock()
    with ScriptedOpenAIServer(_counting_responder(answered, lock), delay_s=0.3) as srv:
        model = create_model(
            f"openai:m@{srv.base_url},{srv.base_url}/",
            ModelOptions(timeout_s=1.0, extra=(("per_endpoint_concurrency", "1"),)),
        )
        outcomes = _run_engine(model, 8)
    assert [o.error for o in outcomes] == [None] * 8


# --------------------------------------------------------------------------- URL credentials


def test_pool_logs_snapshot_and_repr_mask_url_credentials(caplog: pytest.LogCaptureFixture) -> None:
    secret = "pool-SECRET-7781"
    urls = [f"http://u:{secret}@node1:8000/v1", f"http://node2:8000/v1?api-key={secret}"]
    pool = EndpointPool(urls, clock=FakeClock())
    with caplog.at_level("INFO", logger="socialbench.models.endpoint_pool"):
        for _ in urls:
            pool.release(pool.pick(), ok=False)
    model = MultiEndpointModel("m", urls)
    shown = caplog.text + repr(pool.snapshot()) + repr(model) + model.identity()
    assert "endpoint http://u:***@node1:8000/v1 failed" in caplog.text and secret not in shown


def test_an_endpoints_file_url_whose_port_is_no_port_is_refused_naming_the_line(tmp_path):
    from socialbench.errors import UsageError
    from socialbench.models.endpoints import read_endpoints_file

    path = tmp_path / "endpoints.txt"
    path.write_text("http://a:8000/v1\nhttp://b:99999/v1\n")
    with pytest.raises(UsageError, match=r"endpoints\.txt:2: 'http://b:99999/v1' has port 99999"):
        read_endpoints_file(path)
