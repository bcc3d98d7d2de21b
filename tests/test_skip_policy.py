"""The skip policy in tests/conftest.py: a skip whose reason is not in ALLOWED_SKIPS fails the
session (under CI, also the skips that are only expected on a developer's machine)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).parent / "conftest.py"


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytest project using this suite's conftest.py, outside CI unless a test sets CI."""
    monkeypatch.delenv("CI", raising=False)
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    return pytester


def _skipping(reason: str) -> str:
    return f"import pytest\n\ndef test_passes():\n    pass\n\ndef test_skips():\n    pytest.skip({reason!r})\n"


def test_skip_with_an_unlisted_reason_fails_the_session(inner: pytest.Pytester) -> None:
    inner.makepyfile(_skipping("golden hashes recorded for Pillow 12"))
    result = inner.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*unexpected skips*", "*::test_skips: golden hashes recorded for Pillow 12"])


def test_skip_with_an_allowed_reason_passes(inner: pytest.Pytester) -> None:
    inner.makepyfile(_skipping("set SOCIALBENCH_LABEL_STUDIO_URL and SOCIALBENCH_LABEL_STUDIO_TOKEN"))
    result = inner.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=1, skipped=1)


def test_skip_allowed_only_outside_ci_fails_under_ci(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    inner.makepyfile(_skipping("chromium is not on PATH (Debian: apt-get install -y chromium)"))
    assert inner.runpytest("-p", "no:cacheprovider").ret == pytest.ExitCode.OK
    monkeypatch.setenv("CI", "true")
    assert inner.runpytest("-p", "no:cacheprovider").ret == pytest.ExitCode.TESTS_FAILED


def test_module_skipped_at_collection_fails_the_session(inner: pytest.Pytester) -> None:
    inner.makepyfile("import pytest\n\npytest.importorskip('socialbench_no_such_module')\n\ndef test_x():\n    pass\n")
    result = inner.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*could not import 'socialbench_no_such_module'*"])


def test_skipif_marker_with_an_unlisted_reason_fails_the_session(inner: pytest.Pytester) -> None:
    inner.makepyfile(
        "import pytest\n\n@pytest.mark.skipif(True, reason='library version differs')\ndef test_x():\n    pass\n"
    )
    result = inner.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*::test_x: library version differs"])


def test_failures_keep_their_exit_status(inner: pytest.Pytester) -> None:
    inner.makepyfile("def test_fails():\n    assert False\n")
    assert inner.runpytest("-p", "no:cacheprovider").ret == pytest.ExitCode.TESTS_FAILED
