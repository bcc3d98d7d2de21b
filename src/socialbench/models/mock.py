"""``mock:`` — an in-process model for dry runs and tests (after Inspect AI's mockllm).

``mock:first-option`` answers the first valid option of every benchmark's prompt shape as
JSON: the first option on the prompt's ``Possible answers:`` line (SocialNav-SUB, the waypoint
task, RobotEQ per behavior and grounding), or, for a prompt that lists ``Candidate
behaviors:`` and asks for every behavior's label (RobotEQ's scene prompt), the first label
of the reply example (``"<proper|improper>"``) for every listed behavior number. A prompt of
no known shape is answered ``{"answer": "ok"}``. ``mock:echo`` answers the prompt text. Tests may script it: each queued action is
either text to return, a :class:`ModelError` to raise, or a ``(delay_s, action)`` pair.
It goes through the engine, cache and parser like any remote model (``cacheable = True``).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import deque
from collections.abc import Callable
from typing import Any

from socialbench.errors import UsageError
from socialbench.models.base import ModelError
from socialbench.models.registry import ModelOptions, register
from socialbench.types import Generation, Request, Usage

_POSSIBLE = re.compile(r"^Possible answers:\s*(.*)$", re.MULTILINE)
#: A listing of numbered behaviors: ``Candidate behaviors:`` then ``[k] text`` lines.
_BEHAVIORS = re.compile(r"^Candidate behaviors:[ \t]*\n((?:\[[^\]\n]+\][^\n]*(?:\n|$))+)", re.MULTILINE)
_BEHAVIOR_KEY = re.compile(r"^\[([^\]\n]+)\]", re.MULTILINE)
#: The labels of a reply example, ``"<proper|improper>"``: the first is the one answered.
_LABEL_CHOICES = re.compile(r'"<([^"<>|]+)\|[^"<>]*>"')


def _behaviors_answer(prompt: str) -> str | None:
    """Every listed behavior number mapped to the first label of the prompt's reply
    example, or None when the prompt lists no behaviors or names no labels."""
    listing = _BEHAVIORS.search(prompt)
    label = _LABEL_CHOICES.search(prompt)
    if listing is None or label is None:
        return None
    keys = _BEHAVIOR_KEY.findall(listing.group(1))
    return json.dumps({"answer": {k.strip(): label.group(1) for k in keys}})


def first_option_answer(prompt: str) -> str:
    """The first valid option of ``prompt`` as a JSON reply (see the module docstring)."""
    m = _POSSIBLE.search(prompt)
    if not m:
        return _behaviors_answer(prompt) or json.dumps({"answer": "ok"})
    options = re.findall(r'"([^"]*)"', m.group(1))
    first = options[0] if options else ""
    if '"answer": ["' in prompt:
        return json.dumps({"answer": [first]})
    return json.dumps({"answer": first})


class MockModel:
    cacheable = True
    needs_prompt = True

    def __init__(self, spec: str, responder: Callable[[Request], str]):
        self.spec = spec
        self._responder = responder
        self.script: deque[Any] = deque()
        self.calls: list[Request] = []

    def identity(self) -> str:
        return self.spec

    async def generate(self, request: Request) -> Generation:
        self.calls.append(request)
        action = self.script.popleft() if self.script else None
        if isinstance(action, tuple):
            delay, action = action
            await asyncio.sleep(delay)
        if isinstance(action, ModelError):
            raise action
        text = action if isinstance(action, str) else self._responder(request)
        return Generation(
            text=text, usage=Usage(prompt_tokens=len(request.prompt) // 4, completion_tokens=len(text) // 4)
        )

    async def aclose(self) -> None:
        return None


_RESPONDERS: dict[str, Callable[[Request], str]] = {
    "first-option": lambda r: first_option_answer(r.prompt),
    "echo": lambda r: r.prompt,
}


def _mock_name(rest: str) -> str:
    """The mock's name (``first-option`` when none is given), or the refusal of an unknown one."""
    name = rest or "first-option"
    if name not in _RESPONDERS:
        raise UsageError(f"mock:{name} is unknown; use mock:first-option or mock:echo")
    return name


@register(
    "mock",
    summary="in-process mock model for dry runs (first-option | echo)",
    example="mock:first-option",
    check_rest=_mock_name,
)
def make_mock(rest: str, options: ModelOptions) -> MockModel:
    name = _mock_name(rest)
    return MockModel(f"mock:{name}", _RESPONDERS[name])
