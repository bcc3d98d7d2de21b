"""The README's list of allowed skips names everything on the allow-list (ALLOWED_SKIPS in
tests/conftest.py): each optional extra a skip may be for, and each system reason."""

import importlib.util
import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _allowed_skips() -> tuple:
    """tests/conftest.py's ALLOWED_SKIPS (loaded by path: other folders have a conftest too)."""
    spec = importlib.util.spec_from_file_location("root_conftest_for_readme", Path(__file__).with_name("conftest.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module.ALLOWED_SKIPS


ALLOWED_SKIPS = _allowed_skips()


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
