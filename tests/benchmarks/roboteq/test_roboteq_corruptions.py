"""The RobotEQ corruption corpus: every damaged folder is rejected with a message naming the
damaged file, or, for a harmless variant, accepted and then evaluated and scored; never a
traceback, a hang or a memory blow-up (each case runs in a forked child with a hard timeout
and an address-space limit; see roboteq_corruptions.py)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import roboteq_corruptions as rc
from roboteq_corruptions import BJ, CORPUS, SG, Corruption, classify, preload, run_case

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")

#: seconds one case may take before it counts as a hang (a clean case takes about one)
TIMEOUT = 60.0


@pytest.fixture(scope="module", autouse=True)
def _preloaded() -> None:
    preload()


def test_corpus_covers_both_tasks_label_files_and_images() -> None:
    names = [c.name for c in CORPUS]
    assert len(names) == len(set(names)) and len(names) >= 50
    assert {c.bench for c in CORPUS} == {BJ, SG}
    assert any("image" in n and c.bench == SG for n, c in zip(names, CORPUS))
    assert any("csv" in n for n in names) and any("canonical" in n for n in names)


@pytest.mark.parametrize("case", [c for c in CORPUS if c.bad], ids=lambda c: c.name)
def test_damaged_folder_is_rejected_naming_the_file(case: Corruption, tmp_path: Path) -> None:
    verdict, detail = classify(case, run_case(case, tmp_path, TIMEOUT))
    assert verdict == "clear", f"{case.name}: {verdict}: {detail}"


@pytest.mark.parametrize("case", [c for c in CORPUS if not c.bad], ids=lambda c: c.name)
def test_harmless_variant_is_accepted_and_runs(case: Corruption, tmp_path: Path) -> None:
    verdict, detail = classify(case, run_case(case, tmp_path, TIMEOUT))
    assert verdict == "accepted_ok", f"{case.name}: {verdict}: {detail}"


HARMLESS = Corruption("harness-check", BJ, "metadata.jsonl", lambda root: None, bad=False)


def test_runner_reports_a_hang_as_hang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rc, "_child", lambda case, root, work: time.sleep(3600))
    verdict, _ = classify(HARMLESS, run_case(HARMLESS, tmp_path, timeout=1.0))
    assert verdict == "hang"


def test_runner_reports_an_escaped_exception_as_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socialbench.cli

    def boom(argv: list[str]) -> None:
        raise RuntimeError("escaped")

    monkeypatch.setattr(socialbench.cli, "main", boom)
    verdict, detail = classify(HARMLESS, run_case(HARMLESS, tmp_path, TIMEOUT))
    assert (verdict, detail) == ("traceback", "validate: RuntimeError: escaped")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="the memory limit needs Linux /proc")
def test_runner_reports_memory_exhaustion_as_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def hog(case: Corruption, root: Path, work: Path) -> None:
        bytearray(2 * rc.MEMORY_HEADROOM)

    monkeypatch.setattr(rc, "_child", hog)
    verdict, _ = classify(HARMLESS, run_case(HARMLESS, tmp_path, TIMEOUT))
    assert verdict == "memory"
