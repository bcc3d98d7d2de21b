"""Fixtures of the SocialNav-SUB survey tests: one simulated dataset with composites and its
exported survey (session-wide, read-only), a fresh copy of the dataset for tests that import
answers into it, and the command line as the user runs it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from socialbench.cli import main
from socialbench.testing.label_studio_survey import simulated_dataset


@pytest.fixture(scope="session")
def survey_source(tmp_path_factory) -> Path:
    """A 3-scene simulated dataset with composites. Treat as read-only."""
    return simulated_dataset(tmp_path_factory.mktemp("survey-src") / "data")


@pytest.fixture
def data(survey_source: Path, tmp_path: Path) -> Path:
    """A copy of the dataset that a test may change."""
    return Path(shutil.copytree(survey_source, tmp_path / "data"))


@pytest.fixture
def run(capsys):
    """``socialbench ARGS`` in-process: (exit status, stdout lines, stderr lines)."""

    def invoke(*args: object) -> tuple[int, list[str], list[str]]:
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        cap = capsys.readouterr()
        return code, cap.out.splitlines(), cap.err.splitlines()

    return invoke


@pytest.fixture
def exported(data: Path, tmp_path: Path, run) -> tuple[Path, list[dict]]:
    """The survey of ``data`` with K = 4: (survey folder, its tasks)."""
    code, _, err = run("build", "socialnav-survey", "--data", data, "--out", tmp_path / "survey", "--annotators", 4)
    assert code == 0, err
    return tmp_path / "survey", json.loads((tmp_path / "survey" / "tasks.json").read_text())
