"""``perf/roboteq_cost.py`` on a small fixture of the published shape."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "perf" / "roboteq_cost.py"


@pytest.fixture(scope="module")
def cost():
    spec = importlib.util.spec_from_file_location("roboteq_cost", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fixture_has_the_requested_shape(cost, tmp_path: Path) -> None:
    from socialbench.benchmarks.roboteq.loader import load_roboteq
    from socialbench.benchmarks.roboteq.schema import TASK_BJ

    cost.make_fixture(tmp_path, scenes=7, behaviors=18, width=160, height=90)
    ds = load_roboteq(tmp_path, TASK_BJ, require_images=True)
    assert (len(ds.items), ds.n_questions) == (7, 18)
    assert sorted(len(i.questions) for i in ds.items) == [2, 2, 2, 3, 3, 3, 3]


def test_per_behavior_mode_costs_more_requests_but_no_more_encodes(cost, tmp_path: Path) -> None:
    cost.make_fixture(tmp_path, scenes=5, behaviors=12, width=1376, height=768)
    result = cost.measure(tmp_path, "standard", 768)
    scene, behavior = result["modes"]["per-scene"], result["modes"]["per-behavior"]
    assert (scene["requests"], behavior["requests"]) == (5, 12)
    assert scene["image_encodes"] == behavior["image_encodes"] == 5
    # 1376x768 -> 768x429: 2 x 1 tiles of 512 -> 425 tokens per request
    assert scene["image_tokens_tiles"] == 5 * 425 and behavior["image_tokens_tiles"] == 12 * 425
    assert behavior["text_tokens"] > scene["text_tokens"]


def test_no_image_strategy_has_no_image_tokens(cost, tmp_path: Path) -> None:
    cost.make_fixture(tmp_path, scenes=2, behaviors=3, width=64, height=64)
    result = cost.measure(tmp_path, "no-image", 768)
    assert result["modes"]["per-scene"]["image_tokens_tiles"] == 0
    assert result["modes"]["per-scene"]["image_encodes"] == 0
