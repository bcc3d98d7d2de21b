"""Shared fixtures: small synthetic SocialNav-SUB datasets built by the tests themselves."""

from pathlib import Path

import pytest

from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset


@pytest.fixture(scope="session")
def small_socialnav(tmp_path_factory) -> Path:
    """3 samples with 1, 2 and 3 people: 3*3 + 12*6 = 81 questions. Treat as read-only."""
    root = tmp_path_factory.mktemp("socialnav") / "data"
    return write_synthetic_dataset(root, n_samples=3, people=[1, 2, 3], seed=7)
