"""Shared fixtures (small synthetic SocialNav-SUB datasets built by the tests themselves) and
the skip policy: a skip whose reason is not in ALLOWED_SKIPS fails the session."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset


@pytest.fixture(scope="session")
def small_socialnav(tmp_path_factory) -> Path:
    """3 samples with 1, 2 and 3 people: 3*3 + 12*6 = 81 questions. Treat as read-only."""
    root = tmp_path_factory.mktemp("socialnav") / "data"
    return write_synthetic_dataset(root, n_samples=3, people=[1, 2, 3], seed=7)


# --------------------------------------------------------------------------- skip policy
# A test that skips for a reason nobody expected has decayed into a silent pass. Every skip's
# reason must match ALLOWED_SKIPS; any other skip makes the session fail (exit status 1) and
# is listed in the terminal summary. Entries with ``in_ci=False`` are allowed only outside CI
# (``CI`` unset or false): on a developer's machine the optional extras and Chromium may be
# missing, while `.ci/run` installs them, so there every such test must run.


@dataclass(frozen=True)
class AllowedSkip:
    """One expected skip: a regular expression searched in the skip reason, why the skip is
    expected, and whether it is also expected under CI."""

    pattern: str
    why: str
    in_ci: bool


ALLOWED_SKIPS: tuple[AllowedSkip, ...] = (
    AllowedSkip(
        r"^set SOCIALBENCH_LABEL_STUDIO_URL and SOCIALBENCH_LABEL_STUDIO_TOKEN",
        "needs a Label Studio server; scripts/label_studio_roundtrip.sh runs these tests",
        in_ci=True,
    ),
    AllowedSkip(
        r"^set SOCIALBENCH_LITELLM_URL, SOCIALBENCH_LITELLM_KEY and SOCIALBENCH_LITELLM_STATS",
        "needs a LiteLLM proxy; scripts/litellm_roundtrip.sh runs these tests",
        in_ci=True,
    ),
    AllowedSkip(r"^no GPU", "needs a CUDA device", in_ci=True),
    AllowedSkip(r"^POSIX signals$", "Windows has no POSIX signals", in_ci=True),
    AllowedSkip(r"^chromium is not on PATH", "a system package; .ci/run installs it", in_ci=False),
    AllowedSkip(r"^could not import '(torch|transformers)'", "extra hf; `make extras` installs it", in_ci=False),
    AllowedSkip(
        r"\(optional extra (rag|dense|hub|hf|ray|train|inspect|serve|record)\) is not installed",
        "`make extras` installs it",
        in_ci=False,
    ),
    AllowedSkip(r"^datasets is not installed$", "extra hub; `make extras` installs it", in_ci=False),
)


def in_ci() -> bool:
    """True when the ``CI`` environment variable is true (CI services set ``CI=true``, and
    so does `.ci/run`)."""
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes", "on"}


def skip_allowed(reason: str, ci: bool) -> bool:
    """Whether a skip with this reason is expected (under CI when ``ci``)."""
    return any(re.search(a.pattern, reason) and (a.in_ci or not ci) for a in ALLOWED_SKIPS)


def skip_reason(report: pytest.CollectReport | pytest.TestReport) -> str:
    """The reason text of a skipped report (``pytest.skip("...")``, ``skipif(reason=...)``,
    ``importorskip``)."""
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")


class SkipPolicy:
    """Collects the skips whose reason is not allowed; fails the session when there are any."""

    def __init__(self, ci: bool) -> None:
        self.ci = ci
        self.unexpected: list[tuple[str, str]] = []  # (node id, reason)

    def _note(self, report: pytest.CollectReport | pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = skip_reason(report)
            if not skip_allowed(reason, self.ci):
                self.unexpected.append((report.nodeid, reason))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._note(report)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._note(report)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.unexpected:
            return
        where = "under CI" if self.ci else "outside CI"
        terminalreporter.section(f"unexpected skips ({where})", red=True)
        for nodeid, reason in self.unexpected:
            terminalreporter.line(f"{nodeid}: {reason}")
        terminalreporter.line(
            "Fix the cause, or add the reason to ALLOWED_SKIPS in tests/conftest.py with why it is expected."
        )

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.unexpected and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SkipPolicy(in_ci()), "socialbench-skip-policy")
    _private_home()


def _private_home() -> None:
    """Point HOME (and XDG_CACHE_HOME) at a fresh folder for this test session, so that runs
    started by the tests, in this process or in subprocesses, use their own default response
    and render caches (``~/.cache/socialbench``) instead of the user's: a stale entry there
    could answer a test, and the tests must not fill a developer's cache."""
    import atexit
    import shutil
    import tempfile

    home = tempfile.mkdtemp(prefix="sb-home-")
    os.environ["HOME"] = home
    os.environ["XDG_CACHE_HOME"] = os.path.join(home, ".cache")
    atexit.register(shutil.rmtree, home, True)
