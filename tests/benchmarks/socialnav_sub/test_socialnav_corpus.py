"""The SocialNav-SUB corruption corpus: every corruption is rejected by ``data validate`` with
a message naming the file, or accepted and then evaluated and scored without a traceback.

The corpus (``socialnav_corruptions.py``) runs once, in a child process with an
address-space limit (a memory blow-up fails its case instead of the machine) and a per-case
alarm (a hang fails its case instead of blocking the suite).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import socialnav_corruptions as corpus  # noqa: E402 - the test folder is on sys.path
from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset

RUNNER = Path(corpus.__file__)
pytestmark = pytest.mark.slow  # ~40 s: 150 corrupted copies validated, most evaluated


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("corpus")
    base = write_synthetic_dataset(tmp / "base", n_samples=2, people=[2, 1], seed=3, frame_size=(64, 36))
    out = tmp / "results.json"
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, str(RUNNER), str(base), str(tmp / "work"), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=corpus.CASE_TIMEOUT_S * 4 + 20 * len(corpus.CORRUPTIONS),
    )
    assert proc.returncode == 0 and out.is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
    return {r["name"]: r for r in json.loads(out.read_text())["results"]}


def _explain(result: dict) -> str:
    detail = result.get("eval") or result.get("score") or result.get("validate") or ""
    return f"{result['name']}: {result['outcome']}\n{detail[-1500:]}"


@pytest.mark.parametrize("name", sorted(corpus.CORRUPTIONS))
def test_corruption_is_rejected_clearly_or_runs(outcomes, name):
    result = outcomes[name]
    allowed = {"rejected"} if corpus.CORRUPTIONS[name].bad else {"rejected", "accepted"}
    assert result["outcome"] in allowed, _explain(result)


def test_corpus_counts(outcomes, capsys):
    counts = corpus.counts(list(outcomes.values()))
    with capsys.disabled():
        print(f"\nSocialNav-SUB corruption corpus: {counts}")
    assert counts["cases"] >= 100
    assert counts["clear_errors"] + counts["accepted_ok"] == counts["cases"]
    assert counts["tracebacks"] == counts["hangs"] == counts["memory_blowups"] == 0
    assert counts["accepted_bad"] == counts["accepted_broken"] == counts["unclear_errors"] == 0
