"""Property tests of the RobotEQ loaders and validators over arbitrary JSON values.

Whatever a label file holds, loading either succeeds or raises :class:`DataError` (nothing
else), ``validate`` returns problems instead of raising, and a folder ``validate`` accepts
loads, with ids and metadata that can be written as UTF-8.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roboteq_fixtures import GROUNDING_ROWS, JUDGMENT_ROWS, draw_image
from socialbench.benchmarks.roboteq.annotations import parse_facets, parse_judgment_votes
from socialbench.benchmarks.roboteq.fields import parse_label_lines, parse_letters, parse_list_field
from socialbench.benchmarks.roboteq.loader import load_roboteq
from socialbench.benchmarks.roboteq.scan import scan_roboteq
from socialbench.benchmarks.roboteq.schema import TASK_BJ, TASK_SG
from socialbench.benchmarks.roboteq.validate import validate_roboteq
from socialbench.benchmarks.roboteq.write import canonical_row
from socialbench.errors import DataError, Problem

PROPERTY = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
#: text the release's fields plausibly hold, lone surrogates and label-like lines included
field_text = st.sampled_from(
    ["proper", "improper", "A", "A,C", "[1] proper: x", "safety", "real", "images/s1.png", "\ud800"]
) | st.text(max_size=20)
field_values = json_values | field_text | st.lists(field_text, max_size=4)
FIELDS = (
    "id",
    "task",
    "file_name",
    "image",
    "question",
    "labels",
    "option_texts",
    "gt_labels",
    "answer",
    "options",
    "votes",
    "facets",
    "subset",
    "category",
    "subcategory",
    "behaviors",
)


def _folder(tmp: str, meta: str, rows: list[Any]) -> Path:
    """A dataset folder with one label file ``meta`` holding ``rows`` and two images."""
    root = Path(tmp) / "data"
    for name in ("images/s1.png", "images/g1.png"):
        draw_image(root / Path(meta).parent / name, 1)
    (root / meta).parent.mkdir(parents=True, exist_ok=True)
    (root / meta).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


def _check(root: Path) -> None:
    """Validate and load both tasks: problems or a dataset, never another exception; a
    task validate accepts loads, and its ids and metadata encode as UTF-8."""
    for task in (TASK_BJ, TASK_SG):
        problems = validate_roboteq(root, task)
        assert all(isinstance(p, Problem) for p in problems)
        try:
            ds = load_roboteq(root, task, require_images=True)
        except DataError as exc:
            assert exc.problems, "a DataError lists its problems"
            assert problems, f"validate accepted what load refuses: {exc}"
            continue
        if not problems:
            for item in ds.items:
                json.dumps({"id": item.item_id, "meta": item.metadata}, ensure_ascii=False).encode("utf-8")


@PROPERTY
@given(st.lists(json_values, max_size=3))
def test_any_json_line_loads_or_gives_data_error(rows: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _check(_folder(tmp, "behavior_judgment/metadata.jsonl", rows))


@PROPERTY
@given(st.dictionaries(st.sampled_from(FIELDS), field_values, max_size=8))
def test_any_judgment_row_fields_load_or_give_data_error(row: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _check(_folder(tmp, "behavior_judgment/metadata.jsonl", [row]))


@PROPERTY
@given(st.sampled_from(range(len(JUDGMENT_ROWS))), st.sampled_from(FIELDS), field_values)
def test_one_damaged_field_of_a_valid_judgment_row(index: int, name: str, value: Any) -> None:
    row = dict(JUDGMENT_ROWS[index], file_name="images/s1.png")
    row[name] = value
    with tempfile.TemporaryDirectory() as tmp:
        _check(_folder(tmp, "behavior_judgment/metadata.jsonl", [row]))


@PROPERTY
@given(st.sampled_from(range(len(GROUNDING_ROWS))), st.sampled_from(FIELDS), field_values)
def test_one_damaged_field_of_a_valid_grounding_row(index: int, name: str, value: Any) -> None:
    row = dict(GROUNDING_ROWS[index], file_name="images/g1.png")
    row[name] = value
    with tempfile.TemporaryDirectory() as tmp:
        _check(_folder(tmp, "spatial_grounding/metadata.jsonl", [row]))


@PROPERTY
@given(st.sampled_from(["k", "text", "label", "facets", "votes"]), field_values)
def test_one_damaged_behavior_of_a_canonical_row(name: str, value: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source = _folder(tmp, "behavior_judgment/metadata.jsonl", [dict(JUDGMENT_ROWS[0], file_name="images/s1.png")])
        row = canonical_row(scan_roboteq(source).scenes[0])
        row["behaviors"][0][name] = value
        root = Path(tmp) / "canonical"
        draw_image(root / row["image"], 1)
        (root / "roboteq.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
        _check(root)


@PROPERTY
@given(st.binary(max_size=200))
def test_any_bytes_as_a_csv_label_file(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = _folder(tmp, "behavior_judgment/metadata.jsonl", [])
        (root / "behavior_judgment/metadata.jsonl").unlink()
        (root / "behavior_judgment/metadata.csv").write_bytes(b"file_name,question,labels\n" + data)
        _check(root)


@settings(max_examples=300, deadline=None, database=None)
@given(field_values, st.lists(st.integers(0, 5), max_size=4, unique=True))
def test_field_parsers_return_values_and_messages(value: Any, ks: list[int]) -> None:
    facets, f_errors = parse_facets(value, ks)
    assert len(facets) == len(ks) and all(isinstance(m, str) for m in f_errors)
    votes, v_errors = parse_judgment_votes(value, ks)
    assert (votes is None or len(votes) == len(ks)) and all(isinstance(m, str) for m in v_errors)
    letters, l_error = parse_letters(value)
    assert (letters is None) != (l_error is None)
    assert letters is None or (letters and set(letters) <= {"A", "B", "C", "D"})
    listed = parse_list_field(value)
    assert listed is None or isinstance(listed, list)
    if isinstance(value, str):
        entries, bad = parse_label_lines(value)
        assert all(lab in ("proper", "improper") and text for _, lab, text in entries)
        assert all(isinstance(line, str) for _, line in bad)
