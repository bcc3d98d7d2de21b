"""The README's list of allowed skips names everything on the allow-list (ALLOWED_SKIPS in
tests/conftest.py): each optional extra a skip may be for, and each system reason."""

import re
from pathlib import Path

from conftest import ALLOWED_SKIPS

README = Path(__file__).resolve().parents[1] / "README.md"


def skip_paragraph() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("`make test` skips")
    return " ".join(text[start : text.index("\n\n", start)].split())


def allowed_extras() -> set[str]:
    names: set[str] = set()
    for skip in ALLOWED_SKIPS:
        for group in re.findall(r"\(([a-z|]+)\)", skip.pattern):
            names.update(group.split("|"))
    return names - {"torch", "transformers"}


def test_every_extra_a_skip_may_be_for_is_named():
    paragraph = skip_paragraph()
    missing = sorted(e for e in allowed_extras() if f"`{e}`" not in paragraph)
    assert not missing, f"README's skip list lacks the extras {missing}"


def test_every_system_reason_is_named():
    paragraph = skip_paragraph().lower()
    for word in ("chromium", "label studio", "gpu", "posix signals", "datasets"):
        assert word in paragraph, word
