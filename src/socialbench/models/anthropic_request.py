"""The ``messages.create`` arguments of one Anthropic request: the user turn (prompt text
and base64 image blocks), ``system``, ``max_tokens``, the sampling settings (sent in
``extra_body``) and extended thinking with its rules, and which setting a 400 answer
refuses (:func:`refused_setting`). Pure; :mod:`socialbench.models.anthropic_messages` sends
them.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
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
#: sends no thinking. The API's smallest budget is 1024.
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}
MIN_THINKING_BUDGET = 1024
#: Extended thinking allows ``top_p`` only from 0.95 (or unset) and ``temperature`` only 1.
MIN_TOP_P_WITH_THINKING = 0.95
#: Sampling settings the backend leaves out when the server refuses them (:func:`refused_setting`).
ADAPTABLE_SETTINGS = ("temperature", "top_p")

#: A refused setting named in an error message: "`temperature` is deprecated for this
#: model." (Anthropic's words), or "... is not supported" as proxies put it.
_DEPRECATED = re.compile(r"`?\b(temperature|top_p)\b`? (?:is deprecated|is not supported|is no longer supported)")
#: "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
_NOT_BOTH = re.compile(r"`?temperature`? and `?top_p`? cannot both be specified")


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


def thinking_budget(request: Request, fixed: int | None = None) -> int | None:
    """The thinking budget of a request: ``fixed`` (``--model-opt thinking_budget``), else
    the budget of its ``reasoning_effort`` (:data:`THINKING_BUDGETS`), else None (no thinking)."""
    if fixed is not None:
        return fixed
    effort = request.config.reasoning_effort
    return THINKING_BUDGETS.get(effort) if effort is not None else None


def build_params(
    model: str,
    request: Request,
    *,
    images_first: bool = False,
    send_temperature: bool = True,
    budget: int | None = None,
    adapted: dict[str, str] | None = None,
    dropped: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Keyword arguments of ``messages.create`` for a request (pure but for ``adapted``).

    The request's ``temperature`` and ``top_p`` go in ``extra_body`` when set, except those
    in ``dropped`` (refused by the server earlier) and the temperature when
    ``send_temperature`` is false (written into ``adapted``).

    ``budget``: extended thinking with that ``budget_tokens``. Its rules are kept, and each
    change they force is written into ``adapted`` (setting -> what was done): the API
    needs ``max_tokens`` > ``budget_tokens``, so ``max_tokens`` is the budget plus the
    request's limit (the answer keeps its room); a temperature other than 1 and a
    ``top_p`` below 0.95 are not sent.
    """
    cfg = request.config
    text = {"type": "text", "text": request.prompt}
    images = [image_block(img) for img in request.images]
    content: Any = user_content(text, images, images_first) if images else request.prompt
    max_tokens = cfg.max_tokens_or()
    if budget is not None:
        max_tokens += budget
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": content}],
    }
    notes: dict[str, str] = {}
    extra: dict[str, Any] = {}  # sent through extra_body: SDKs of the declared range lack these arguments
    if budget is not None:
        extra["thinking"] = {"type": "enabled", "budget_tokens": budget}
        notes["max_tokens"] = (
            f"sent as thinking budget + max_tokens ({budget} + {cfg.max_tokens_or()}): "
            "extended thinking needs max_tokens > budget_tokens"
        )
    if request.system:
        params["system"] = request.system
    if not send_temperature and cfg.temperature is not None:
        notes["temperature"] = f"not sent ({cfg.temperature!r}): --model-opt send_temperature=false"
    elif cfg.temperature is not None and "temperature" not in dropped:
        if budget is not None and cfg.temperature != 1:
            notes["temperature"] = f"not sent ({cfg.temperature!r}): extended thinking allows only temperature 1"
        else:
            extra["temperature"] = cfg.temperature
    if cfg.top_p is not None and "top_p" not in dropped:
        if budget is not None and cfg.top_p < MIN_TOP_P_WITH_THINKING:
            notes["top_p"] = f"not sent ({cfg.top_p!r}): extended thinking allows top_p from 0.95 only"
        else:
            extra["top_p"] = cfg.top_p
    if extra:
        params["extra_body"] = extra
    if adapted is not None:
        for name, note in notes.items():
            adapted.setdefault(name, note)
    return params
