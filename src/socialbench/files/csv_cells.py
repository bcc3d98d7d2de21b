"""CSV cells a spreadsheet cannot run as formulas (OWASP "CSV injection").

Every CSV socialbench writes passes each cell through :func:`csv_cell`: a text cell that
starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula (or becomes
one) in Excel, LibreOffice and Google Sheets, so it gets a leading ``'`` (OWASP's rule),
which the spreadsheet shows as text. Numbers stay numbers: an ``int``/``float`` cell, or a
text cell that is a plain decimal number (``-0.5``, ``+3``, ``-1e-05``), is written as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["FORMULA_STARTS", "csv_cell", "csv_row"]

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(value: object) -> object:
    """``value`` safe as a CSV cell: text starting like a formula gets a leading ``'``;
    numbers, and text that is a plain number, are kept."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS) or _NUMBER.fullmatch(value):
        return value
    return "'" + value


def csv_row(values: Iterable[object]) -> list[object]:
    """Every cell of a row through :func:`csv_cell`."""
    return [csv_cell(v) for v in values]
