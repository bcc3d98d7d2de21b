"""A run's generation settings: the benchmark's paper settings, changed by ``eval`` flags.

Each benchmark declares what its paper sent (``generation_config``). The ``eval`` flags
``--temperature``, ``--max-tokens``, ``--top-p`` and ``--reasoning-effort`` change one setting
each; ``default`` (or, for the numeric ones, ``none``) sends nothing, so the server's default
applies, while ``--reasoning-effort none`` is a value (reasoning off), not "not sent".
Imported by ``socialbench eval --help``: no heavy imports.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from socialbench.errors import UsageError
from socialbench.types import REASONING_EFFORTS, GenerationConfig

#: The eval parameters that set generation settings, by GenerationConfig field name.
GENERATION_FLAGS = ("temperature", "max_tokens", "top_p", "reasoning_effort")

#: Values that mean "send no value; the server's default applies".
NOT_SENT = "default"
_NOT_SENT_NUMBER = (NOT_SENT, "none")

#: Help text of each flag (the command line's and the docs').
FLAG_HELP = {
    "temperature": "sampling temperature >= 0, or `default` to send none (unset: the benchmark's paper setting)",
    "max_tokens": "most tokens a reply may have (>= 1), or `default` to send no limit (unset: the paper's)",
    "top_p": "nucleus sampling mass in (0, 1], or `default` to send none (unset: not sent)",
    "reasoning_effort": (
        f"{', '.join(REASONING_EFFORTS)} for reasoning models (`none` switches reasoning off where the model can), "
        "or `default` to send none (unset: not sent)"
    ),
}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def parse_setting(name: str, value: object) -> Any:
    """The value of generation flag ``name`` given as ``value`` (text from the command line,
    or a number from a sweep plan): a number or effort level, or None for "do not send".

    >>> parse_setting("temperature", "0.7"), parse_setting("max_tokens", "default")
    (0.7, None)
    """
    if name not in GENERATION_FLAGS:
        raise ValueError(f"not a generation setting: {name!r}")
    text = str(value).strip().lower() if not isinstance(value, (int, float)) or isinstance(value, bool) else None
    if name == "reasoning_effort":
        if text == NOT_SENT:
            return None
        if text not in REASONING_EFFORTS:
            raise UsageError(
                f"{_flag(name)} {value!r}: give one of {', '.join(REASONING_EFFORTS)}, or {NOT_SENT} to send none"
            )
        return text
    if text in _NOT_SENT_NUMBER:
        return None
    if name == "max_tokens":
        try:
            number = int(value if text is None else text)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            number = 0
        if number < 1 or (text is None and number != value):
            raise UsageError(f"{_flag(name)} {value!r}: give a whole number >= 1, or {NOT_SENT} to send no limit")
        return number
    try:
        real = float(value if text is None else text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        real = math.nan
    if name == "temperature" and not (math.isfinite(real) and real >= 0):
        raise UsageError(f"{_flag(name)} {value!r}: give a number >= 0 (0: greedy), or {NOT_SENT} to send none")
    if name == "top_p" and not (0 < real <= 1):
        raise UsageError(f"{_flag(name)} {value!r}: give a number in (0, 1], or {NOT_SENT} to send none")
    return real


@dataclass(frozen=True)
class GenerationOverrides:
    """The generation flags given on the command line, by field name: a value, or None for
    "do not send". A flag not given is absent (the benchmark's setting stays)."""

    given: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> GenerationOverrides:
        """The overrides among eval's option ``values`` by parameter name (None: not given)."""
        return cls(
            tuple(
                (name, parse_setting(name, values[name])) for name in GENERATION_FLAGS if values.get(name) is not None
            )
        )

    def __bool__(self) -> bool:
        return bool(self.given)

    def apply(self, config: GenerationConfig) -> GenerationConfig:
        """``config`` with the given settings replaced."""
        return dataclasses.replace(config, **dict(self.given)) if self.given else config

    def tag(self) -> str:
        """The overrides in a run folder's name: ``temperature-1-max-tokens-default``."""
        parts = []
        for name, value in self.given:
            shown = NOT_SENT if value is None else (f"{value:g}" if isinstance(value, float) else str(value))
            parts.append(f"{name.replace('_', '-')}-{shown}")
        return "-".join(parts)

    def as_dict(self) -> dict[str, Any]:
        """For run records and ``repr``: each given flag and its value (None: not sent)."""
        return dict(self.given)
