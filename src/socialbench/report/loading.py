"""Read run directories for reports and comparisons.

A run directory (written by ``socialbench eval`` or ``socialbench score``) holds
``metrics.json`` (needed), ``run.json`` (optional: model spec, method, data folder, ...)
and ``samples.jsonl`` (optional: one record per question). Tables need ``metrics.json``
only; item-level parts (the failure tables, the per-item viewer, ``compare``) also need the
benchmark's labels, loaded from the ``data`` folder recorded in ``run.json`` or from an
explicit ``--data``.

Predictions scored elsewhere are comparable too: a folder written by ``socialbench score``
(``metrics.json`` whose ``source.predictions`` names the predictions) reads its records from
there when it has no ``samples.jsonl``, and an official SocialNav-SUB experiment folder
(one sub-folder per sample with ``question_answers.json`` / ``evaluation.json``) is scored
on the fly against ``--data`` (:func:`load_official_run`).

Display labels: each run gets a short label from its model spec (``openai:gpt-4o@URL`` ->
``gpt-4o``, ``baseline:rule-based`` -> ``Rule-Based``) plus its non-default settings
(method, image mode, strategy, benchmark options such as the RAG backend and ``rag_k``,
perturbation), and its benchmark when the report mixes benchmarks (``roboteq-bj`` and
``roboteq-sg``); labels are made unique across the runs of one report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from socialbench.benchmarks.options import EvalOptions
from socialbench.errors import DataError, Problem, UsageError
from socialbench.files.safe_read import read_json
from socialbench.files.schema import FieldRule, check_fields, json_kind
from socialbench.metrics.agreement import ItemScore, ScoringEntry
from socialbench.metrics.protocols import OFFICIAL, ProtocolArg, ScoringProtocol, as_protocol, protocol_named
from socialbench.metrics.json_result import JsonResult
from socialbench.records import read_run_json
from socialbench.types import Answer, Item, SampleRecord

SOCIALNAV_NAMES = ("socialnav-sub", "socialnav-sim")
ROBOTEQ_NAMES = ("roboteq-bj", "roboteq-sg")

#: Display names of the built-in baselines (the paper's row names where there is one).
KNOWN_NAMES = {
    "baseline:rule-based": "Rule-Based",
    "baseline:random": "Random",
    "baseline:waypoint-nearest": "Baseline: nearest candidate",
    "baseline:waypoint-straightest": "Baseline: straightest candidate",
    "baseline:waypoint-toward-goal": "Baseline: toward the goal",
    "human:oracle": "Human Oracle (run)",
    "human:average": "Sampled Human (own vote counted)",
    "mock:first-option": "Mock (first option)",
}

#: Model-spec prefixes of reference rows (tables put them under "Baseline", not "VLM").
BASELINE_PREFIXES = ("baseline:", "human:", "mock:", "replay:human")


#: The top-level fields of metrics.json the report reads, and their JSON kinds.
METRICS_FIELDS: tuple[FieldRule, ...] = (
    FieldRule("benchmark", ("str", "null")),
    FieldRule("model", ("str", "null")),
    FieldRule("protocol", ("str", "null")),
    FieldRule("note", ("str", "null")),
    FieldRule("context", ("str", "null")),
    FieldRule("n_scored", ("int", "null")),
    *(
        FieldRule(name, ("object", "null"))
        for name in (
            "scores",
            "overall",
            "by_category",
            "by_facet",
            "by_subset",
            "run",
            "source",
            "epochs",
            "requests",
            "context_run",
        )
    ),
)
#: metrics.json's ``run``: what the seconds-per-query column reads.
METRICS_RUN_FIELDS: tuple[FieldRule, ...] = (
    FieldRule("wall_time_s", ("number", "null")),
    FieldRule("answered", ("number", "null")),
)
_METRICS_FIX = "re-create it with `socialbench score` or restore the file"


def read_metrics_json(path: Path) -> dict[str, Any]:
    """A run's ``metrics.json``, read safely (:func:`~socialbench.files.safe_read.read_json`:
    a regular file, size-capped, strict UTF-8 and JSON) with its top-level fields of their
    kinds (:data:`METRICS_FIELDS`); :class:`DataError` naming the file and field otherwise."""
    data = read_json(path)
    problem = check_fields(data, METRICS_FIELDS, str(path), _METRICS_FIX)
    if problem is None and isinstance(data.get("run"), Mapping):
        problem = check_fields(data["run"], METRICS_RUN_FIELDS, str(path), _METRICS_FIX, prefix="run.")
    for name in SCORE_BLOCKS if problem is None else ():
        found = _not_a_number(data.get(name), name)
        if found is not None:
            where, value = found
            problem = Problem(str(path), where, f"must be a number or null, found {json_kind(value)}", _METRICS_FIX)
            break
    if problem is not None:
        raise DataError(problem)
    return data


#: metrics.json's blocks of scores: every value in them is a number (or null), at any depth.
SCORE_BLOCKS = ("scores", "overall", "by_category", "by_facet", "by_subset")


def _not_a_number(block: Any, name: str) -> tuple[str, Any] | None:
    """The first (path, value) in ``block`` (objects and lists, walked without recursion)
    whose value is neither a number nor null, or None."""
    stack: list[tuple[str, Any]] = [(name, block)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, Mapping):
            stack += [(f"{where}.{k}", v) for k, v in reversed(list(value.items()))]
        elif isinstance(value, list):
            stack += [(f"{where}[{i}]", v) for i, v in reversed(list(enumerate(value)))]
        elif value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return where, value
    return None


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


@dataclass
class RunDir:
    """One run directory: its ``run.json``, ``metrics.json`` and (lazily) its samples."""

    path: Path
    run: Mapping[str, Any]
    metrics: Mapping[str, Any]
    label: str = ""
    _samples: list[SampleRecord] | None = field(default=None, repr=False)

    @property
    def benchmark(self) -> str:
        """The benchmark the run was made as: ``run.json``'s (``socialnav-sim`` for a run on
        the bundled scenes), else ``metrics.json``'s (which names the benchmark that scored
        it, ``socialnav-sub`` for both)."""
        return str(self.run.get("benchmark") or self.metrics.get("benchmark") or "")

    @property
    def model(self) -> str:
        return str(self.run.get("model") or self.metrics.get("model") or self.path.name)

    @property
    def protocol(self) -> str:
        return str(self.metrics.get("protocol") or self.run.get("protocol") or "paper")

    def result(self) -> JsonResult:
        """``metrics.json`` read into its benchmark's typed result (``result_type``; a
        :class:`~socialbench.metrics.results.PlainResult` for a benchmark without its own).
        Raises :class:`DataError` naming the field that does not fit."""
        from socialbench.benchmarks.base import get_benchmark

        bench, _ = get_benchmark(self.benchmark)
        where = self.path / "metrics.json"
        try:
            return bench.result_type.from_json(self.metrics, "metrics.json")
        except ValueError as exc:
            raise DataError.single(where, "", str(exc), "re-score the run with `socialbench score`") from None

    @property
    def scoring_protocol(self) -> ScoringProtocol:
        """The protocol the run was scored with, as the object (an unknown name is a
        :class:`~socialbench.metrics.protocols.UnknownProtocolError`)."""
        return protocol_named(self.protocol)

    @property
    def is_baseline(self) -> bool:
        return self.model.startswith(BASELINE_PREFIXES)

    @property
    def perturbation(self) -> tuple[str, float] | None:
        p = self.run.get("perturb")
        if isinstance(p, Mapping) and p.get("name"):
            return str(p["name"]), float(p.get("strength", 1.0))
        return None

    @property
    def strategy(self) -> str:
        return str(self.run.get("strategy") or "standard")

    def options_type(self) -> Any:
        """The options dataclass of the run's benchmark (None for a benchmark not registered
        here)."""
        from socialbench.benchmarks.base import benchmark_entry

        try:
            return benchmark_entry(self.benchmark).options if self.benchmark else None
        except UsageError:
            return None

    def _settings(self) -> list[tuple[Any, Any]]:
        """(option field, value) of each benchmark option that sets this run apart: recorded
        in run.json, not at its default, and in effect."""
        from socialbench.benchmarks.options import distinguishing, recorded_options

        cls = self.options_type()
        return [] if cls is None else distinguishing(cls, recorded_options(cls, self.run))

    def options(self) -> dict[str, Any]:
        """Non-default benchmark options of run.json ``options`` (details such as the RAG
        backend), sorted by name; an option that matters only under another option's value
        counts only then. For a benchmark not registered here: every recorded one."""
        if self.options_type() is None:
            opts = self.run.get("options")
            opts = opts if isinstance(opts, Mapping) else {}
            return {str(k): opts[k] for k in sorted(opts, key=str) if opts[k] is not None}
        return {f.name: value for f, value in sorted(self._settings(), key=lambda fv: fv[0].name) if f.info.detail}

    def options_key(self, *, rag: bool = True) -> tuple[tuple[str, str], ...]:
        """The non-default options as a hashable key, for pairing runs that must share every
        other setting; without ``rag``, leaving out the options that matter only under another
        option's value (RobotEQ's retrieval settings, under ``--strategy rag``)."""
        keep = {f.name for f, _ in self._settings() if rag or f.info.when is None}
        return tuple((k, str(v)) for k, v in self.options().items() if k in keep or self.options_type() is None)

    def variant(self) -> str:
        """Non-default settings, e.g. ``cot, img``, ``rag, dense, k=4`` or ``rag, blur1``
        ('' for defaults): the benchmark's options in its order, then the perturbation."""
        if self.options_type() is None:
            parts = [f"{k}={v}" for k, v in self.options().items()]
        else:
            parts = [f.info.label.format(value=value, name=f.name) for f, value in self._settings()]
        pert = self.perturbation
        if pert:
            parts.append(f"{pert[0]}{pert[1]:g}")
        return ", ".join(parts)

    def samples(self) -> list[SampleRecord]:
        """The records of ``samples.jsonl`` (latest per question), else of the predictions
        that ``socialbench score`` recorded in ``metrics.json``; [] when there are none."""
        if self._samples is None:
            from socialbench.records import read_samples

            latest: dict[tuple[str, str], SampleRecord] = {}
            own = self.path / "samples.jsonl"
            # anything at samples.jsonl is read (a FIFO there is refused, not taken for none)
            records = read_samples(own) if own.exists() or own.is_symlink() else self._scored_predictions()
            for r in records:
                latest[(r.item_id, r.question_key)] = r
            self._samples = list(latest.values())
        return self._samples

    def _scored_predictions(self) -> list[SampleRecord]:
        """The predictions a ``socialbench score`` output was computed from (its
        ``metrics.json`` ``source.predictions``), read as the benchmark reads them."""
        source = self.metrics.get("source")
        pred = source.get("predictions") if isinstance(source, Mapping) else None
        if not isinstance(pred, str) or not pred or not self.benchmark:
            return []
        path = Path(pred)
        if not path.exists():
            raise DataError.single(
                self.path / "metrics.json",
                "source.predictions",
                f"the scored predictions {pred} are gone",
                "score them again with `socialbench score --out` here",
            )
        from socialbench.benchmarks.base import get_benchmark

        bench, _ = get_benchmark(self.benchmark)
        return list(bench.read_predictions(path))

    def seconds_per_query(self) -> float | None:
        """Mean model latency over answered, non-cached questions (None when unknown)."""
        lat = [r.latency_s for r in self.samples() if r.error is None and not r.cached and r.latency_s > 0]
        if lat:
            return float(np.mean(lat))
        wall = (self.metrics.get("run") or {}).get("wall_time_s")
        n = (self.metrics.get("run") or {}).get("answered")
        return float(wall) / float(n) if wall and n else None


def is_official_experiment(path: Path) -> bool:
    """Whether ``path`` is an official SocialNav-SUB experiment folder (reference §d)."""
    if not path.is_dir() or (path / "metrics.json").exists():
        return False
    return any(
        (d / "question_answers.json").is_file() or (d / "evaluation.json").is_file()
        for d in path.iterdir()
        if d.is_dir()
    )


def load_official_run(path: Path, data: Path | None) -> RunDir:
    """An official experiment folder scored (``official`` protocol) against the labels in
    ``data``, as a run whose samples are the folder's answers."""
    from socialbench.benchmarks.base import get_benchmark
    from socialbench.benchmarks.socialnav_sub.official_run import read_official_experiment

    if data is None:
        raise UsageError(
            f"{path} is an official experiment folder: pass --data DIR (the "
            "SocialNav-SUB labels folder) to score and compare it"
        )
    if not Path(data).exists():
        raise UsageError(f"--data {data} does not exist")
    bench, _ = get_benchmark("socialnav-sub")
    records = read_official_experiment(path)
    dataset = bench.load(Path(data), require_images=False, limit=None)
    metrics = bench.score(dataset, records, OFFICIAL).to_json()
    metrics["source"] = {"predictions": str(path), "data": str(data)}
    run = {"benchmark": "socialnav-sub", "model": f"official:{path.name}", "data": str(data), "protocol": "official"}
    return RunDir(path=path, run=run, metrics=metrics, _samples=records)


def load_run(path: str | Path, data: Path | None = None) -> RunDir:
    """Load a run directory (or an official experiment folder, scored against ``data``);
    raises :class:`DataError` naming the file and the fix."""
    p = Path(path)
    if is_official_experiment(p):
        return load_official_run(p, data)
    if not p.is_dir():
        if p.name == "metrics.json" and p.is_file():
            p = p.parent
        else:
            raise DataError.single(
                p, "", "not a run directory", "give a folder written by `socialbench eval` or `score`"
            )
    mpath = p / "metrics.json"
    if not mpath.is_file():
        raise DataError.single(
            mpath,
            "",
            "missing: the run was not scored",
            f"run `socialbench score --predictions {p} ...` (or finish the eval) to write it",
        )
    metrics = read_metrics_json(mpath)
    if not isinstance(metrics.get("scores"), Mapping) and not isinstance(metrics.get("overall"), Mapping):
        note = metrics.get("note") or "it holds no scores"
        raise DataError.single(
            mpath, "scores", f"nothing to report: {note}", "re-score the run with `socialbench score`"
        )
    rpath = p / "run.json"
    # anything at run.json is read: a FIFO or a device there is refused, not taken for none
    run = read_run_json(rpath) if rpath.exists() or rpath.is_symlink() else {}
    return RunDir(path=p, run=run, metrics=metrics)


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
    from socialbench.report.labels import telling_apart

    for base, idx in derived.items():
        if len(idx) > 1:
            for i, extra in zip(idx, telling_apart([runs[i].run for i in idx])):
                if extra:
                    bases[i] = f"{base[:-1]}, {extra})" if base.endswith(")") else f"{base} ({extra})"
    seen: dict[str, int] = {}
    for r, base in zip(runs, bases):
        seen[base] = seen.get(base, 0) + 1
        r.label = base if seen[base] == 1 else f"{base} #{seen[base]}"


def load_runs(
    paths: Sequence[str | Path], labels: Sequence[str] | None = None, data: Path | None = None
) -> list[RunDir]:
    """Load several run directories (official experiment folders scored against ``data``)
    and label them."""
    if not paths:
        raise UsageError("give at least one run directory")
    runs = [load_run(p, data) for p in expand_run_folders(paths)]
    assign_labels(runs, labels)
    return runs


def expand_run_folders(paths: Sequence[str | Path]) -> list[Path]:
    """``paths`` with every folder that holds run directories but is none itself (a
    ``socialbench sweep`` folder) replaced by the scored run directories below it, sorted
    (one without any is kept: loading it then says what is missing)."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if not p.is_dir() or (p / "metrics.json").exists() or (p / "run.json").exists() or is_official_experiment(p):
            out.append(p)
            continue
        found = sorted(m.parent for m in p.rglob("metrics.json") if (m.parent / "run.json").is_file())
        found_set = set(found)
        # A run inside another (an epoch of an `eval --epochs` run) is reported through it.
        out += [d for d in found if not any(a in found_set for a in d.parents)] or [p]
    return out


def benchmark_family(run: RunDir) -> str:
    """ "socialnav", "roboteq", or the run's own benchmark name."""
    return (
        "socialnav"
        if run.benchmark in SOCIALNAV_NAMES
        else "roboteq"
        if run.benchmark in ROBOTEQ_NAMES
        else run.benchmark
    )


def check_same_benchmark(runs: Sequence[RunDir]) -> str:
    """The benchmark family shared by ``runs`` ("socialnav" or "roboteq"); error otherwise."""
    families = {
        ("socialnav" if r.benchmark in SOCIALNAV_NAMES else "roboteq" if r.benchmark in ROBOTEQ_NAMES else r.benchmark)
        for r in runs
    }
    if len(families) != 1:
        listing = ", ".join(f"{r.path} ({r.benchmark or 'unknown'})" for r in runs)
        raise UsageError(f"runs of different benchmarks cannot share one report: {listing}")
    return families.pop()


# --------------------------------------------------------------------------- labels / items


def data_path(run: RunDir, data: Path | None = None) -> Path | None:
    """The labels folder of ``run``: ``data`` when given, else ``run.json``'s ``data``."""
    if data is not None:
        return Path(data)
    recorded = run.run.get("data") or (run.metrics.get("source") or {}).get("data")
    return Path(recorded) if recorded else None


def predictions_path(run: RunDir) -> Path:
    """Where ``run``'s predictions were made: the run directory, or for a ``socialbench
    score`` output without ``run.json`` the predictions it scored (``source.predictions``)."""
    source = run.metrics.get("source")
    pred = source.get("predictions") if isinstance(source, Mapping) else None
    if (run.path / "run.json").is_file() or not isinstance(pred, str) or not pred:
        return run.path
    return Path(pred)


def dataset_options(run: RunDir) -> EvalOptions | None:
    """The eval options ``run``'s dataset depends on, as its benchmark reads them from the
    run (:meth:`~socialbench.benchmarks.base.BaseBenchmark.predictions_options`: a
    SocialNav-SUB metamorphic run's variant and seed); ``None`` when it depends on none."""
    from socialbench.benchmarks.base import get_benchmark

    bench, _ = get_benchmark(run.benchmark)
    given = EvalOptions(protocol=run.protocol)
    found = bench.predictions_options(predictions_path(run), run.samples(), given)
    return None if found is given else found


def load_dataset(run: RunDir, data: Path | None = None, options: EvalOptions | None = None) -> Any:
    """Load the benchmark's items (labels only, no images needed) for ``run``, under the
    eval ``options`` its dataset depends on (:func:`dataset_options`; None: none).

    Raises :class:`UsageError` when the folder is unknown or gone, and lets the loader's
    :class:`DataError` through.
    """
    path = data_path(run, data)
    if path is None:
        raise UsageError(f"{run.path}: run.json records no data folder; pass --data DIR")
    if not path.exists():
        raise UsageError(f"{run.path}: data folder {path} does not exist; pass --data DIR")
    limit = run.run.get("limit")
    from socialbench.benchmarks.base import get_benchmark

    bench, _ = get_benchmark(run.benchmark)
    if options is not None:
        bench.check_options(options)
    elif run.benchmark in SOCIALNAV_NAMES:
        from socialbench.benchmarks.socialnav_sub.loader import load_socialnav

        return load_socialnav(path, require_images=False, limit=limit)
    return bench.load(path, require_images=False, limit=limit)


def scoring_entries(dataset: Any, records: Sequence[SampleRecord]) -> list[ScoringEntry]:
    """One :class:`ScoringEntry` per question of ``dataset`` that has a record, in item order."""
    by_key = {(r.item_id, r.question_key): r for r in records}
    out: list[ScoringEntry] = []
    for item in dataset.items:
        for q in item.questions:
            r = by_key.get((item.item_id, q.key))
            if r is not None:
                out.append(ScoringEntry(item.item_id, q, item.votes[q.key], r.parsed, r.raw, r.error))
    return out


@dataclass(frozen=True)
class UnitScores:
    """Per-question scores of one run on aligned questions (for paired comparisons)."""

    keys: tuple[tuple[str, str], ...]
    pa: np.ndarray
    cwpa: np.ndarray
    correct: np.ndarray  # answer is a most common human answer (a human mode)
    failed: np.ndarray  # no human gave the answer (invalid and errors included)
    invalid: np.ndarray  # no valid answer (unparseable or the model call failed)

    @property
    def clusters(self) -> list[str]:
        """The item (scene) of each question: the resampling cluster."""
        return [k[0] for k in self.keys]


def model_item_score(entry: ScoringEntry, protocol: ProtocolArg) -> ItemScore | None:
    """PA / CWPA of the model on one entry (``None`` when undefined: official protocol
    with fewer than 2 human answers)."""
    return as_protocol(protocol).model_score(entry)


def gold_answer(item: Item, key: str) -> Answer | None:
    """The gold (majority) answer when the benchmark records one: RobotEQ behavior labels
    (``metadata["behaviors"][key]["label"]``) and grounding answer sets; else ``None``."""
    meta = item.metadata
    beh = meta.get("behaviors")
    if isinstance(beh, Mapping) and isinstance(beh.get(key), Mapping) and beh[key].get("label"):
        return str(beh[key]["label"])
    ans = meta.get("answer")
    if isinstance(ans, (list, tuple)) and ans:
        try:
            return item.question(key).canonical(list(ans))
        except KeyError:
            return None
    return None


def unit_scores(
    entries: Sequence[ScoringEntry],
    protocol: ProtocolArg,
    *,
    skip_single: bool = True,
    golds: Mapping[tuple[str, str], Answer | None] | None = None,
) -> UnitScores:
    """PA, CWPA and binary outcomes of every entry under ``protocol``.

    ``correct`` (for McNemar) is "the answer equals the gold label" when ``golds`` gives one
    for the question (RobotEQ), else "the answer is a human mode" (CWPA = 1 under the paper
    protocol). With ``skip_single`` (SocialNav-SUB) items with n <= 1 human answers are
    skipped, as in its scores.
    """
    proto = as_protocol(protocol)
    kept = [e for e in entries if e.votes.n > 1 or not skip_single]
    keys, pa, cw, correct, failed, invalid = [], [], [], [], [], []
    for e in kept:
        s = proto.model_score(e)
        if s is None:
            continue
        a = proto.valid_answer(e)
        p = e.votes.probability(a) if a is not None else 0.0
        gold = (golds or {}).get((e.item_id, e.question.key))
        keys.append((e.item_id, e.question.key))
        pa.append(s.pa)
        cw.append(s.cwpa)
        correct.append(a is not None and (a == gold if gold is not None else p == max(e.votes.probabilities)))
        failed.append(a is None or p == 0.0)
        invalid.append(a is None)
    return UnitScores(
        keys=tuple(keys),
        pa=np.asarray(pa, dtype=float),
        cwpa=np.asarray(cw, dtype=float),
        correct=np.asarray(correct, dtype=bool),
        failed=np.asarray(failed, dtype=bool),
        invalid=np.asarray(invalid, dtype=bool),
    )


def align(scores: Sequence[UnitScores]) -> tuple[list[UnitScores], int]:
    """Restrict every run to the questions all of them answered (same order).

    Returns the aligned scores and the number of questions dropped from the largest run.
    Raises :class:`UsageError` when the runs share no question.
    """
    common = set(scores[0].keys)
    for s in scores[1:]:
        common &= set(s.keys)
    if not common:
        raise UsageError("the runs share no scored question; compare runs made on the same dataset")
    order = [k for k in scores[0].keys if k in common]
    out = []
    for s in scores:
        index = {k: i for i, k in enumerate(s.keys)}
        idx = np.fromiter((index[k] for k in order), dtype=np.int64, count=len(order))
        out.append(UnitScores(tuple(order), s.pa[idx], s.cwpa[idx], s.correct[idx], s.failed[idx], s.invalid[idx]))
    dropped = max(len(s.keys) for s in scores) - len(order)
    return out, dropped
