"""Which benchmark and which dataset a report's numbers come from, said on every table.

A ``socialnav-sim`` run answers SocialNav-SUB's questions on simulated scenes; its tables
must not read as numbers on the SocialNav-SUB release. :func:`run_source` names, for one run,
the benchmark it was run as (``run.json``'s ``benchmark``) and its dataset (the bundled
simulated scenes, a folder written by ``socialbench sim``, or a data folder by its name
only, never a machine's path), with the dataset fingerprint's first 12 hex digits.
:func:`label_tables` appends ``— BENCHMARK on DATASET`` to each table's title and adds a
note with the fingerprints, which run comes from which source (when they differ) and the
notes of :mod:`~socialbench.report.generation_note`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from socialbench.report.generation_note import generation_notes
from socialbench.report.parsing_note import parsing_notes
from socialbench.report.run_dataset import data_path
from socialbench.report.run_dir import RunDir
from socialbench.report.table import Table

__all__ = ["RunSource", "label_tables", "run_source", "source_caption"]

BUNDLED = "the bundled simulated scenes (synthetic labels, not the SocialNav-SUB release)"


@dataclass(frozen=True)
class RunSource:
    """The benchmark a run was made as, its dataset in words and its dataset fingerprint
    (first 12 hex digits; ``""`` when ``run.json`` records none)."""

    benchmark: str
    dataset: str
    fingerprint: str

    def caption(self) -> str:
        """``BENCHMARK on DATASET``."""
        return f"{self.benchmark} on {self.dataset}"


def _is_simulated(folder: Path) -> bool:
    """Whether ``folder`` was written by ``socialbench sim`` (its dataset card's title)."""
    from socialbench.benchmarks.socialnav_sub.simulated import CARD_TITLE

    try:
        with open(folder / "README.md", encoding="utf-8", errors="replace") as fh:
            return fh.readline().rstrip("\n") == CARD_TITLE
    except OSError:
        return False


def _built_from_recording(folder: Path) -> str | None:
    """``"exact"`` or ``"human"`` for a folder ``build socialnav`` wrote (its card), else None."""
    from socialbench.benchmarks.socialnav_sub.release_writer import EXACT_ANSWERS_NOTE, RECORDING_CARD_TITLE

    try:
        with open(folder / "README.md", encoding="utf-8", errors="replace") as fh:
            text = fh.read(4096)
    except OSError:
        return None
    if text.split("\n", 1)[0] != RECORDING_CARD_TITLE:
        return None
    return "exact" if EXACT_ANSWERS_NOTE in text else "human"


def _dataset(folder: Path | None) -> str:
    if folder is None:
        return "a dataset run.json does not record"
    from socialbench.benchmarks.socialnav_sub import bundled_demo_data

    try:
        if folder.resolve() == bundled_demo_data().resolve():
            return BUNDLED
    except OSError:
        pass
    name = folder.name or str(folder)
    if _is_simulated(folder):
        return f"simulated scenes in folder '{name}' (synthetic labels)"
    built = _built_from_recording(folder)
    if built == "exact":
        return f"scenarios built from a recording in folder '{name}' (exact answers from true tracks, not human)"
    if built == "human":
        return f"scenarios built from a recording in folder '{name}'"
    return f"data folder '{name}'"


def run_source(r: RunDir) -> RunSource:
    """The :class:`RunSource` of run ``r`` (see the module docstring)."""
    fp = r.run.get("dataset_fingerprint")
    return RunSource(r.benchmark or "unknown benchmark", _dataset(data_path(r)), fp[:12] if isinstance(fp, str) else "")


def source_caption(runs: Sequence[RunDir]) -> tuple[str, tuple[str, ...]]:
    """The title suffix and the notes that say where the numbers of ``runs`` come from."""
    sources: dict[RunSource, list[str]] = {}
    for r in runs:
        sources.setdefault(run_source(r), []).append(r.label or r.path.name)
    captions = list(dict.fromkeys(s.caption() for s in sources))
    suffix = " — " + "; ".join(captions)
    if len(sources) == 1:
        (only,) = sources
        fp = f", dataset fingerprint {only.fingerprint}" if only.fingerprint else ""
        return suffix, (f"Data: {only.caption()}{fp}.",)
    lines = tuple(
        f"Data of {', '.join(labels)}: {s.caption()}"
        + (f", dataset fingerprint {s.fingerprint}" if s.fingerprint else "")
        + "."
        for s, labels in sources.items()
    )
    return suffix, lines


def label_tables(tables: Sequence[Table], runs: Sequence[RunDir]) -> list[Table]:
    """``tables`` with :func:`source_caption` of ``runs`` added to every title and notes."""
    if not runs:
        return list(tables)
    suffix, notes = source_caption(runs)
    notes += generation_notes(runs)  # what the runs sent the model
    notes += parsing_notes(runs)  # which official path read the replies (official protocols)
    return [replace(t, title=t.title + suffix, notes=tuple(t.notes) + notes) for t in tables]
