"""Display labels of runs, and what tells apart runs whose labels would otherwise be the same.

Each run gets a short label from its model spec (``openai:gpt-4o@URL`` -> ``gpt-4o``) plus
its non-default settings, and its benchmark when the report mixes benchmarks. Runs that
still share a label (a sweep's cells) are named by the ``run.json`` settings that differ
between them, as ``eval`` spells the option (``gpt-4o (cot-img-with-bev, seed 2)``); only
when none differs is a number left. See docs/reading-the-report.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from socialbench.errors import UsageError
from socialbench.messages import terminal_safe

if TYPE_CHECKING:
    from socialbench.report.run_dir import RunDir

__all__ = ["KNOWN_NAMES", "assign_labels", "display_name", "settings_of", "telling_apart"]

#: Display names of the built-in baselines (the paper's row names where there is one).
KNOWN_NAMES = {
    "baseline:rule-based": "Rule-Based",
    "baseline:random": "Random",
    "baseline:waypoint-nearest": "Baseline: nearest candidate",
    "baseline:waypoint-straightest": "Baseline: straightest candidate",
    "baseline:waypoint-toward-goal": "Baseline: toward the goal",
    "baseline:waypoint-closest-to-goal": "Baseline: closest to the goal",
    "baseline:waypoint-constant-velocity": "Baseline: constant velocity",
    "human:oracle": "Human Oracle (run)",
    "human:average": "Sampled Human (own vote counted)",
    "mock:first-option": "Mock (first option)",
}


#: run.json's top-level fields that are a setting of the run, with eval's option name.
_TOP = {"seed": "seed", "protocol": "protocol", "limit": "limit", "epochs": "epochs", "data": "data"}
#: What a setting missing from run.json means (a run without ``--epochs`` is one epoch, one
#: without ``--limit`` asks every item, a model spec without ``@URL`` uses its default endpoint).
_DEFAULTS = {"epochs": "1", "limit": "none", "url": "default"}


@cache
def _benchmark_option_names() -> frozenset[str]:
    """Every benchmark's option names (run.json records them at its top level)."""
    from socialbench.benchmarks.base import benchmark_entries
    from socialbench.benchmarks.options import option_fields

    return frozenset(f.name for e in benchmark_entries() for f in option_fields(e.options))


def _shown(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ",".join(_shown(v) for v in value)
    return str(value)


def settings_of(run: Mapping[str, object]) -> dict[str, str]:
    """The run's settings from ``run.json``, by ``eval``'s option name (``seed``,
    ``max-side``, ``temperature``, ``perturb-strength``, a benchmark option, a
    ``--model-opt`` key) and what the short label leaves out of the model spec (``backend``,
    and ``url``, the endpoint after ``@`` with its credentials masked), each value as text. What the run did (status, times, versions)
    is not a setting."""
    out: dict[str, str] = {}

    def put(name: str, value: object) -> None:
        if value is None or isinstance(value, Mapping):
            return
        out[name.replace("_", "-")] = _shown(value)

    for key, value in run.items():
        if key == "model" and isinstance(value, str):
            # what the short label leaves out of the model spec: the backend and the endpoint
            prefix, sep, rest = value.partition(":")
            put("backend", prefix if sep else None)
            if "@" in rest:
                from socialbench.models.redact import redact_url

                put("url", redact_url(rest.split("@", 1)[1]))
        elif key in _TOP:
            put(_TOP[key], value)
        elif key == "image_policy" and isinstance(value, Mapping):
            size = value.get("size")
            if isinstance(size, (list, tuple)) and len(size) == 2:
                put("image-size", f"{size[0]}x{size[1]}")
            else:
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


def telling_apart(runs: Sequence[Mapping[str, object]]) -> list[str]:
    """For runs that share a label: for each, its settings that differ between them
    (``seed 2``, ``max-side 512, temperature 0.7``), in ``run.json``'s order; ``""`` for
    every run when none differs. A setting one run does not record reads as its default
    (``epochs 1``) or ``not recorded``."""
    settings = [settings_of(r) for r in runs]
    names = list(dict.fromkeys(n for s in settings for n in s))
    differ = [n for n in names if len({s.get(n) for s in settings}) > 1]
    return [", ".join(f"{n} {s.get(n, _DEFAULTS.get(n, 'not recorded'))}" for n in differ) for s in settings]


def display_name(spec: str) -> str:
    """Short display name of a model spec (see the module docstring)."""
    if spec in KNOWN_NAMES:
        return KNOWN_NAMES[spec]
    prefix, sep, rest = spec.partition(":")
    if not sep:
        return spec
    if prefix == "replay":
        p = Path(rest)
        return f"replay:{(p.parent.name if p.name == 'samples.jsonl' else p.name) or rest}"
    name = rest.split("@", 1)[0]
    if prefix in ("hf", "vllm") and "/" in name:
        name = name.rstrip("/").rsplit("/", 1)[-1]
    return name or spec


def assign_labels(runs: Sequence[RunDir], labels: Sequence[str] | None = None) -> None:
    """Give every run a unique display label (explicit ``labels`` first, in order). When
    the runs are of several benchmarks (e.g. ``roboteq-bj`` and ``roboteq-sg``) the derived
    labels name the benchmark too. Runs whose derived labels coincide (a sweep's cells) are
    told apart by the run.json settings that differ between them (``seed 2``,
    :mod:`socialbench.report.labels`); a number (``#2``) only when none does."""
    labels = list(labels or [])
    if len(labels) > len(runs):
        raise UsageError(f"{len(labels)} --label values for {len(runs)} runs; give at most one per run")
    mixed = len({r.benchmark for r in runs}) > 1
    derived: dict[str, list[int]] = {}  # label -> the runs it was derived for
    bases: list[str] = []
    for i, r in enumerate(runs):
        if i < len(labels) and labels[i]:
            bases.append(labels[i])
            continue
        v = ", ".join(p for p in ((r.benchmark or "unknown benchmark") if mixed else "", r.variant()) if p)
        bases.append(display_name(r.model) + (f" ({v})" if v else ""))
        derived.setdefault(bases[-1], []).append(i)
    # runs sharing a derived label (a sweep's cells) are named by the settings that differ
    for base, idx in derived.items():
        if len(idx) > 1:
            for i, extra in zip(idx, telling_apart([runs[i].run for i in idx])):
                if extra:
                    bases[i] = f"{base[:-1]}, {extra})" if base.endswith(")") else f"{base} ({extra})"
    seen: dict[str, int] = {}
    # a label is shown in tables, plots and messages: one from a file is made inert there
    bases = [terminal_safe(b) for b in bases]
    for r, base in zip(runs, bases):
        seen[base] = seen.get(base, 0) + 1
        r.label = base if seen[base] == 1 else f"{base} #{seen[base]}"
