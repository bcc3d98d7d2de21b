"""Reasoning models run in this process (``hf:``, ``vllm:``): the chat template's reasoning
switch, and the reasoning section of a reply.

``--reasoning-effort`` sets a template's ``enable_thinking`` switch (:func:`thinking_switch`:
``none`` off, any other level on, unset nothing passed). :func:`split_reasoning` takes the
``<think>...</think>`` section out of a reply (also when the template opened it in the
prompt): the answer parser reads what follows, the record keeps the reasoning apart.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from socialbench.models.base import FatalModelError
from socialbench.types import Generation, Usage

if TYPE_CHECKING:
    from socialbench.types import Request

#: The chat-template variable of hybrid reasoning models (Qwen3 and others).
THINKING_SWITCH = "enable_thinking"
THINK_START, THINK_END = "<think>", "</think>"


def takes_thinking_switch(template: str | None) -> bool:
    """Whether a chat template's source reads the ``enable_thinking`` switch."""
    return bool(template) and THINKING_SWITCH in str(template)


def thinking_switch(reasoning_effort: str | None) -> bool | None:
    """``--reasoning-effort`` as the template's on/off switch: ``none`` -> off, any other
    level -> on, unset -> None (the template's default; nothing is passed)."""
    if reasoning_effort is None:
        return None
    return reasoning_effort != "none"


def template_kwargs(template: str | None, reasoning_effort: str | None) -> dict[str, bool]:
    """The chat-template keyword arguments for a request: ``{"enable_thinking": ...}`` when the
    template takes the switch and the request sets an effort, else none."""
    switch = thinking_switch(reasoning_effort)
    if switch is None or not takes_thinking_switch(template):
        return {}
    return {THINKING_SWITCH: switch}


class TemplateSwitchMixin:
    """The reasoning switch of a model that renders its own chat template (``hf:``,
    ``vllm:``): the subclass sets ``spec``, ``_template`` (the template's source, None when
    unknown) and ``_warned_no_switch = False``."""

    spec: str
    _template: str | None
    _warned_no_switch: bool

    def _template_kwargs(self, request: Request) -> dict[str, bool]:
        """The reasoning switch for the chat template (:func:`template_kwargs`), warned about
        once (in the subclass's module log) when the run sets an effort and the template has
        no switch."""
        effort = request.config.reasoning_effort
        if effort is not None and not takes_thinking_switch(self._template) and not self._warned_no_switch:
            self._warned_no_switch = True
            logging.getLogger(type(self).__module__).warning(
                "%s: the chat template has no reasoning switch (enable_thinking); --reasoning-effort %s is not applied",
                self.spec,
                effort,
            )
        return template_kwargs(self._template, effort)


@dataclass(frozen=True)
class SplitReply:
    """A reply split into its answer and its reasoning section (None: the reply has none).
    ``open_ended``: the reply stopped inside its reasoning (no answer yet)."""

    answer: str
    reasoning: str | None = None
    open_ended: bool = False


def split_reasoning(text: str) -> SplitReply:
    """Take the ``<think>...</think>`` section out of a reply.

    * ``<think>R</think>A`` -> answer ``A``, reasoning ``R``;
    * ``R</think>A`` (the template opened the section in the prompt) -> the same;
    * ``<think>R`` with no end (cut off while thinking) -> no answer, reasoning ``R``,
      ``open_ended``;
    * anything else -> the text as the answer, no reasoning.

    Surrounding whitespace of both parts is stripped.

    >>> split_reasoning("<think>left is blocked</think> {\\"answer\\": \\"right\\"}")
    SplitReply(answer='{"answer": "right"}', reasoning='left is blocked', open_ended=False)
    """
    end = text.find(THINK_END)
    start = text.find(THINK_START)
    if end >= 0 and (start < 0 or start < end):
        head = text[:end]
        if start >= 0:
            head = head[start + len(THINK_START) :]
        return SplitReply(text[end + len(THINK_END) :].strip(), head.strip())
    if start >= 0 and end < 0 and not text[:start].strip():
        return SplitReply("", text[start + len(THINK_START) :].strip(), open_ended=True)
    return SplitReply(text)


def single_token_id(tokenizer: Any, token: str) -> int | None:
    """The id of ``token`` when the tokenizer's vocabulary has it as one token, else None."""
    try:
        value = tokenizer.get_vocab().get(token)
    except Exception:  # noqa: BLE001 - a tokenizer without get_vocab: no count
        return None
    return value if isinstance(value, int) else None


def reasoning_token_count(token_ids: list[int], end_id: int | None) -> int:
    """Tokens of the reasoning section: those up to and including the first ``</think>``
    token (0 when the vocabulary has no such single token or the reply has none)."""
    if end_id is None:
        return 0
    try:
        return token_ids.index(end_id) + 1
    except ValueError:
        return 0


def no_answer_message(open_ended: bool, n_tokens: int, finish_reason: str | None) -> str:
    """The ``empty_response`` message of a reply whose reasoning section left no answer."""
    where = "ends inside its reasoning section" if open_ended else "has no answer after its reasoning section"
    return (
        f"the reply {where} ({n_tokens} tokens, finish_reason={finish_reason}); "
        "raise --max-tokens or turn reasoning off (--reasoning-effort none)"
    )


def reply_generation(
    text: str, token_ids: list[int], prompt_tokens: int, think_end: int | None, finish_reason: str | None
) -> Generation | FatalModelError:
    """A generated reply (its decoded ``text`` and its ``token_ids``) -> the
    :class:`Generation` the answer parser reads (the reasoning section apart, its tokens
    counted by :func:`reasoning_token_count`), or ``empty_response`` when the reasoning
    section left no answer (:func:`no_answer_message`). One definition for ``hf:`` and
    ``vllm:``."""
    reply = split_reasoning(text)
    usage = Usage(
        prompt_tokens=prompt_tokens,
        completion_tokens=len(token_ids),
        reasoning_tokens=reasoning_token_count(token_ids, think_end) if reply.reasoning is not None else 0,
    )
    if reply.open_ended or not reply.answer.strip():  # the tokens were spent: kept on the record
        return FatalModelError(
            "empty_response",
            no_answer_message(reply.open_ended, len(token_ids), finish_reason),
            usage=usage,
            finish_reason=finish_reason,
        )
    return Generation(text=reply.answer, usage=usage, reasoning=reply.reasoning)
