"""What tells apart runs whose labels would otherwise be the same.

A sweep's cells differ by the values of its axes (``seed: [0, 1, 2]``, ``max-side``,
``temperature``, ``--model-opt`` ...), which a run's label (model and variant) does not
show. Runs sharing a label are named by the settings in their ``run.json`` that differ
between them, as ``eval`` spells the option: ``gpt-4o (cot-img-with-bev, seed 2)``, not
``gpt-4o (cot-img-with-bev) #2``. Only when no recorded setting differs is a number left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

__all__ = ["settings_of", "telling_apart"]

#: run.json's top-level fields that are a setting of the run, with eval's option name.
_TOP = {"seed": "seed", "protocol": "protocol", "limit": "limit", "epochs": "epochs", "data": "data"}
#: What a setting missing from run.json means (a run without ``--epochs`` is one epoch).
_DEFAULTS = {"epochs": "1"}


@cache
def _benchmark_option_names() -> frozenset[str]:
    """Every benchmark's option names (run.json records them at its top level)."""
    from socialbench.benchmarks.base import benchmark_entries
    from socialbench.benchmarks.options import option_fields

    return frozenset(f.name for e in benchmark_entries() for f in option_fields(e.options))


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ",".join(_shown(v) for v in value)
    return str(value)


def settings_of(run: Mapping[str, Any]) -> dict[str, str]:
    """The run's settings from ``run.json``, by ``eval``'s option name (``seed``,
    ``max-side``, ``temperature``, ``perturb-strength``, a benchmark option, a
    ``--model-opt`` key), each value as text. What the run did (status, times, versions)
    is not a setting."""
    out: dict[str, str] = {}

    def put(name: str, value: Any) -> None:
        if value is None or isinstance(value, Mapping):
            return
        out[name.replace("_", "-")] = _shown(value)

    for key, value in run.items():
        if key in _TOP:
            put(_TOP[key], value)
        elif key == "image_policy" and isinstance(value, Mapping):
            put("max-side", value.get("max_side"))
        elif key in ("generation", "options", "model_options") and isinstance(value, Mapping):
            for k, v in value.items():
                put(str(k), v)
        elif key in _benchmark_option_names():
            put(key, value)  # a benchmark option recorded at the top level (method, images, ...)
    perturb = run.get("perturb")
    if isinstance(perturb, Mapping) and perturb.get("name"):
        put("perturb-strength", perturb.get("strength"))
    return out


def telling_apart(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """For runs that share a label: for each, its settings that differ between them
    (``seed 2``, ``max-side 512, temperature 0.7``), in ``run.json``'s order; ``""`` for
    every run when none differs. A setting one run does not record reads as its default
    (``epochs 1``) or ``not recorded``."""
    settings = [settings_of(r) for r in runs]
    names: list[str] = []
    for s in settings:
        names += [n for n in s if n not in names]
    differ = [n for n in names if len({s.get(n) for s in settings}) > 1]
    return [", ".join(f"{n} {s.get(n, _DEFAULTS.get(n, 'not recorded'))}" for n in differ) for s in settings]
