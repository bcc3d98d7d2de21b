"""Running one sweep cell: an ordinary ``socialbench eval`` run into the cell's directory;
complete cells are skipped, partial ones resume, and a failure is the cell's status only.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from socialbench.runner.run import RunResult

log = logging.getLogger(__name__)

#: Statuses of a cell after the sweep (``skipped``: it was complete before this sweep).
STATUSES = ("complete", "skipped", "errors", "failed", "interrupted", "not run")


@dataclass(frozen=True)
class CellOutcome:
    """What became of one cell: plain data, so a Ray worker can return it."""

    run_dir: str
    status: str
    answered: int | None = None
    questions: int | None = None
    model_errors: int | None = None
    requests: int | None = None
    message: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


#: Status of a cell whose run.json says complete but whose answers are gone: run again.
SAMPLES_MISSING = "samples missing"
#: Largest run.json read (bytes).
_MAX_RUN_JSON_BYTES = 16 * 1024**2


def _run_record(run_dir: Path) -> dict[str, object] | None:
    """``run_dir``'s run.json (a regular file, size-capped, strict JSON), or None."""
    from socialbench.errors import DataError
    from socialbench.files.safe_read import read_json

    try:
        record = read_json(run_dir / "run.json", _MAX_RUN_JSON_BYTES)
    except DataError:
        return None
    return record if isinstance(record, dict) else None


def _lines(path: Path) -> int:
    """Non-empty lines of the regular file ``path`` (-1: not a regular file), read in blocks."""
    from socialbench.files.safe_read import file_kind

    if path.is_symlink() or file_kind(path) != "file":
        return -1
    count, last = 0, b"\n"
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            count += block.count(b"\n")
            last = block[-1:]
    return count + (last != b"\n")


def _answers_present(run_dir: Path, record: Mapping[str, object]) -> bool:
    """Whether the answers a complete run.json counts are on disk: ``samples.jsonl`` with at
    least ``answered`` lines, or (``--epochs``) every ``epoch-E`` run complete likewise."""
    epochs = sorted(p for p in run_dir.glob("epoch-*") if p.is_dir() and not p.is_symlink())
    if not (run_dir / "samples.jsonl").exists() and epochs:
        return all(previous_status(p) == "complete" for p in epochs)
    answered = record.get("answered")
    need = answered if isinstance(answered, int) and not isinstance(answered, bool) and answered > 0 else 1
    return _lines(run_dir / "samples.jsonl") >= need


def previous_status(run_dir: Path) -> str | None:
    """``run.json``'s status in ``run_dir`` (None: no readable run there yet);
    :data:`SAMPLES_MISSING` when it says ``complete`` but its answers are not on disk."""
    record = _run_record(run_dir)
    if record is None:
        return None
    status = record.get("status")
    if not isinstance(status, str):
        return None
    if status == "complete" and not _answers_present(run_dir, record):
        return SAMPLES_MISSING
    return status


def run_cell(values: dict[str, Any], progress: bool = False) -> CellOutcome:
    """Run (or resume, or skip) the cell whose eval option ``values`` are given (by eval's
    parameter names, ``out_dir`` set); never raises for a failed cell."""
    run_dir = Path(values["out_dir"])
    if previous_status(run_dir) == "complete":
        return CellOutcome(str(run_dir), "skipped", message="complete before this sweep")
    epochs = int(values.get("epochs") or 1)
    try:
        if epochs > 1:  # eval --epochs: one run per epoch under epoch-E, combined in run_dir
            return _run_epochs(values, run_dir, epochs, progress)
        result = _run_one(values, progress)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - one failing cell must not stop the others
        log.warning("cell %s failed: %s", run_dir, exc)
        return CellOutcome(str(run_dir), "failed", message=f"{type(exc).__name__}: {exc}".splitlines()[0][:300])
    return _outcome(run_dir, [result])


def _outcome(run_dir: Path, results: Sequence[RunResult]) -> CellOutcome:
    """The cell's outcome from its runs' results (one, or one per epoch)."""
    runs = [r.metrics.get("run", {}) for r in results]
    interrupted = any(r.interrupted for r in results)
    status = "interrupted" if interrupted else "complete" if all(r.complete for r in results) else "errors"
    kinds: dict[str, int] = {}
    for run in runs:
        for k, n in (run.get("error_kinds") or {}).items():
            kinds[k] = kinds.get(k, 0) + n
    total = lambda key: sum(int(run.get(key) or 0) for run in runs)  # noqa: E731
    return CellOutcome(
        str(run_dir),
        status,
        answered=total("answered"),
        questions=total("questions"),
        model_errors=total("model_errors"),
        requests=sum(int(r.stats.get("requests") or 0) for r in results),
        message=", ".join(f"{k} {n}" for k, n in sorted(kinds.items())),
    )


def _run_one(values: dict[str, Any], progress: bool) -> RunResult:
    from socialbench.runner.prepare import prepare_eval
    from socialbench.runner.run import run_eval

    bench, _, model, req = prepare_eval({**values, "progress": progress})
    return run_eval(req, bench, model)


def _run_epochs(values: dict[str, Any], run_dir: Path, epochs: int, progress: bool) -> CellOutcome:
    """A cell with ``epochs`` > 1, run as ``eval --epochs`` runs it."""
    from socialbench.runner.epochs import run_epochs

    def one(epoch: int, seed: int, epoch_dir: Path) -> RunResult:
        return _run_one({**values, "seed": seed, "out_dir": epoch_dir, "epochs": 1}, progress)

    res = run_epochs(run_dir, epochs, int(values["seed"]), one)
    return _outcome(run_dir, list(res.results))
