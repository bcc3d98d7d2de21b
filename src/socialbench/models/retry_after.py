"""How long a server asks a client to wait before it sends again, in every spelling that
servers and proxies use: ``Retry-After`` (seconds or an HTTP date), ``retry-after-ms``
(OpenAI, Azure), LiteLLM's copies of the upstream's headers (``llm_provider-retry-after``,
``llm_provider-retry-after-ms``), and OpenAI's ``x-ratelimit-reset-requests`` /
``-tokens`` of an exhausted limit (docs/models.md, "A slow server is not flooded").
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Mapping

__all__ = ["parse_duration", "parse_retry_after"]

#: The spellings of Retry-After: the standard header, OpenAI's and Azure's milliseconds,
#: and LiteLLM's copies of the upstream's headers (it forwards them prefixed ``llm_provider-``).
_RETRY_AFTER_HEADERS = (
    ("retry-after-ms", 1000.0),
    ("retry-after", 1.0),
    ("llm_provider-retry-after-ms", 1000.0),
    ("llm_provider-retry-after", 1.0),
)
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def parse_duration(text: str) -> float | None:
    """Seconds in a rate-limit reset value: a number of seconds, or OpenAI's Go-style
    duration (``6m0s``, ``1.5s``, ``20ms``); None when it is neither.

    >>> [parse_duration(t) for t in ("2", "6m0s", "1h", "20ms", "1m30.5s", "soon")]
    [2.0, 360.0, 3600.0, 0.02, 90.5, None]
    """
    text = text.strip().lower()
    try:
        return float(text)
    except ValueError:
        pass
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    return sum(float(n) * scale[u] for n, u in parts)


def _rate_limit_reset(lower: Mapping[str, str]) -> float | None:
    """Seconds until an exhausted rate limit resets, from ``x-ratelimit-reset-requests`` /
    ``-tokens`` (OpenAI's, also as LiteLLM's ``llm_provider-`` copies): only a limit whose
    ``x-ratelimit-remaining-*`` is 0, or is not said, counts; the longest wait wins."""
    waits: list[float] = []
    for prefix in ("", "llm_provider-"):
        for limit in ("requests", "tokens"):
            reset = lower.get(f"{prefix}x-ratelimit-reset-{limit}")
            remaining = lower.get(f"{prefix}x-ratelimit-remaining-{limit}")
            seconds = parse_duration(reset) if reset is not None else None
            if seconds is not None and seconds >= 0 and (remaining is None or remaining.strip() == "0"):
                waits.append(seconds)
    return max(waits) if waits else None


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds to wait, from the first of :data:`_RETRY_AFTER_HEADERS` present (seconds,
    milliseconds or an HTTP date), else from an exhausted ``x-ratelimit-reset-*``
    (:func:`_rate_limit_reset`); None when the reply says nothing."""
    if not headers:
        return None
    lower = {str(k).lower(): str(v) for k, v in headers.items()}
    for name, divisor in _RETRY_AFTER_HEADERS:
        value = lower.get(name)
        if value is None:
            continue
        try:
            seconds = float(value.strip()) / divisor
        except ValueError:
            if divisor != 1.0:
                continue
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError):
                continue
            seconds = when.timestamp() - (time.time() if now is None else now)
        if seconds == seconds and seconds >= 0:  # not NaN, not negative
            return seconds
        return 0.0
    return _rate_limit_reset(lower)
