"""Helpers of the Inspect AI tests: an Inspect mock model whose replies are a function of the
prompt, and an in-process ``inspect eval``."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ChatMessageUser, ContentText, Model, ModelOutput, ModelUsage, get_model

_POSSIBLE = re.compile(r"^Possible answers:\s*(.*)$", re.MULTILINE)


def prompt_text(messages: list[ChatMessage]) -> str:
    """The text of the last user message (the prompt socialbench built)."""
    user = [m for m in messages if isinstance(m, ChatMessageUser)][-1]
    if isinstance(user.content, str):
        return user.content
    return "".join(c.text for c in user.content if isinstance(c, ContentText))


def varied_answer(prompt: str) -> str:
    """An option of the prompt chosen by a hash of the prompt (so answers vary between
    questions and items, and a prompt that changes changes the answer), as JSON; RobotEQ's
    scene prompts get socialbench's first-option reply."""
    from socialbench.models.mock import first_option_answer

    m = _POSSIBLE.search(prompt)
    if not m:
        return first_option_answer(prompt)
    options = re.findall(r'"([^"]*)"', m.group(1))
    pick = options[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % len(options)]
    return json.dumps({"answer": [pick] if '"answer": ["' in prompt else pick})


def mock_model(answer: Callable[[str], str]) -> Model:
    """Inspect's ``mockllm/model`` replying ``answer(prompt)`` (with token counts given, so
    that mockllm counts none itself)."""

    def reply(messages: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        out = ModelOutput.from_content(model="mockllm", content=answer(prompt_text(messages)))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=reply)


def run_inspect(task: Task, model: Model, log_dir: Path) -> EvalLog:
    """``inspect eval`` of ``task`` in this process; the finished log (read back from disk)."""
    from inspect_ai.log import read_eval_log

    (log,) = eval(task, model=model, log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    return read_eval_log(log.location)


class InFlight:
    """Counts the calls of an Inspect model that are inside its provider at once (each call
    yields to the event loop until ``cap`` calls are in, or a bounded number of turns
    passed, so that calls sent together are seen together)."""

    def __init__(self, model: Model, cap: int) -> None:
        self.cap, self.now, self.peak = cap, 0, 0
        self._generate = model.api.generate
        model.api.generate = self._counted  # type: ignore[method-assign]

    async def _counted(self, *args: Any, **kwargs: Any) -> Any:
        import asyncio

        self.now += 1
        self.peak = max(self.peak, self.now)
        try:
            for _ in range(1000):  # turns of the event loop, not time
                if self.now >= self.cap:
                    break
                await asyncio.sleep(0)
            return await self._generate(*args, **kwargs)
        finally:
            self.now -= 1
