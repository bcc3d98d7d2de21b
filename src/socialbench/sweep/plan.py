"""A sweep plan (YAML) and its checks: models, benchmarks, ``axes`` and ``options`` (every key
an option of ``socialbench eval``); the format is in docs/scale.md, "Sweeps".

A plan is read as untrusted input (:mod:`socialbench.sweep.plan_yaml`); the grid is counted
before it is built and refused above :data:`MAX_CELLS` cells (``--dry-run`` too); option
values go through eval's own check (:mod:`socialbench.sweep.plan_values`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from socialbench.errors import UsageError
from socialbench.sweep.plan_values import PlanValue, checked, coerce, nearest_option, option_key, option_types, refuse
from socialbench.sweep.plan_yaml import key_line, key_shown, read_plan_yaml, shown

#: Most cells a plan may have (models x benchmarks x the axes' values).
MAX_CELLS = 10_000

_PLAN_KEYS = {"models", "benchmarks", "axes", "options"}
_MODEL_KEYS = {"spec", "num_gpus", "num_cpus", "concurrency", "model_opt"}
_BENCH_KEYS = {"name", "data", "ignore_axes"}


@dataclass(frozen=True)
class ModelEntry:
    """One model of the plan with the resources each of its cells asks for."""

    spec: str
    num_gpus: float = 0.0
    num_cpus: float = 1.0
    concurrency: int | None = None
    model_opt: tuple[str, ...] = ()  # KEY=VALUE, as eval's --model-opt


@dataclass(frozen=True)
class BenchmarkEntry:
    """One benchmark of the plan: its data (None: bundled) and the axes it ignores."""

    name: str
    data: Path | None = None
    ignore_axes: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Plan:
    """A checked plan: its file, models, benchmarks, axes and fixed options (by eval name)."""

    path: Path
    models: tuple[ModelEntry, ...]
    benchmarks: tuple[BenchmarkEntry, ...]
    axes: dict[str, list[PlanValue]]
    options: dict[str, PlanValue]


def _unknown_key(path: Path, where: str, key: object, valid: set[str]) -> UsageError:
    """The refusal of a key the plan format does not have: its line, the nearest valid key."""
    near = nearest_option(key, valid) if isinstance(key, str) else None
    hint = f"did you mean `{near}`? " if near else ""
    return refuse(path, where, "unknown key", f"{hint}valid keys: {', '.join(sorted(valid))}", key_line(path, key))


def _once(path: Path, where: str, key: object, name: str, spelled: dict[str, object]) -> None:
    """Refuse ``key`` when an earlier key of the same mapping names the same eval option
    (``rag-k`` and ``rag_k``): only one of them would count."""
    if name in spelled:
        raise refuse(
            path,
            f"{where}.{key_shown(key)}",
            f"the same option as `{key_shown(spelled[name])}` (eval's --{name.replace('_', '-')})",
            "keep one of the two keys",
            key_line(path, key),
        )
    spelled[name] = key


def _checked_model(model: ModelEntry, path: Path, where: str) -> ModelEntry:
    """``model`` if ``socialbench eval`` would build it (a known backend, options it reads, a
    spec it takes: :func:`~socialbench.models.registry.check_model_spec`), else the refusal
    naming its entry and line: the plan is checked whole before any cell runs."""
    from socialbench.benchmarks.base import load_benchmark_code
    from socialbench.models.registry import check_model_spec

    load_benchmark_code()  # the benchmarks' code registers their own baselines
    pairs = [(key, value) for key, _, value in (kv.partition("=") for kv in model.model_opt)]
    try:
        check_model_spec(model.spec, pairs)
    except UsageError as exc:
        text = str(exc).replace("--model-opt ", "model_opt ", 1) if model.model_opt else str(exc)
        line = key_line(path, "model_opt") if model.model_opt and "model_opt " in text else None
        line = line or _spec_line(path, model.spec)
        raise refuse(path, where, text, "fix that model's entry under `models:`", line) from None
    return model


def _spec_line(path: Path, spec: str) -> int | None:
    """The line of the plan on which ``spec`` is written, or None."""
    from socialbench.sweep.plan_yaml import read_regular_bytes_text

    try:
        text = read_regular_bytes_text(path)
    except Exception:  # unreadable now: the refusal names the entry without a line
        return None
    for number, raw in enumerate(text.splitlines(), start=1):
        if spec in raw:
            return number
    return None


def _model(entry: object, path: Path, i: int) -> ModelEntry:
    where = f"models[{i}]"
    if isinstance(entry, str) and entry:
        return _checked_model(ModelEntry(entry), path, where)
    if not isinstance(entry, dict) or not isinstance(entry.get("spec"), str):
        raise refuse(path, where, "a model is a spec string or a mapping with `spec:`", "e.g. `- baseline:random`")
    unknown = sorted(set(entry) - _MODEL_KEYS)
    if unknown:
        raise _unknown_key(path, f"{where}.{unknown[0]}", unknown[0], _MODEL_KEYS)
    for key in ("num_gpus", "num_cpus"):
        v = entry.get(key, 0)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
            raise refuse(path, f"{where}.{key}", f"must be a number >= 0 (got {shown(v)})", "e.g. `num_gpus: 1`")
    conc = entry.get("concurrency")
    if conc is not None and (not isinstance(conc, int) or isinstance(conc, bool)):
        raise refuse(
            path, f"{where}.concurrency", f"must be a whole number >= 1 (got {shown(conc)})", "e.g. `concurrency: 32`"
        )
    checked("concurrency", conc, path, f"{where}.concurrency")
    opts = entry.get("model_opt") or {}
    if not isinstance(opts, dict):
        raise refuse(path, f"{where}.model_opt", "must be a mapping", "e.g. `model_opt: {dtype: bfloat16}`")
    model = ModelEntry(
        spec=entry["spec"],
        num_gpus=float(entry.get("num_gpus", 0)),
        num_cpus=float(entry.get("num_cpus", 1)),
        concurrency=conc,
        model_opt=tuple(f"{k}={v}" for k, v in opts.items()),
    )
    return _checked_model(model, path, where)


def _benchmark(entry: object, path: Path, i: int) -> BenchmarkEntry:
    from socialbench.benchmarks.base import benchmark_names

    where = f"benchmarks[{i}]"
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise refuse(path, where, "a benchmark is a name or a mapping with `name:`", "e.g. `- socialnav-sim`")
    unknown = sorted(set(entry) - _BENCH_KEYS)
    if unknown:
        raise _unknown_key(path, f"{where}.{unknown[0]}", unknown[0], _BENCH_KEYS)
    if entry["name"] not in benchmark_names():
        raise refuse(
            path,
            f"{where}.name",
            f"unknown benchmark {shown(entry['name'])}",
            f"use one of {', '.join(benchmark_names())}",
        )
    data = entry.get("data")
    if data is not None:
        if not isinstance(data, str) or not data:
            raise refuse(path, f"{where}.data", "must be a path", "e.g. `data: releases/roboteq`")
        data_path = Path(data).expanduser()
        data = data_path if data_path.is_absolute() else path.parent / data_path
    ignore = entry.get("ignore_axes") or []
    if not isinstance(ignore, list):
        raise refuse(path, f"{where}.ignore_axes", "must be a list of axis names", "e.g. `ignore_axes: [method]`")
    return BenchmarkEntry(entry["name"], data, frozenset(option_key(k, path, f"{where}.ignore_axes") for k in ignore))


def load_plan(path: Path) -> Plan:
    """Read and check ``path``; every mistake is a :class:`UsageError` naming the key."""
    raw = read_plan_yaml(path)
    if not isinstance(raw, dict):
        raise refuse(path, "top level", "a plan is a mapping", "give `models:`, `benchmarks:` and `axes:`")
    unknown = sorted(key_shown(k) for k in set(raw) - _PLAN_KEYS)
    if unknown:
        raise _unknown_key(path, unknown[0], unknown[0], _PLAN_KEYS)
    for key in ("models", "benchmarks"):
        if not isinstance(raw.get(key), list) or not raw[key]:
            raise refuse(path, key, "missing or empty", f"give a list, e.g. `{key}: [...]`")
    types = option_types()
    axes: dict[str, list[PlanValue]] = {}
    raw_axes = raw.get("axes") or {}
    if not isinstance(raw_axes, dict):
        raise refuse(
            path, "axes", "must be a mapping of option -> list of values", "e.g. `axes: {method: [independent, cot]}`"
        )
    spelled: dict[str, object] = {}
    for key, values in raw_axes.items():
        name = option_key(key, path, "axes")
        _once(path, "axes", key, name, spelled)
        if not isinstance(values, list) or not values:
            raise refuse(path, f"axes.{key}", "must be a non-empty list", f"e.g. `{key}: [{shown(values)}]`")
        axes[name] = [checked(name, coerce(v, types[name], path, f"axes.{key}"), path, f"axes.{key}") for v in values]
    options: dict[str, PlanValue] = {}
    raw_options = raw.get("options") or {}
    if not isinstance(raw_options, dict):
        raise refuse(path, "options", "must be a mapping of option -> value", "e.g. `options: {limit: 10}`")
    spelled = {}
    for key, value in raw_options.items():
        name = option_key(key, path, "options")
        _once(path, "options", key, name, spelled)
        if name in axes:
            raise refuse(path, f"options.{key}", "also an axis", "keep it in one of `axes:` and `options:`")
        options[name] = checked(name, coerce(value, types[name], path, f"options.{key}"), path, f"options.{key}")
    models = tuple(_model(m, path, i) for i, m in enumerate(raw["models"]))
    benchmarks = tuple(_benchmark(b, path, i) for i, b in enumerate(raw["benchmarks"]))
    for i, b in enumerate(benchmarks):
        stray = sorted(b.ignore_axes - set(axes))
        if stray:
            raise refuse(
                path, f"benchmarks[{i}].ignore_axes", f"{stray[0]} is not an axis", "list only keys of `axes:`"
            )
    cells = count_cells(len(models), len(benchmarks), axes)
    if cells > MAX_CELLS:
        raise refuse(
            path,
            "axes",
            f"the plan has {cells:,} cells (models x benchmarks x axis values), more than {MAX_CELLS:,}",
            "split it into several plans, or drop axis values",
        )
    return Plan(path, models, benchmarks, axes, options)


def count_cells(models: int, benchmarks: int, axes: Mapping[str, Sequence[object]]) -> int:
    """How many cells a grid has (models x benchmarks x every axis's values), counted
    without building it."""
    return models * benchmarks * math.prod(len(v) for v in axes.values())
