"""A checked sweep plan expanded into its cells (:class:`Cell`): models x benchmarks x axes,
each checked by its benchmark, each with its own run directory (models whose folder names
would be the same are told apart by a short salted hash).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialbench.errors import SocialbenchError, UsageError
from socialbench.sweep.plan import BenchmarkEntry, ModelEntry, Plan

if TYPE_CHECKING:
    from socialbench.benchmarks.base import Benchmark

#: eval options of every run that the run directory's variant name already encodes.
_IN_VARIANT = {"perturb", "perturb_strength"}


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


def cell_dir_name(benchmark: str, values: Mapping[str, object], axes: Mapping[str, Sequence[object]]) -> str:
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


def _check_axes(plan: Plan, b: BenchmarkEntry, bench: Benchmark, defaults: Mapping[str, object]) -> None:
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
