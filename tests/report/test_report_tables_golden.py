"""Golden-file tests: every paper table in every format, from the fixed hand-written run
directories under ``fixtures/``. Regenerate after an intended change with
``SOCIALBENCH_UPDATE_GOLDEN=1 pytest tests/report/test_report_tables_golden.py`` and review
the diff."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import pytest

from socialbench.report.loading import load_runs
from socialbench.report.tables import (
    RENDERERS,
    Table,
    roboteq_rag_table,
    roboteq_table1,
    robustness_table,
    socialnav_question_table,
    socialnav_table1,
)

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = FIXTURES / "golden"
SN_RUNS = ["rule_based", "gpt4o", "o4mini_cot", "gpt4o_blur"]
RQ_RUNS = ["gpt55", "opus46", "qwen", "qwen_rag", "qwen_fisheye", "qwen_blur"]


def _sn() -> list:
    return load_runs([FIXTURES / "socialnav" / n for n in SN_RUNS])


def _rq() -> list:
    return load_runs([FIXTURES / "roboteq" / n for n in RQ_RUNS])


BUILDERS: dict[str, Callable[[], Table | None]] = {
    "socialnav_table1": lambda: socialnav_table1(_sn()),
    "socialnav_questions_models": lambda: socialnav_question_table(_sn(), "models"),
    "socialnav_questions_baselines": lambda: socialnav_question_table(_sn(), "baselines"),
    "socialnav_robustness": lambda: robustness_table(_sn()),
    "roboteq_table1": lambda: roboteq_table1(_rq()),
    "roboteq_table2": lambda: roboteq_rag_table(_rq()),
    "roboteq_robustness": lambda: robustness_table(_rq()),
}


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_table_matches_golden_file(name: str, fmt: str) -> None:
    table = BUILDERS[name]()
    assert table is not None
    ext, render = RENDERERS[fmt]
    text = render(table)
    path = GOLDEN / f"{name}{ext}"
    if os.environ.get("SOCIALBENCH_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; run with SOCIALBENCH_UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(encoding="utf-8")
