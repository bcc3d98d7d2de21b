"""The paper tables that have golden files, built from the fixed hand-written run directories
under ``fixtures/``: shared by test_report_tables_golden.py (which compares) and
scripts/update_table_goldens.py (which rewrites the golden files after an intended change)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from socialbench.report.loading import load_runs
from socialbench.report.renderers import RENDERERS
from socialbench.report.roboteq_tables import roboteq_rag_table, roboteq_table1
from socialbench.report.robustness_table import robustness_table
from socialbench.report.socialnav_tables import socialnav_question_table, socialnav_table1
from socialbench.report.table import Table

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


def golden_path(name: str, fmt: str) -> Path:
    """The golden file of table ``name`` in format ``fmt``."""
    return GOLDEN / f"{name}{RENDERERS[fmt][0]}"


def render_table(name: str, fmt: str) -> str:
    """Table ``name`` rendered in ``fmt`` from the fixture runs."""
    table = BUILDERS[name]()
    if table is None:
        raise ValueError(f"table {name} is empty for the fixture runs")
    return RENDERERS[fmt][1](table)
