"""The ``messages.create`` arguments of one Anthropic request: the user turn (prompt text
and base64 image blocks), ``system``, ``max_tokens``, the sampling settings, thinking
(``enabled`` with a budget, ``adaptive``, ``disabled``) with its rules and
``output_config.effort`` (sent in ``extra_body``), and what a 400 answer teaches
(:func:`refusal_lesson`) for the rest of the run (:class:`Learned`). Pure;
:mod:`socialbench.models.anthropic_messages` sends them.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from socialbench.prompting.turns import user_content
from socialbench.types import EncodedImage, Request


def image_block(image: EncodedImage) -> dict[str, object]:
    """A base64 ``image`` content block for an encoded image."""
    return {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": image.mime,
            "data": base64.b64encode(image.data).decode("ascii"),
        },
    }


#: Extended-thinking budgets (``budget_tokens``) of each ``--reasoning-effort`` level; ``none``
#: sends ``thinking: {"type": "disabled"}``. The API's smallest budget is 1024.
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}
MIN_THINKING_BUDGET = 1024
#: ``--reasoning-effort`` as the Messages API's ``output_config.effort`` (its values: low,
#: medium, high, xhigh, max); ``minimal`` has no level of its own and is sent as ``low``.
EFFORTS = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh"}
#: Thinking allows ``top_p`` only from 0.95 (or unset) and ``temperature`` only 1.
MIN_TOP_P_WITH_THINKING = 0.95
#: Sampling settings the backend leaves out when the server refuses them (:func:`refused_setting`).
ADAPTABLE_SETTINGS = ("temperature", "top_p")
#: The SDK's estimate of generation speed (its long-request guard: an hour per 128,000
#: output tokens) and the longest it lets a request go unstreamed (10 minutes).
SDK_SECONDS_PER_TOKEN = 3600 / 128_000
SDK_NONSTREAMING_LIMIT_S = 600.0

#: A refused setting named in an error message: "`temperature` is deprecated for this
#: model." (Anthropic's words), or "... is not supported" as proxies put it.
_DEPRECATED = re.compile(r"`?\b(temperature|top_p)\b`? (?:is deprecated|is not supported|is no longer supported)")
#: "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
_NOT_BOTH = re.compile(r"`?temperature`? and `?top_p`? cannot both be specified")
#: '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and
#: "output_config.effort" to control thinking behavior.' (Claude Opus 4.7 and later), and the
#: same words for ``disabled`` on models whose thinking cannot be turned off.
_THINKING_TYPE_REFUSED = re.compile(r'"?thinking\.type\.(enabled|disabled)"? is not supported')
#: "max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for MODEL".
_MAX_TOKENS_LIMIT = re.compile(r"max_tokens:? *(\d+) *> *(\d+),? which is the maximum allowed number of output tokens")
#: A refused ``output_config.effort`` (a model without the effort setting, or a level it lacks).
_EFFORT_REFUSED = re.compile(
    r"\beffort\b.*\b(?:not supported|not available|unsupported|does not support)|"
    r"\b(?:not supported|unsupported|does not support)\b.*\beffort\b"
)


@dataclass
class Learned:
    """What this run's 400 answers taught, applied to every request after it (one per
    model object, shared by concurrent requests)."""

    #: Sampling settings refused (:data:`ADAPTABLE_SETTINGS`): no longer sent.
    dropped: set[str] = field(default_factory=set)
    #: The model takes only ``thinking: {"type": "adaptive"}`` (it refused ``enabled``).
    adaptive: bool = False
    #: The model refused ``thinking: {"type": "disabled"}``: ``--reasoning-effort none`` sends no thinking.
    no_disabled: bool = False
    #: The model refused ``output_config.effort``: not sent.
    no_effort: bool = False
    #: The model's largest ``max_tokens`` (from its 400), when one was exceeded.
    max_output: int | None = None


@dataclass(frozen=True)
class Lesson:
    """What one 400 answer teaches: ``setting`` (the name run.json's ``generation_adapted``
    keys it by), ``value`` (what was refused, or the limit found) and what is done now."""

    setting: str
    value: object
    done: str


def refused_setting(status: int, message: str, sent: Mapping[str, object]) -> str:
    """The sampling setting (of :data:`ADAPTABLE_SETTINGS`) a 400 answer refuses, if ``sent``
    (the request's ``extra_body``) carried it; '' otherwise. Read from the message, in
    any wrapping a proxy adds: a deprecated setting is that setting; "cannot both be
    specified" is ``top_p`` (temperature is what the benchmark declares).

    >>> refused_setting(400, "`temperature` is deprecated for this model.", {"temperature": 0.0})
    'temperature'
    >>> msg = "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
    >>> refused_setting(400, msg, {"temperature": 0.0, "top_p": 0.9})
    'top_p'
    >>> refused_setting(400, "max_tokens: must be an integer >= 1", {"temperature": 0.0})
    ''
    """
    if status != 400:
        return ""
    if _NOT_BOTH.search(message):
        return "top_p" if "top_p" in sent else ""
    found = _DEPRECATED.search(message)
    return found.group(1) if found and found.group(1) in sent else ""


def refusal_lesson(status: int, message: str, params: Mapping[str, object]) -> Lesson | None:
    """What a 400 answer to a request sent with ``params`` teaches, or None (a bad request
    of another kind). Read from the API's words, in any wrapping a proxy adds:

    * ``"thinking.type.enabled" is not supported`` -> thinking goes ``adaptive``;
    * ``"thinking.type.disabled" is not supported`` -> ``none`` sends no thinking;
    * ``max_tokens: N > M, which is the maximum allowed ...`` -> ``max_tokens`` at most M;
    * an effort not supported -> ``output_config.effort`` is not sent;
    * a refused sampling setting (:func:`refused_setting`) -> not sent.

    >>> msg = ('"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" '
    ...        'and "output_config.effort" to control thinking behavior.')
    >>> refusal_lesson(400, msg, {"extra_body": {"thinking": {"type": "enabled", "budget_tokens": 2048}}}).setting
    'thinking'
    >>> refusal_lesson(400, "max_tokens: 33792 > 32000, which is the maximum allowed number of output tokens for "
    ...                "claude-opus-4-1", {"max_tokens": 33792}).value
    32000
    """
    if status != 400:
        return None
    extra = params.get("extra_body")
    sent: Mapping[str, object] = extra if isinstance(extra, Mapping) else {}
    thinking = sent.get("thinking")
    kind = thinking.get("type") if isinstance(thinking, Mapping) else None
    refused = _THINKING_TYPE_REFUSED.search(message)
    if refused and refused.group(1) == kind == "enabled":
        return Lesson("thinking", thinking, 'sent as {"type": "adaptive"} (the model takes only adaptive thinking)')
    if refused and refused.group(1) == kind == "disabled":
        return Lesson("thinking", thinking, "not sent for --reasoning-effort none (the model cannot turn thinking off)")
    limit = _MAX_TOKENS_LIMIT.search(message)
    if limit and isinstance(params.get("max_tokens"), int):
        return Lesson("max_tokens", int(limit.group(2)), f"capped at {limit.group(2)} (the model's output limit)")
    output_config = sent.get("output_config")
    if isinstance(output_config, Mapping) and "effort" in output_config and _EFFORT_REFUSED.search(message):
        effort = output_config["effort"]
        return Lesson("reasoning_effort", effort, f"output_config.effort not sent ({effort!r} refused)")
    setting = refused_setting(status, message, sent)
    if setting:
        return Lesson(setting, sent[setting], f"not sent ({sent[setting]!r} refused, the server's default applies)")
    return None


def learn(learned: Learned, lesson: Lesson) -> bool:
    """Apply ``lesson`` to ``learned``; False when it was known already (nothing changes:
    a concurrent request was refused for the same reason)."""
    if lesson.setting == "thinking":
        adaptive = isinstance(lesson.value, Mapping) and lesson.value.get("type") == "enabled"
        if (learned.adaptive if adaptive else learned.no_disabled) is True:
            return False
        if adaptive:
            learned.adaptive = True
        else:
            learned.no_disabled = True
        return True
    if lesson.setting == "max_tokens":
        limit = int(lesson.value)  # type: ignore[call-overload]
        if learned.max_output is not None and learned.max_output <= limit:
            return False
        learned.max_output = limit
        return True
    if lesson.setting == "reasoning_effort":
        known, learned.no_effort = learned.no_effort, True
        return not known
    if lesson.setting in learned.dropped:
        return False
    learned.dropped.add(lesson.setting)
    return True


def thinking_budget(request: Request, fixed: int | None = None) -> int | None:
    """The thinking budget of a request: ``fixed`` (``--model-opt thinking_budget``), else
    the budget of its ``reasoning_effort`` (:data:`THINKING_BUDGETS`), else None (no thinking)."""
    if fixed is not None:
        return fixed
    effort = request.config.reasoning_effort
    return THINKING_BUDGETS.get(effort) if effort is not None else None


def should_stream(max_tokens: int, timeout_s: float) -> bool:
    """Whether a request is streamed: when the SDK's own estimate of its generation time
    (:data:`SDK_SECONDS_PER_TOKEN` per output token) passes the read timeout or the
    10 minutes the SDK lets a request go unstreamed. Unstreamed, such a request would be
    abandoned at the timeout while the API kept generating (and billing) it, and then sent
    again; streamed, the timeout is the longest wait between two events.

    >>> should_stream(1024, 120.0), should_stream(33792, 120.0)
    (False, True)
    """
    return max_tokens * SDK_SECONDS_PER_TOKEN > min(timeout_s, SDK_NONSTREAMING_LIMIT_S)


def build_params(
    model: str,
    request: Request,
    *,
    images_first: bool = False,
    send_temperature: bool = True,
    budget: int | None = None,
    adapted: dict[str, str] | None = None,
    dropped: frozenset[str] = frozenset(),
    learned: Learned | None = None,
) -> dict[str, Any]:
    """Keyword arguments of ``messages.create`` for a request (pure but for ``adapted``).

    The request's ``temperature`` and ``top_p`` go in ``extra_body`` when set, except those
    in ``dropped`` or ``learned.dropped`` (refused by the server earlier) and the
    temperature when ``send_temperature`` is false (written into ``adapted``).

    ``budget``: thinking with that ``budget_tokens`` (``{"type": "adaptive"}`` instead once
    the model refused ``enabled``: ``learned.adaptive``). Its rules are kept, and each
    change they force is written into ``adapted`` (setting -> what was done): the API
    needs ``max_tokens`` > ``budget_tokens``, so ``max_tokens`` is the budget plus the
    request's limit (the answer keeps its room, adaptive thinking the same total); a
    temperature other than 1 and a ``top_p`` below 0.95 are not sent. ``max_tokens`` stays
    within ``learned.max_output`` (the budget shrinks with it). ``reasoning_effort`` also
    goes as ``output_config.effort`` (:data:`EFFORTS`) unless refused; ``none`` sends
    ``thinking: {"type": "disabled"}`` unless refused.
    """
    learned = learned or Learned()
    dropped = dropped | frozenset(learned.dropped)
    cfg = request.config
    text = {"type": "text", "text": request.prompt}
    images = [image_block(img) for img in request.images]
    content: Any = user_content(text, images, images_first) if images else request.prompt
    answer = cfg.max_tokens_or()
    max_tokens = answer + (budget or 0)
    notes: dict[str, str] = {}
    if budget is not None:
        notes["max_tokens"] = (
            f"sent as thinking budget + max_tokens ({budget} + {answer}): thinking needs room beside the answer"
        )
    if learned.max_output is not None and max_tokens > learned.max_output:
        max_tokens = learned.max_output
        if budget is not None:
            budget = max(MIN_THINKING_BUDGET, min(budget, max_tokens - answer, max_tokens - 1))
        notes["max_tokens"] = f"capped at {max_tokens} (the model's output limit)" + (
            f", thinking budget {budget}" if budget is not None else ""
        )
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": content}],
    }
    extra: dict[str, Any] = {}  # sent through extra_body: SDKs of the declared range lack these arguments
    effort = cfg.reasoning_effort
    if budget is not None:
        if learned.adaptive:
            extra["thinking"] = {"type": "adaptive"}
        else:
            extra["thinking"] = {"type": "enabled", "budget_tokens": budget}
    elif effort == "none" and not learned.no_disabled:
        extra["thinking"] = {"type": "disabled"}
    if effort in EFFORTS and not learned.no_effort:
        extra["output_config"] = {"effort": EFFORTS[effort]}
        if EFFORTS[effort] != effort:
            notes["reasoning_effort"] = f"sent as output_config.effort {EFFORTS[effort]!r} (the API has no {effort!r})"
    if request.system:
        params["system"] = request.system
    if not send_temperature and cfg.temperature is not None:
        notes["temperature"] = f"not sent ({cfg.temperature!r}): --model-opt send_temperature=false"
    elif cfg.temperature is not None and "temperature" not in dropped:
        if budget is not None and cfg.temperature != 1:
            notes["temperature"] = f"not sent ({cfg.temperature!r}): thinking allows only temperature 1"
        else:
            extra["temperature"] = cfg.temperature
    if cfg.top_p is not None and "top_p" not in dropped:
        if budget is not None and cfg.top_p < MIN_TOP_P_WITH_THINKING:
            notes["top_p"] = f"not sent ({cfg.top_p!r}): thinking allows top_p from 0.95 only"
        else:
            extra["top_p"] = cfg.top_p
    if extra:
        params["extra_body"] = extra
    if adapted is not None:
        for name, note in notes.items():
            adapted.setdefault(name, note)
    return params
