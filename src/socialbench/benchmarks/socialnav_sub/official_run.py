"""Read an experiment folder written by the official SocialNav-SUB ``evaluate_vlm.py``.

Layout (reference §d): ``<exp>/<sample>/question_answers.json`` (question key -> parsed
answer, ``"INVALID"`` when parsing failed) and ``<exp>/<sample>/evaluation.json`` (per key:
``latency_sec``, ``vlm_probabilities`` ``{str(choice): p}``, multiple-select choices as tuple
strings). Each answer becomes a :class:`~socialbench.types.SampleRecord` with
``parse_method "official"``; invalid answers (or, from ``evaluation.json`` alone, an all-zero
distribution) become ``parsed=None``, multiple-select answers keep their order as a list.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import Any

from socialbench.errors import DataError, Problem
from socialbench.files.safe_read import read_json
from socialbench.types import SampleRecord

INVALID = "INVALID"
PARSE_METHOD = "official"


def _read(path: Path, problems: list[Problem]) -> dict[str, object] | None:
    try:
        data = read_json(path)  # regular files only; strict JSON; valid Unicode
    except DataError as exc:
        problems.extend(exc.problems)
        return None
    if not isinstance(data, dict):
        problems.append(Problem(str(path), "", "must be a JSON object", "expected {question_key: ...}"))
        return None
    return data


def parse_choice_key(key: str) -> str | list[str]:
    """Turn a ``vlm_probabilities`` key back into an answer: ``"('a', 'b')"`` -> ``["a",
    "b"]``; any other key is the option string itself."""
    if key.startswith("(") and key.endswith(")"):
        try:
            value = ast.literal_eval(key)
        except (ValueError, SyntaxError):
            return key
        if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
            return list(value)
    return key


def answer_from_probabilities(probs: object) -> str | list[str] | None:
    """First choice with the highest probability, or None when all are zero / unusable."""
    if not isinstance(probs, dict) or not probs:
        return None
    best_key, best = None, 0.0
    for key, p in probs.items():
        if isinstance(p, (int, float)) and not isinstance(p, bool) and math.isfinite(p) and p > best:
            best_key, best = key, float(p)
    return parse_choice_key(best_key) if best_key is not None else None


def _latency(entry: object) -> float:
    if isinstance(entry, dict):
        v = entry.get("latency_sec")
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            return float(v)
    return 0.0


def _record(sample: str, key: str, parsed: Any, latency: float) -> SampleRecord:
    if parsed == INVALID:
        parsed = None
    return SampleRecord(
        item_id=sample,
        question_key=key,
        raw=None,
        parsed=parsed,
        parse_method=PARSE_METHOD,
        error=None,
        latency_s=latency,
        usage={},
    )


def read_official_experiment(exp_dir: Path | str) -> list[SampleRecord]:
    """All answers of an official experiment folder, sample folders in name order and keys in
    file order. Raises :class:`DataError` naming every unreadable file."""
    exp = Path(exp_dir)
    if not exp.is_dir():
        raise DataError.single(
            str(exp), "", "experiment folder does not exist", "pass the folder that holds one sub-folder per sample"
        )
    problems: list[Problem] = []
    records: list[SampleRecord] = []
    n_samples = 0
    for sample_dir in sorted(p for p in exp.iterdir() if p.is_dir()):
        qa_path = sample_dir / "question_answers.json"
        ev_path = sample_dir / "evaluation.json"
        if not qa_path.is_file() and not ev_path.is_file():
            continue
        n_samples += 1
        sample = sample_dir.name
        evaluation = _read(ev_path, problems) if ev_path.is_file() else {}
        answers = _read(qa_path, problems) if qa_path.is_file() else None
        if evaluation is None or (answers is None and qa_path.is_file()):
            continue
        if answers is not None:
            for key, value in answers.items():
                records.append(_record(sample, key, value, _latency(evaluation.get(key))))
        for key, entry in evaluation.items():
            if answers is not None and key in answers:
                continue
            probs = entry.get("vlm_probabilities") if isinstance(entry, dict) else None
            records.append(_record(sample, key, answer_from_probabilities(probs), _latency(entry)))
    if problems:
        raise DataError(problems)
    if n_samples == 0:
        raise DataError.single(
            str(exp),
            "",
            "no sample folders with question_answers.json or evaluation.json",
            "pass an official experiment folder",
        )
    return records


#: The official harness's ``method`` values (reference §g) as socialbench's ``--method``
#: spells them.
OFFICIAL_METHODS: tuple[tuple[str, str], ...] = (
    ("cot_with_gt", "cot-gt"),
    ("independent", "independent"),
    ("cot", "cot"),
)


def official_experiment_run(exp_dir: Path | str) -> dict[str, Any]:
    """What an official experiment folder's name says of its run, as a run.json would say
    it: ``benchmark``, ``model`` (``official:<folder name>``) and, when the name ends in one
    of the harness's methods (it names each run ``experiment_<k>_<model>_<method>``,
    reference §g), ``method`` as socialbench spells it (``cot_with_gt`` -> ``cot-gt``: its
    Spatial and Spatiotemporal answers are the human mode, so the run is human-derived).
    The name is read, not the folder's config.yaml, which the harness copies from the
    working directory and may describe another run (reference, known issue 13)."""
    name = Path(exp_dir).name
    run: dict[str, Any] = {"benchmark": "socialnav-sub", "model": f"official:{name}", "protocol": "official"}
    for suffix, method in OFFICIAL_METHODS:
        if name == suffix or name.endswith("_" + suffix):
            run["method"] = method
            break
    return run
