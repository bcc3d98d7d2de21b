"""Repeated evaluation (``socialbench eval --epochs N``): epoch ``e`` is an ordinary run
directory ``OUT/epoch-e`` with seed ``S + e - 1``; ``OUT`` gets their metrics combined (means,
standard errors across epochs) and epoch 1's run.json. See README.md, "eval --epochs".
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from socialbench.files.atomic_write import refuse_link, write_bytes_atomic
from socialbench.records import read_run_json

__all__ = ["EpochsResult", "combine_metrics", "run_epochs", "epoch_dir"]

_STATUS_ORDER = ("complete", "finished_with_errors", "interrupted", "failed", "running")


class EpochRun(Protocol):
    """What :func:`run_epochs` reads of one epoch's result (a
    :class:`~socialbench.runner.run.RunResult`)."""

    @property
    def metrics(self) -> Mapping[str, Any]: ...  # the epoch's metrics.json (JSON)

    @property
    def complete(self) -> bool: ...

    @property
    def interrupted(self) -> bool: ...


R = TypeVar("R", bound=EpochRun)


def epoch_dir(out: Path, epoch: int) -> Path:
    """The run directory of epoch ``epoch`` (1-based) under ``out``."""
    return out / f"epoch-{epoch}"


def _is_num(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _se(values: Sequence[float]) -> float | None:
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def combine_metrics(trees: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Means over ``trees`` (metrics of one shape), with standard errors across them (see
    the module docstring). A key missing from some tree, or a value that is not a number in
    every tree, keeps the first tree's value when all agree, else ``None``."""
    out: dict[str, Any] = {}
    first = trees[0]
    for key in first:
        vals = [t.get(key) for t in trees]
        if all(isinstance(v, Mapping) for v in vals):
            out[key] = combine_metrics(vals)  # type: ignore[arg-type]
        elif all(_is_num(v) for v in vals):
            same = all(v == vals[0] for v in vals)
            out[key] = vals[0] if same else sum(vals) / len(vals)  # type: ignore[arg-type]
        else:
            out[key] = vals[0] if all(v == vals[0] for v in vals) else None
    for key in list(out):
        base = key[:-3] if key.endswith("_se") else ("value" if key == "se" else None)
        if base is not None and base in first:
            vals = [t.get(base) for t in trees]
            if all(_is_num(v) for v in vals):
                out[key] = _se(vals)  # type: ignore[arg-type]
    return out


@dataclass(frozen=True)
class EpochsResult(Generic[R]):
    """The combined run folder ``out``, its combined metrics (JSON) and each epoch's result."""

    out: Path
    metrics: dict[str, Any]
    results: tuple[R, ...]

    @property
    def interrupted(self) -> bool:
        return any(r.interrupted for r in self.results)


def _write_json(path: Path, data: object) -> None:
    text = json.dumps(data, indent=2, sort_keys=True, default=str) + "\n"
    write_bytes_atomic(path, text.encode("utf-8"), root=path.parent, option="--out folder")  # never through a link


def run_epochs(out: Path, epochs: int, seed: int, run_one: Callable[[int, int, Path], R]) -> EpochsResult[R]:
    """Run ``run_one(epoch, seed + epoch - 1, epoch_dir)`` for epochs 1..``epochs`` (stopping
    after an interrupted one), then write the combined ``metrics.json`` and ``run.json`` into
    ``out``. ``run_one`` returns a :class:`~socialbench.runner.run.RunResult`."""
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    if (out / "samples.jsonl").exists():  # its run.json and metrics.json would be replaced
        from socialbench.errors import UsageError

        raise UsageError(
            f"{out} holds a single run (samples.jsonl); --epochs needs a folder of its own: choose a new --out folder"
        )
    out.mkdir(parents=True, exist_ok=True)
    results: list[R] = []
    for e in range(1, epochs + 1):
        refuse_link(epoch_dir(out, e), "--out folder")  # an epoch-E link out of --out is never written through
        res = run_one(e, seed + e - 1, epoch_dir(out, e))
        results.append(res)
        if res.interrupted:
            break
    per_epoch = [dict(r.metrics) for r in results]
    combined = combine_metrics([{k: v for k, v in m.items() if k != "run"} for m in per_epoch])
    seeds = [seed + i for i in range(len(results))]
    combined["epochs"] = {"n": len(results), "requested": epochs, "seeds": seeds, "per_epoch": per_epoch}
    combined["note"] = "numbers are means over the epochs; *_se / se are standard errors across epochs"
    complete = len(results) == epochs and all(r.complete for r in results)
    combined["run"] = {"complete": complete, "epochs": [m.get("run") for m in per_epoch]}
    run_json = read_run_json(epoch_dir(out, 1) / "run.json")
    statuses = [
        read_run_json(epoch_dir(out, e) / "run.json").get("status", "running") for e in range(1, len(results) + 1)
    ]
    worst = max(statuses, key=lambda s: _STATUS_ORDER.index(s) if s in _STATUS_ORDER else len(_STATUS_ORDER))
    run_json.update(
        {
            "epochs": epochs,
            "seeds": seeds,
            "seed": seed,
            "status": worst,
            "epoch_dirs": [epoch_dir(out, e).name for e in range(1, len(results) + 1)],
        }
    )
    _write_json(out / "metrics.json", combined)
    _write_json(out / "run.json", run_json)
    return EpochsResult(out, combined, tuple(results))
