"""Golden-file tests: every paper table in every format, from the fixed hand-written run
directories under ``fixtures/``, compared with the committed file under ``fixtures/golden/``.
After an intended change, rewrite them with ``.venv/bin/python scripts/update_table_goldens.py``
(never part of the test run) and review the diff."""

from __future__ import annotations

import pytest

from socialbench.report.renderers import RENDERERS
from table_goldens import BUILDERS, golden_path, render_table


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_table_matches_golden_file(name: str, fmt: str) -> None:
    path = golden_path(name, fmt)
    assert path.is_file(), f"missing golden file {path}; run scripts/update_table_goldens.py and review it"
    assert render_table(name, fmt) == path.read_text(encoding="utf-8")
