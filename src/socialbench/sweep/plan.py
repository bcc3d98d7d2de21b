"""A sweep plan (YAML) and its cells.

A plan names models, benchmarks and the axes to cross; every key of ``axes`` and ``options``
is an option of ``socialbench eval`` (``method``, ``images``, ``strategy``, ``perturb``,
``perturb-strength``, ``rag-backend``, ``rag-k``, ``seed``, ``limit``, ...)::

    models:
      - baseline:random
      - spec: vllm:Qwen/Qwen2.5-VL-3B-Instruct
        num_gpus: 1          # Ray resources of each of its cells (num_cpus too)
        concurrency: 64      # eval's --concurrency for its cells
        model_opt: {max_model_len: 8192}
    benchmarks:
      - socialnav-sim
      - {name: roboteq-bj, data: releases/roboteq, ignore_axes: [method]}
    axes: {method: [independent, cot], strategy: [standard, cot]}
    options: {limit: 20}     # the same for every cell

A benchmark that refuses an axis value (``--method`` on RobotEQ) refuses the plan, naming the
key, unless that benchmark lists the key in ``ignore_axes``: it then runs with eval's default
for it, once. Relative ``data`` paths are read from the plan file's folder.
"""

from __future__ import annotations

import itertools
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from socialbench.errors import SocialbenchError, UsageError

#: eval parameters a plan sets elsewhere (models:, benchmarks:, the sweep's --out).
_NOT_AXES = {
    "benchmark": "list benchmarks under `benchmarks:`",
    "model": "list models under `models:`",
    "data": "give a benchmark's data as `{name: ..., data: PATH}` under `benchmarks:`",
    "out_dir": "the sweep names each cell's run directory under its --out",
    "model_opt": "give `model_opt: {KEY: VALUE}` in that model's entry under `models:`",
    "progress": "use the sweep's --progress/--no-progress",
}
#: eval options of every run that the run directory's variant name already encodes.
_IN_VARIANT = {"perturb", "perturb_strength"}
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
class Cell:
    """One run of the sweep: eval's option values (by parameter name) and its run directory."""

    benchmark: str
    model: ModelEntry
    values: dict[str, Any] = field(hash=False)
    run_dir: Path = Path()

    @property
    def name(self) -> str:
        """``BENCHMARK/MODEL/VARIANT``: the run directory below the sweep folder."""
        return "/".join(self.run_dir.parts[-3:])


@dataclass(frozen=True)
class Plan:
    """A checked plan: its file, models, benchmarks, axes and fixed options (by eval name)."""

    path: Path
    models: tuple[ModelEntry, ...]
    benchmarks: tuple[BenchmarkEntry, ...]
    axes: dict[str, list[Any]]
    options: dict[str, Any]


def _refuse(path: Path, where: str, what: str, fix: str) -> UsageError:
    return UsageError(f"{path}: {where}: {what}; {fix}")


def eval_option_names() -> dict[str, str]:
    """Every name a plan may use for an eval option (``rag-k``, ``rag_k``, ``--rag-k``) ->
    eval's parameter name."""
    from socialbench.cli import eval_parameters

    names: dict[str, str] = {}
    for p in eval_parameters():
        pname = p.name
        names[pname] = pname
        names[pname.replace("_", "-")] = pname
        for decl in getattr(p.default, "param_decls", ()) or ():
            for d in decl.split("/"):
                if d.startswith("--"):
                    names[d[2:]] = pname
    return names


def _option_types() -> dict[str, Any]:
    from socialbench.cli import eval_parameters

    return {p.name: p.annotation for p in eval_parameters()}


def _coerce(value: Any, hint: Any, path: Path, where: str) -> Any:
    """``value`` as eval would take it (the parameter's type), or a refusal naming ``where``."""
    args = typing.get_args(hint)
    if type(None) in args:
        if value is None:
            return None
        hint = next(a for a in args if a is not type(None))
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise _refuse(path, where, f"expects true or false (got {value!r})", "write true or false")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise _refuse(path, where, f"expects an integer (got {value!r})", "write a whole number")
    if hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise _refuse(path, where, f"expects a number (got {value!r})", "write a number")
    if hint is Path:
        if isinstance(value, str) and value:
            return Path(value)
        raise _refuse(path, where, f"expects a path (got {value!r})", "write a path")
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    raise _refuse(path, where, f"expects a word (got {value!r})", "write a single value")


def _option_key(key: Any, path: Path, where: str) -> str:
    names = eval_option_names()
    name = names.get(str(key).lstrip("-")) if isinstance(key, str) else None
    if name is None:
        raise _refuse(
            path,
            f"{where}.{key}",
            "not an option of `socialbench eval`",
            "use eval's option names (see `socialbench eval --help`); repeat runs with `epochs: 3` or `seed: [0, 1, 2]`",
        )
    if name in _NOT_AXES:
        raise _refuse(path, f"{where}.{key}", "not an axis", _NOT_AXES[name])
    return name


def _model(entry: Any, path: Path, i: int) -> ModelEntry:
    where = f"models[{i}]"
    if isinstance(entry, str) and entry:
        return ModelEntry(entry)
    if not isinstance(entry, dict) or not isinstance(entry.get("spec"), str):
        raise _refuse(path, where, "a model is a spec string or a mapping with `spec:`", "e.g. `- baseline:random`")
    unknown = sorted(set(entry) - _MODEL_KEYS)
    if unknown:
        raise _refuse(path, f"{where}.{unknown[0]}", "unknown key", f"use {', '.join(sorted(_MODEL_KEYS))}")
    for key in ("num_gpus", "num_cpus"):
        v = entry.get(key, 0)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
            raise _refuse(path, f"{where}.{key}", f"must be a number >= 0 (got {v!r})", "e.g. `num_gpus: 1`")
    conc = entry.get("concurrency")
    if conc is not None and (not isinstance(conc, int) or isinstance(conc, bool) or conc < 1):
        raise _refuse(
            path, f"{where}.concurrency", f"must be a whole number >= 1 (got {conc!r})", "e.g. `concurrency: 32`"
        )
    opts = entry.get("model_opt") or {}
    if not isinstance(opts, dict):
        raise _refuse(path, f"{where}.model_opt", "must be a mapping", "e.g. `model_opt: {dtype: bfloat16}`")
    return ModelEntry(
        spec=entry["spec"],
        num_gpus=float(entry.get("num_gpus", 0)),
        num_cpus=float(entry.get("num_cpus", 1)),
        concurrency=conc,
        model_opt=tuple(f"{k}={v}" for k, v in opts.items()),
    )


def _benchmark(entry: Any, path: Path, i: int) -> BenchmarkEntry:
    from socialbench.benchmarks.base import benchmark_names

    where = f"benchmarks[{i}]"
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        raise _refuse(path, where, "a benchmark is a name or a mapping with `name:`", "e.g. `- socialnav-sim`")
    unknown = sorted(set(entry) - _BENCH_KEYS)
    if unknown:
        raise _refuse(path, f"{where}.{unknown[0]}", "unknown key", f"use {', '.join(sorted(_BENCH_KEYS))}")
    if entry["name"] not in benchmark_names():
        raise _refuse(
            path, f"{where}.name", f"unknown benchmark {entry['name']!r}", f"use one of {', '.join(benchmark_names())}"
        )
    data = entry.get("data")
    if data is not None:
        if not isinstance(data, str) or not data:
            raise _refuse(path, f"{where}.data", "must be a path", "e.g. `data: releases/roboteq`")
        data_path = Path(data).expanduser()
        data = data_path if data_path.is_absolute() else path.parent / data_path
    ignore = entry.get("ignore_axes") or []
    if not isinstance(ignore, list):
        raise _refuse(path, f"{where}.ignore_axes", "must be a list of axis names", "e.g. `ignore_axes: [method]`")
    return BenchmarkEntry(entry["name"], data, frozenset(_option_key(k, path, f"{where}.ignore_axes") for k in ignore))


def load_plan(path: Path) -> Plan:
    """Read and check ``path``; every mistake is a :class:`UsageError` naming the key."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: no such plan file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read ({exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        raise UsageError(f"{path}: {line}not valid YAML ({getattr(exc, 'problem', exc)}); fix the syntax") from None
    if not isinstance(raw, dict):
        raise _refuse(path, "top level", "a plan is a mapping", "give `models:`, `benchmarks:` and `axes:`")
    unknown = sorted(set(raw) - _PLAN_KEYS)
    if unknown:
        raise _refuse(path, unknown[0], "unknown key", f"a plan has {', '.join(sorted(_PLAN_KEYS))}")
    for key in ("models", "benchmarks"):
        if not isinstance(raw.get(key), list) or not raw[key]:
            raise _refuse(path, key, "missing or empty", f"give a list, e.g. `{key}: [...]`")
    types = _option_types()
    axes: dict[str, list[Any]] = {}
    raw_axes = raw.get("axes") or {}
    if not isinstance(raw_axes, dict):
        raise _refuse(
            path, "axes", "must be a mapping of option -> list of values", "e.g. `axes: {method: [independent, cot]}`"
        )
    for key, values in raw_axes.items():
        name = _option_key(key, path, "axes")
        if not isinstance(values, list) or not values:
            raise _refuse(path, f"axes.{key}", "must be a non-empty list", f"e.g. `{key}: [{values!r}]`")
        axes[name] = [_coerce(v, types[name], path, f"axes.{key}") for v in values]
    options: dict[str, Any] = {}
    raw_options = raw.get("options") or {}
    if not isinstance(raw_options, dict):
        raise _refuse(path, "options", "must be a mapping of option -> value", "e.g. `options: {limit: 10}`")
    for key, value in raw_options.items():
        name = _option_key(key, path, "options")
        if name in axes:
            raise _refuse(path, f"options.{key}", "also an axis", "keep it in one of `axes:` and `options:`")
        options[name] = _coerce(value, types[name], path, f"options.{key}")
    models = tuple(_model(m, path, i) for i, m in enumerate(raw["models"]))
    benchmarks = tuple(_benchmark(b, path, i) for i, b in enumerate(raw["benchmarks"]))
    for i, b in enumerate(benchmarks):
        stray = sorted(b.ignore_axes - set(axes))
        if stray:
            raise _refuse(
                path, f"benchmarks[{i}].ignore_axes", f"{stray[0]} is not an axis", "list only keys of `axes:`"
            )
    return Plan(path, models, benchmarks, axes, options)


def cell_dir_name(benchmark: str, values: dict[str, Any], axes: dict[str, list[Any]]) -> str:
    """The cell's variant: eval's run directory variant, then every other axis that varies
    (``cot-img-with-bev-seed-1``)."""
    from socialbench.benchmarks.base import benchmark_entry
    from socialbench.benchmarks.options import in_variant, option_fields, slug
    from socialbench.cli import eval_options, run_variant

    name = run_variant(benchmark, eval_options(values))
    options = benchmark_entry(benchmark).options
    own = {f.name for f in option_fields(options)}
    for key in sorted(axes):
        if key not in _IN_VARIANT and not (key in own and in_variant(options, key)):
            name += f"-{key.replace('_', '-')}-{slug(str(values[key]))}"
    return name


def _check_axes(plan: Plan, b: BenchmarkEntry, bench: Any, defaults: dict[str, Any]) -> None:
    """Refuse the plan when benchmark ``b`` refuses an axis value it does not ignore,
    naming every refused value (an option of another benchmark is refused whatever its
    value), and how to ignore the axis."""
    from socialbench.cli import eval_options

    keys = [k for k in plan.axes if k not in b.ignore_axes]
    refused: dict[str, None] = {}
    bad: dict[str, None] = {}
    first: SocialbenchError | None = None
    for combo in itertools.product(*(plan.axes[k] for k in keys)):
        values = {**defaults, **plan.options, "benchmark": b.name, **dict(zip(keys, combo))}
        try:
            bench.check_options(eval_options(values))
        except SocialbenchError as exc:
            first = first or exc
            named = [k for k in keys if values[k] != defaults[k]]
            bad.update(dict.fromkeys(named))
            refused.update(dict.fromkeys(f"axes.{k}={values[k]!r}" for k in named))
    if first is not None:
        raise UsageError(
            f"{plan.path}: {', '.join(refused) or 'options'}: {b.name} refuses it ({first}); drop the value, or add "
            f"`ignore_axes: [{', '.join(bad) or '...'}]` to {b.name}'s entry under `benchmarks:` "
            "to run it once with eval's default"
        )


def expand(plan: Plan, out: Path) -> list[Cell]:
    """Every cell of ``plan`` (models x benchmarks x axes, ignored axes at eval's default,
    duplicates dropped), each checked by its benchmark; run directories under ``out``."""
    from socialbench.benchmarks.base import get_benchmark
    from socialbench.benchmarks.options import slug
    from socialbench.cli import eval_defaults
    from socialbench.models.redact import redact

    defaults = eval_defaults()
    keys = list(plan.axes)
    cells: list[Cell] = []
    seen: set[Path] = set()
    for b in plan.benchmarks:
        bench, _ = get_benchmark(b.name)
        _check_axes(plan, b, bench, defaults)
        for model in plan.models:
            for combo in itertools.product(*(plan.axes[k] for k in keys)):
                values = {
                    **defaults,
                    **plan.options,
                    "benchmark": b.name,
                    "model": model.spec,
                    "data": b.data,
                    "model_opt": list(model.model_opt),
                }
                if model.concurrency is not None:
                    values["concurrency"] = model.concurrency
                for key, value in zip(keys, combo):
                    values[key] = defaults[key] if key in b.ignore_axes else value
                axes_here = {k: v for k, v in plan.axes.items() if k not in b.ignore_axes}
                run_dir = out / b.name / slug(str(redact(model.spec))) / cell_dir_name(b.name, values, axes_here)
                if run_dir in seen:
                    continue
                seen.add(run_dir)
                values["out_dir"] = run_dir
                cells.append(Cell(b.name, model, values, run_dir))
    return cells
