"""Rewrite the golden files of tests/report/test_report_tables_golden.py after an intended
change to a table, then review them with ``git diff tests/report/fixtures/golden``.

Never run by the tests: they always compare with the committed files.

Usage (repo root): ``.venv/bin/python scripts/update_table_goldens.py``
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "report"))

from socialbench.report.renderers import RENDERERS  # noqa: E402
from table_goldens import BUILDERS, golden_path, render_table  # noqa: E402


def main() -> int:
    changed = 0
    for name in sorted(BUILDERS):
        for fmt in sorted(RENDERERS):
            path = golden_path(name, fmt)
            text = render_table(name, fmt)
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
                changed += 1
                print(f"updated {path}")
    print(f"{changed} golden file(s) changed; review them with git diff")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
