"""SocialNav-SUB paper-table builder rules (Table 1 rows, sections, protocols)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from socialbench.errors import UsageError
from socialbench.report.loading import load_runs
from socialbench.report.robustness_table import robustness_table
from socialbench.report.socialnav_tables import socialnav_table1

FIXTURES = Path(__file__).parent / "fixtures"


def _sn_runs() -> list:
    return load_runs([FIXTURES / "socialnav" / n for n in ("rule_based", "gpt4o", "o4mini_cot", "gpt4o_blur")])


def test_socialnav_table1_puts_baselines_before_vlms_and_bolds_best_vlm() -> None:
    t = socialnav_table1(_sn_runs())
    assert [r.stub[0] for r in t.rows] == ["Human Oracle", "Average Human", "Rule-Based", "gpt-4o", "o4-mini (cot)"]
    assert [r.section for r in t.rows] == ["Baseline"] * 3 + ["VLM"] * 2
    all_pa = [r.cells[0] for r in t.rows]
    assert [c.bold for c in all_pa] == [False, False, False, False, True]  # rule-based 0.64 is not a VLM


def test_perturbed_runs_leave_table1_for_the_robustness_table() -> None:
    t = socialnav_table1(_sn_runs())
    assert not any("blur" in r.stub[0] for r in t.rows)
    rob = robustness_table(_sn_runs())
    assert rob is not None and rob.rows[0].stub == ("gpt-4o",)
    assert rob.rows[0].cells[2].value == pytest.approx(0.50 - 0.45)


def test_runs_with_different_protocols_cannot_share_a_table(tmp_path: Path) -> None:
    d = tmp_path / "official"
    shutil.copytree(FIXTURES / "socialnav" / "gpt4o", d)
    m = json.loads((d / "metrics.json").read_text())
    m["protocol"] = "official"
    (d / "metrics.json").write_text(json.dumps(m))
    runs = load_runs([FIXTURES / "socialnav" / "rule_based", d])
    with pytest.raises(UsageError, match="different protocols"):
        socialnav_table1(runs)
