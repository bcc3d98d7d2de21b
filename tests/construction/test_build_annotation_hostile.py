"""Label Studio exports read as untrusted input (issue 29): every field of the wrong type or
missing is one problem naming the file, the task (and annotation) and the field; a file that
is not a regular JSON file is refused without being read; random shapes never raise anything
but DataError."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from socialbench.construction.annotation_import import import_export
from socialbench.errors import DataError

ANN: dict[str, Any] = {
    "id": 10,
    "completed_by": 1,
    "updated_at": "2024-01-01T10:00:00Z",
    "result": [{"from_name": "label", "value": {"choices": ["proper"]}}],
}
TASK: dict[str, Any] = {
    "id": 1,
    "data": {"kind": "judgment", "item_id": "s1", "k": 1, "behavior": "Wave"},
    "annotations": [ANN],
}


def _export(tmp_path: Path, tasks: Any, name: str = "export.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(tasks))
    return path


def _task_with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """TASK with the field at ``path`` set to ``value`` (``...`` as value: removed)."""
    task = copy.deepcopy(TASK)
    node: Any = task
    for step in path[:-1]:
        node = node[step]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return task


def test_the_reference_export_imports(tmp_path: Path) -> None:
    res = import_export([_export(tmp_path, [TASK])])
    assert [(r["k"], r["label"], r["annotator"]) for r in res.rows["judgment"]] == [(1, "proper", "1")]


CASES = {
    "k missing": (("data", "k"), ..., "task 1.data.k"),
    "k text": (("data", "k"), "one", "task 1.data.k"),
    "k a list": (("data", "k"), [1], "task 1.data.k"),
    "k a fraction": (("data", "k"), 1.5, "task 1.data.k"),
    "k true": (("data", "k"), True, "task 1.data.k"),
    "kind a list": (("data", "kind"), ["judgment"], "task 1.data.kind"),
    "annotations a number": (("annotations",), 5, "task 1.annotations"),
    "annotations text": (("annotations",), "abc", "task 1.annotations"),
    "an annotation a number": (("annotations", 0), 3, "task 1.annotations[0]"),
    "result a number": (("annotations", 0, "result"), 5, "task 1.annotation 10.result"),
    "result an object": (("annotations", 0, "result"), {"a": 1}, "task 1.annotation 10.result"),
    "a result text": (("annotations", 0, "result", 0), "label", "task 1.annotation 10.result[0]"),
    "value text": (("annotations", 0, "result", 0, "value"), "choices", "task 1.annotation 10.result[0].value"),
    "value a list": (("annotations", 0, "result", 0, "value"), [1], "task 1.annotation 10.result[0].value"),
    "choices a number": (
        ("annotations", 0, "result", 0, "value", "choices"),
        5,
        "task 1.annotation 10.result[0].value.choices",
    ),
    "choices text": (
        ("annotations", 0, "result", 0, "value", "choices"),
        "proper",
        "task 1.annotation 10.result[0].value.choices",
    ),
    "a choice an object": (
        ("annotations", 0, "result", 0, "value", "choices"),
        [{"a": 1}],
        "task 1.annotation 10.result[0].value.choices",
    ),
    "completed_by a list": (("annotations", 0, "completed_by"), [1, 2], "task 1.annotation 10.completed_by"),
    "was_cancelled text": (("annotations", 0, "was_cancelled"), "no", "task 1.annotation 10.was_cancelled"),
    "lead_time text": (("annotations", 0, "lead_time"), "fast", "task 1.annotation 10.lead_time"),
    "annotation id an object": (("annotations", 0, "id"), {"x": 1}, "task 1.annotation #0.id"),
    "task id a list": (("id",), [1, 2], "task #0.id"),
}


@pytest.mark.parametrize("path, value, field", CASES.values(), ids=CASES.keys())
def test_a_field_of_the_wrong_type_is_one_problem_naming_file_task_and_field(
    tmp_path: Path, path: tuple[Any, ...], value: Any, field: str
) -> None:
    export = _export(tmp_path, [_task_with(path, value)])
    with pytest.raises(DataError) as e:
        import_export([export])
    (problem,) = e.value.problems
    assert (problem.file, problem.field) == (str(export), field)
    assert problem.fix and "\n" not in str(problem)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
def test_an_export_that_is_no_regular_file_is_refused_without_reading_it(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "export.json"
    if kind == "fifo":
        os.mkfifo(path)  # nobody writes: reading it would block forever
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")  # reading it whole would exhaust memory
    else:
        path.mkdir()
    with pytest.raises(DataError) as e:
        import_export([path])
    assert "not a regular file" in str(e.value) and str(path) in str(e.value)


@pytest.mark.parametrize(
    "text, what",
    [("[" * 100_000 + "]" * 100_000, "nested"), ('[{"id": NaN}]', "NaN"), ("[{", "invalid JSON")],
    ids=["deep", "nan", "syntax"],
)
def test_an_export_that_is_not_plain_json_is_one_problem(tmp_path: Path, text: str, what: str) -> None:
    path = tmp_path / "export.json"
    path.write_text(text)
    with pytest.raises(DataError) as e:
        import_export([path])
    assert what in str(e.value) and "export the project again" in str(e.value)


def test_an_annotator_with_terminal_escapes_is_kept_as_data(tmp_path: Path) -> None:
    name = "\x1b]0;title\x07\x1b[31mevil"
    task = _task_with(("annotations", 0, "completed_by"), {"email": name})
    (row,) = import_export([_export(tmp_path, [task])]).rows["judgment"]
    assert row["annotator"] == name  # stored as given; escaped wherever it is shown


# ----------------------------------------------------------------- random shapes

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
_FIELDS = [
    ("id",),
    ("data",),
    ("data", "k"),
    ("data", "kind"),
    ("data", "item_id"),
    ("annotations",),
    ("annotations", 0),
    ("annotations", 0, "id"),
    ("annotations", 0, "completed_by"),
    ("annotations", 0, "updated_at"),
    ("annotations", 0, "was_cancelled"),
    ("annotations", 0, "lead_time"),
    ("annotations", 0, "result"),
    ("annotations", 0, "result", 0),
    ("annotations", 0, "result", 0, "from_name"),
    ("annotations", 0, "result", 0, "value"),
    ("annotations", 0, "result", 0, "value", "choices"),
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.sampled_from(_FIELDS), _json), min_size=1, max_size=3))
def test_random_field_values_give_rows_or_data_errors_only(tmp_path: Path, changes: list[Any]) -> None:
    task: Any = copy.deepcopy(TASK)
    for path, value in changes:
        node = task
        try:
            for step in path[:-1]:
                node = node[step]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed the parent
    try:
        res = import_export([_export(tmp_path, [task])])
    except DataError as e:
        assert e.problems and all(p.file.endswith("export.json") for p in e.problems)
    else:
        for row in res.rows["judgment"]:
            assert isinstance(row["k"], int) and row["label"] in ("proper", "improper", "invalid")
            assert isinstance(row["annotator"], str)
