"""The field parsers of SocialNav-SUB datasets (socialbench.benchmarks.socialnav_sub.parsers)."""

from __future__ import annotations

from socialbench.benchmarks.socialnav_sub.parsers import goal_key, parse_goal, unsafe_relative_path


def test_unsafe_relative_path():
    assert unsafe_relative_path("front_view/a/1.jpg") is None
    assert unsafe_relative_path("../a") is not None
    assert unsafe_relative_path("/a") is not None
    assert unsafe_relative_path("C:\\a") is not None


def test_goal_helpers():
    assert goal_key("101_Spot_1_155") == "101_Spot_1/155.jpg"
    assert parse_goal("[7539, -2601]") == (7.539, -2.601)
    assert parse_goal("[1, 2, 3]") is None
