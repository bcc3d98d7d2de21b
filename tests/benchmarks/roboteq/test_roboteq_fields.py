"""The pure field parsers of RobotEQ rows (socialbench.benchmarks.roboteq.fields)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from roboteq_corruptions import huge_png_header
from socialbench.benchmarks.roboteq.annotations import parse_facets, parse_judgment_votes
from socialbench.benchmarks.roboteq.fields import parse_label_lines, parse_letters
from socialbench.benchmarks.roboteq.paths import image_problem


def test_parse_label_lines_reads_numbers_labels_and_text() -> None:
    entries, bad = parse_label_lines("[1] proper: Wave.\n\n[12] IMPROPER: Shout: loudly.\n[3] improper:")
    assert entries == [(1, "proper", "Wave."), (12, "improper", "Shout: loudly.")]
    assert bad == [(4, "[3] improper:")]


@pytest.mark.parametrize(
    "value, expected", [(["c", "A"], ("A", "C")), ("B, D", ("B", "D")), ("AC", ("A", "C")), ('["D"]', ("D",))]
)
def test_parse_letters_accepts_common_spellings(value: object, expected: tuple) -> None:
    assert parse_letters(value) == (expected, None)


def test_parse_letters_rejects_an_empty_selection() -> None:
    letters, err = parse_letters([])
    assert letters is None and "at least one" in (err or "")


def test_parse_facets_accepts_a_python_literal_scene_list() -> None:
    assert parse_facets("['safety', 'privacy']", [1, 2]) == ([("safety", "privacy"), ("safety", "privacy")], [])


def test_parse_facets_accepts_python_literal_per_behavior_lists() -> None:
    assert parse_facets("[['safety'], ['privacy']]", [1, 2]) == ([("safety",), ("privacy",)], [])


def test_parse_judgment_votes_accepts_a_python_literal() -> None:
    votes, errors = parse_judgment_votes("[['proper', 'improper'], ['improper']]", [1, 2])
    assert errors == [] and votes == [{"proper": 1, "improper": 1}, {"improper": 1}]


def test_parse_judgment_votes_none_entry_is_a_behavior_without_votes() -> None:
    assert parse_judgment_votes([["proper"], None], [1, 2]) == ([{"proper": 1}, None], [])
    assert parse_judgment_votes([None, None], [1, 2]) == (None, [])


def test_unreadable_facets_text_is_still_reported() -> None:
    _, errors = parse_facets("['safety', ", [1])
    assert errors and "neither valid JSON nor a Python" in errors[0]


def test_truncated_jpeg_is_reported_as_undecodable(tmp_path: Path) -> None:
    path = tmp_path / "cut.jpg"
    Image.new("RGB", (400, 300), (10, 200, 30)).save(path, "JPEG")
    path.write_bytes(path.read_bytes()[:800])
    assert "cannot be decoded" in (image_problem(path, decode=True) or "")


def test_image_over_the_pixel_limit_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "huge.png"
    path.write_bytes(huge_png_header(10_000, 10_000))
    assert "10000x10000 pixels" in (image_problem(path, decode=True) or "")
