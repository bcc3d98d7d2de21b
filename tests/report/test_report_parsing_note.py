"""Under every table of runs scored with an official protocol, a note says which official
path read the replies (GPT: strict json.loads; Gemini/LLaVA: the {...} inside the reply)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from socialbench.report.data_source import label_tables
from socialbench.report.parsing_note import parsing_notes
from socialbench.report.run_dir import RunDir
from socialbench.report.table import Table


def _run(name: str, protocol: str, **run: Any) -> RunDir:
    return RunDir(Path("runs") / name, {"protocol": protocol, **run}, {"protocol": protocol}, label=name)


def test_the_gpt_path_is_named_for_official() -> None:
    (note,) = parsing_notes([_run("a", "official")])
    assert note.startswith("Parsing (official): replies read as the official GPT path reads them")


def test_the_gemini_path_is_named_for_official_gemini() -> None:
    (note,) = parsing_notes([_run("a", "official-gemini")])
    assert note.startswith("Parsing (official-gemini): replies read as the official Gemini/LLaVA path")


def test_paper_runs_get_no_parsing_note() -> None:
    assert parsing_notes([_run("a", "paper")]) == ()


def test_every_table_carries_the_parsing_note() -> None:
    (table,) = label_tables([Table("t", "T", ("x",), (), ())], [_run("a", "official-gemini")])
    assert any(n.startswith("Parsing (official-gemini)") for n in table.notes)
