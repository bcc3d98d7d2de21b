"""Scores printed from a metrics.json (possibly from a shared run folder) show its text as
written: rich markup is not applied, terminal controls are escaped (issue 29)."""

from __future__ import annotations

import pytest

from socialbench.cli import printing


def _metrics(benchmark: str) -> dict:
    block = {"PA": 0.5, "PA_se": 0.1, "CWPA": 0.6, "CWPA_se": 0.1, "n": 3}
    return {"benchmark": benchmark, "protocol": "ep", "scores": {"model": {"All": block}}}


def test_the_scores_title_shows_markup_and_escapes_inert(capsys: pytest.CaptureFixture[str]) -> None:
    printing.print_scores(_metrics("[/]bench\x1b]0;pwned\x07"))
    shown = capsys.readouterr().out
    assert "[/]bench" in shown and "\x1b]0" not in shown


def test_a_benchmark_summary_is_printed_with_controls_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    class Bench:
        @staticmethod
        def format_summary(metrics: dict) -> str:
            return f"model {metrics['model']}"

    printing.print_metrics(Bench(), {"model": "m\x1b[2J"})
    assert capsys.readouterr().out.strip() == "model m\\x1b[2J"
