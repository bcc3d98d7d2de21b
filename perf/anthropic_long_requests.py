"""Requests the ``anthropic:`` backend sends per question when a reply takes longer than
``--timeout`` to generate, streamed (the default for such requests) and unstreamed
(``--model-opt stream=false``, the backend's old behaviour), and against a backend that
hangs (sends nothing).

A scripted Messages server (socialbench.testing.anthropic_server) generates each reply
slowly: streamed, its 11 events ``GAP`` s apart; unstreamed, the whole reply after
``11 * GAP`` s (the same generation time), beyond the timeout; every
request an attempt abandons is one the real API would still generate and bill. Each
question goes through the engine with ``--max-attempts 3``. Prints one row per case:
questions, requests the server received, requests per question, answered.

Usage: python perf/anthropic_long_requests.py [--questions 12] [--gap 0.2] [--timeout 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from socialbench.models.anthropic_messages import AnthropicModel
from socialbench.models.registry import ModelOptions, create_model
from socialbench.runner.engine import Engine, RetryPolicy
from socialbench.testing.anthropic_server import ScriptedAnthropicServer, stall
from socialbench.types import GenerationConfig, Request

PROMPT = 'Which way?\nPossible answers: "left", "right"\nRespond as {"answer": "<answer>"}'
#: Events of a streamed reply with thinking (message_start, 2 blocks of start/2 deltas/stop,
#: message_delta, message_stop).
EVENTS = 11
XHIGH = GenerationConfig(max_tokens=1024, temperature=None, reasoning_effort="xhigh")


async def _run(model: AnthropicModel, questions: int, timeout_s: float) -> int:
    engine = Engine(
        model, concurrency=questions, retry=RetryPolicy(max_attempts=3, base_delay_s=0.01, timeout_s=timeout_s)
    )
    try:
        outcomes = await asyncio.gather(
            *(engine.run(Request(prompt=f"{PROMPT}\n#{i}", config=XHIGH)) for i in range(questions))
        )
    finally:
        await model.aclose()
    return sum(o.error is None for o in outcomes)


def case(name: str, questions: int, gap: float, timeout_s: float, stream: str | None, hang: bool) -> None:
    generation_s = 0.0 if hang else EVENTS * gap
    with ScriptedAnthropicServer(delay_s=generation_s if stream == "false" else 0.0, event_gap_s=gap) as srv:
        if hang:
            srv.push(*[stall(3600.0) for _ in range(questions * 3)])
        extra = {"base_url": srv.base_url, **({"stream": stream} if stream else {})}
        model = create_model("anthropic:claude-test", ModelOptions(timeout_s=timeout_s, extra=tuple(extra.items())))
        assert isinstance(model, AnthropicModel)
        t0 = time.perf_counter()
        answered = asyncio.run(_run(model, questions, timeout_s))
        wall = time.perf_counter() - t0
        sent = srv.count
    print(f"{name:<34} {questions:>9} {sent:>8} {sent / questions:>12.2f} {answered:>8} {wall:>7.1f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--questions", type=int, default=12)
    p.add_argument("--gap", type=float, default=0.2, help="seconds between two events of a reply")
    p.add_argument("--timeout", type=float, default=1.0, help="--timeout of the run (seconds)")
    a = p.parse_args()
    print(f"{'case':<34} {'questions':>9} {'requests':>8} {'per question':>12} {'answered':>8} {'wall s':>7}")
    case("slow reply, streamed (default)", a.questions, a.gap, a.timeout, None, hang=False)
    case("slow reply, stream=false (old)", a.questions, a.gap, a.timeout, "false", hang=False)
    case("hanging backend, streamed", a.questions, a.gap, a.timeout, None, hang=True)


if __name__ == "__main__":
    main()
