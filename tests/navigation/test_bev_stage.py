"""The BEV's matplotlib side: rcParams handling, and per-process caches that stay bounded."""

import matplotlib
import numpy as np

from socialbench.navigation import bev_stage, mpl_style
from socialbench.navigation.bev import BevLimits, BevRenderer, BevStyle

SMALL = BevStyle(dpi=30)


def test_mpl_style_sets_matplotlib_defaults_and_restores_the_callers_settings() -> None:
    with matplotlib.rc_context({"lines.linewidth": 7.0, "font.family": "serif"}):
        with mpl_style.mpl_style():
            assert matplotlib.rcParams["lines.linewidth"] == 1.5  # matplotlib's default
            assert matplotlib.rcParams["font.family"] == ["DejaVu Sans"]
        assert matplotlib.rcParams["lines.linewidth"] == 7.0
        assert matplotlib.rcParams["font.family"] == ["serif"]


def test_stage_cache_holds_a_bounded_number_of_backgrounds() -> None:
    bev_stage.clear_stages()
    for i in range(bev_stage.STAGE_CACHE_ENTRIES + 3):
        BevRenderer(BevLimits(0.0, 10.0 + i), None, 0, SMALL)
    assert len(bev_stage._stages) == bev_stage.STAGE_CACHE_ENTRIES


def test_stage_cache_holds_a_bounded_number_of_bytes(monkeypatch) -> None:
    bev_stage.clear_stages()
    one = 4 * round(SMALL.size_in * SMALL.dpi) ** 2
    monkeypatch.setattr(bev_stage, "STAGE_CACHE_BYTES", 2 * one)
    for i in range(3):
        BevRenderer(BevLimits(0.0, 10.0 + i), None, 0, SMALL)
    assert len(bev_stage._stages) == 2


def test_samples_with_the_same_limits_share_a_background() -> None:
    bev_stage.clear_stages()
    a = BevRenderer(BevLimits(), (5.0, 1.0), 0, SMALL)
    b = BevRenderer(BevLimits(), (7.0, -1.0), 0, SMALL)
    assert len(bev_stage._stages) == 1
    assert not np.array_equal(np.asarray(a.render({}, None)), np.asarray(b.render({}, None)))  # own goals


def test_a_cleared_cache_draws_the_same_background_again() -> None:
    before = np.asarray(BevRenderer(BevLimits(), None, 0, SMALL).render({}, None))
    bev_stage.clear_stages()
    assert np.array_equal(np.asarray(BevRenderer(BevLimits(), None, 0, SMALL).render({}, None)), before)
