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

A plan is read as untrusted input (issue 29): it must be a regular file of at most
:data:`MAX_PLAN_BYTES`; the YAML may nest at most :data:`MAX_YAML_DEPTH` levels and use at
most :data:`MAX_YAML_ALIASES` aliases (``*name``: a few of them can otherwise stand for
billions of values); the grid is counted before it is built and refused above
:data:`MAX_CELLS` cells (``--dry-run`` too); option values go through eval's own check
(:func:`socialbench.runner.eval_options.eval_value_problem`); refusals show values shortened. Models whose
folder names would be the same (specs differing only in URL credentials or query, or in
characters the folder name replaces) get folders told apart by a short salted hash.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import reprlib
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from socialbench.errors import DataError, SocialbenchError, UsageError

#: Largest plan file read (bytes): a plan is a few hundred bytes.
MAX_PLAN_BYTES = 1024 * 1024
#: Deepest YAML nesting accepted: a plan nests at most 4 levels.
MAX_YAML_DEPTH = 16
#: Most YAML aliases (``*name``) accepted in one plan.
MAX_YAML_ALIASES = 64
#: Most cells a plan may have (models x benchmarks x the axes' values).
MAX_CELLS = 10_000

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxother = 2, 4, 4, 40, 40


def _key(key: Any) -> str:
    """A plan key as a refusal names it: a short string as written, anything else shortened."""
    return key if isinstance(key, str) and len(key) <= 40 and key.isprintable() else shown(key)


def shown(value: Any) -> str:
    """``repr(value)`` shortened (at most a few elements, two levels, 40 characters a
    string): what a refusal may quote of a plan's value, however large it expands."""
    return _SHORT.repr(value)


class _BoundedLoader(yaml.SafeLoader):
    """A safe YAML loader that refuses nesting deeper than :data:`MAX_YAML_DEPTH` and more
    than :data:`MAX_YAML_ALIASES` aliases, before building anything from them."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise yaml.YAMLError(f"more than {MAX_YAML_ALIASES} aliases (*name); write the values out")
        self._depth += 1
        if self._depth > MAX_YAML_DEPTH:
            raise yaml.YAMLError(f"nested more than {MAX_YAML_DEPTH} levels deep; a plan nests a few levels")
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


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
    from socialbench.runner.eval_options import eval_flags

    names: dict[str, str] = {}
    for f in eval_flags():
        pname = f.name
        names[pname] = pname
        names[pname.replace("_", "-")] = pname
        for decl in f.decls:
            for d in decl.split("/"):
                if d.startswith("--"):
                    names[d[2:]] = pname
    return names


def _option_types() -> dict[str, Any]:
    from socialbench.runner.eval_options import eval_flags

    return {f.name: f.annotation for f in eval_flags()}


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
        raise _refuse(path, where, f"expects true or false (got {shown(value)})", "write true or false")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise _refuse(path, where, f"expects an integer (got {shown(value)})", "write a whole number")
    if hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise _refuse(path, where, f"expects a number (got {shown(value)})", "write a number")
    if hint is Path:
        if isinstance(value, str) and value:
            return Path(value)
        raise _refuse(path, where, f"expects a path (got {shown(value)})", "write a path")
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    raise _refuse(path, where, f"expects a word (got {shown(value)})", "write a single value")


def _option_key(key: Any, path: Path, where: str) -> str:
    names = eval_option_names()
    name = names.get(str(key).lstrip("-")) if isinstance(key, str) else None
    if name is None:
        raise _refuse(
            path,
            f"{where}.{_key(key)}",
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
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
            raise _refuse(path, f"{where}.{key}", f"must be a number >= 0 (got {shown(v)})", "e.g. `num_gpus: 1`")
    conc = entry.get("concurrency")
    if conc is not None and (not isinstance(conc, int) or isinstance(conc, bool)):
        raise _refuse(
            path, f"{where}.concurrency", f"must be a whole number >= 1 (got {shown(conc)})", "e.g. `concurrency: 32`"
        )
    _checked("concurrency", conc, path, f"{where}.concurrency")
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
            path,
            f"{where}.name",
            f"unknown benchmark {shown(entry['name'])}",
            f"use one of {', '.join(benchmark_names())}",
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
    from socialbench.files.safe_read import file_kind, read_regular_bytes

    if file_kind(path) == "missing":
        raise UsageError(f"{path}: no such plan file")
    try:
        text = read_regular_bytes(path, MAX_PLAN_BYTES).decode("utf-8")
    except DataError as exc:
        raise UsageError(f"{path}: cannot be read as a plan ({exc.problems[0].message}); give a YAML file") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start}); save the plan as UTF-8") from None
    try:
        raw = yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 - a SafeLoader with bounds
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 1}: " if mark is not None else ""
        raise UsageError(
            f"{path}: {line}not valid YAML ({getattr(exc, 'problem', None) or exc}); fix the syntax"
        ) from None
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply to read; a plan nests a few levels") from None
    if not isinstance(raw, dict):
        raise _refuse(path, "top level", "a plan is a mapping", "give `models:`, `benchmarks:` and `axes:`")
    unknown = sorted(_key(k) for k in set(raw) - _PLAN_KEYS)
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
            raise _refuse(path, f"axes.{key}", "must be a non-empty list", f"e.g. `{key}: [{shown(values)}]`")
        axes[name] = [_checked(name, _coerce(v, types[name], path, f"axes.{key}"), path, f"axes.{key}") for v in values]
    options: dict[str, Any] = {}
    raw_options = raw.get("options") or {}
    if not isinstance(raw_options, dict):
        raise _refuse(path, "options", "must be a mapping of option -> value", "e.g. `options: {limit: 10}`")
    for key, value in raw_options.items():
        name = _option_key(key, path, "options")
        if name in axes:
            raise _refuse(path, f"options.{key}", "also an axis", "keep it in one of `axes:` and `options:`")
        options[name] = _checked(name, _coerce(value, types[name], path, f"options.{key}"), path, f"options.{key}")
    models = tuple(_model(m, path, i) for i, m in enumerate(raw["models"]))
    benchmarks = tuple(_benchmark(b, path, i) for i, b in enumerate(raw["benchmarks"]))
    for i, b in enumerate(benchmarks):
        stray = sorted(b.ignore_axes - set(axes))
        if stray:
            raise _refuse(
                path, f"benchmarks[{i}].ignore_axes", f"{stray[0]} is not an axis", "list only keys of `axes:`"
            )
    cells = count_cells(len(models), len(benchmarks), axes)
    if cells > MAX_CELLS:
        raise _refuse(
            path,
            "axes",
            f"the plan has {cells:,} cells (models x benchmarks x axis values), more than {MAX_CELLS:,}",
            "split it into several plans, or drop axis values",
        )
    return Plan(path, models, benchmarks, axes, options)


def count_cells(models: int, benchmarks: int, axes: dict[str, list[Any]]) -> int:
    """How many cells a grid has (models x benchmarks x every axis's values), counted
    without building it."""
    return models * benchmarks * math.prod(len(v) for v in axes.values())


def _checked(name: str, value: Any, path: Path, where: str) -> Any:
    """``value`` if eval accepts it for its option ``name`` (eval's own check), else a
    refusal naming ``where``."""
    from socialbench.runner.eval_options import eval_value_problem

    problem = eval_value_problem(name, value)
    if problem is not None:
        raise _refuse(path, where, problem, "give a value `socialbench eval` accepts (see `socialbench eval --help`)")
    return value


def cell_dir_name(benchmark: str, values: dict[str, Any], axes: dict[str, list[Any]]) -> str:
    """The cell's variant: eval's run directory variant, then every other axis that varies
    (``cot-img-with-bev-seed-1``)."""
    from socialbench.benchmarks.base import benchmark_entry
    from socialbench.benchmarks.options import in_variant, option_fields, slug
    from socialbench.runner.eval_options import eval_options, run_variant

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
    from socialbench.runner.eval_options import eval_options

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


def _model_key(model: ModelEntry) -> tuple[str, tuple[str, ...]]:
    return (model.spec, model.model_opt)


def _told_apart(model: ModelEntry) -> str:
    """A short salted hash of the model's spec and options (slow, as
    :func:`socialbench.models.redact.secret_digest`: it names no credentials)."""
    material = "\0".join((model.spec, *model.model_opt)).encode("utf-8", "surrogatepass")
    return hashlib.pbkdf2_hmac("sha256", material, b"socialbench-sweep-cell", 20_000).hex()[:8]


def model_folders(models: tuple[ModelEntry, ...]) -> dict[tuple[str, tuple[str, ...]], str]:
    """Each model's folder name below its benchmark's folder: the spec with credentials
    masked, as a folder name; models that would share one (specs differing only in URL
    credentials or query, in characters a folder name replaces, or in ``model_opt``) each
    get ``-`` and a short salted hash of spec and options after it, so no cell writes into
    another's folder."""
    from socialbench.benchmarks.options import slug
    from socialbench.models.redact import redact

    base = {_model_key(m): slug(str(redact(m.spec))) for m in models}
    users: dict[str, set[tuple[str, tuple[str, ...]]]] = {}
    for key, name in base.items():
        users.setdefault(name, set()).add(key)
    by_key = {_model_key(m): m for m in models}
    return {
        key: name if len(users[name]) == 1 else f"{name[:70]}-{_told_apart(by_key[key])}" for key, name in base.items()
    }


def expand(plan: Plan, out: Path) -> list[Cell]:
    """Every cell of ``plan`` (models x benchmarks x axes, ignored axes at eval's default,
    duplicates dropped), each checked by its benchmark; run directories under ``out``."""
    from socialbench.benchmarks.base import get_benchmark
    from socialbench.runner.eval_options import eval_defaults

    defaults = eval_defaults()
    folders = model_folders(plan.models)
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
                run_dir = out / b.name / folders[_model_key(model)] / cell_dir_name(b.name, values, axes_here)
                if run_dir in seen:
                    continue
                seen.add(run_dir)
                values["out_dir"] = run_dir
                cells.append(Cell(b.name, model, values, run_dir))
    return cells
