"""Survey exports read as untrusted input: random values in any field of a valid export give
answers or DataError naming the export, never another exception."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from socialbench.construction.socialnav_survey.answers import read_survey_export
from socialbench.construction.socialnav_survey.dataset import read_survey_dataset
from socialbench.errors import DataError
from socialbench.testing.label_studio_survey import fake_export, plan

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
_FIELDS = [
    (0,),
    (0, "id"),
    (0, "data"),
    (0, "data", "kind"),
    (0, "data", "survey_id"),
    (0, "data", "sample_id"),
    (0, "data", "annotators"),
    (0, "data", "people"),
    (0, "data", "people", 0),
    (0, "data", "people", 0, "label"),
    (0, "annotations"),
    (0, "annotations", 0),
    (0, "annotations", 0, "id"),
    (0, "annotations", 0, "completed_by"),
    (0, "annotations", 0, "updated_at"),
    (0, "annotations", 0, "was_cancelled"),
    (0, "annotations", 0, "lead_time"),
    (0, "annotations", 0, "result"),
    (0, "annotations", 0, "result", 0),
    (0, "annotations", 0, "result", 0, "from_name"),
    (0, "annotations", 0, "result", 0, "value"),
    (0, "annotations", 0, "result", 0, "value", "choices"),
]


@pytest.fixture(scope="module")
def valid(survey_source: Path, tmp_path_factory) -> tuple[Any, list[dict]]:
    from socialbench.construction.socialnav_survey.export import export_survey

    out = tmp_path_factory.mktemp("hostile") / "survey"
    export_survey(survey_source, out, annotators=2)
    tasks = json.loads((out / "tasks.json").read_text())
    return read_survey_dataset(survey_source), fake_export(tasks, plan(tasks, 2))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.sampled_from(_FIELDS), _json), min_size=1, max_size=3))
def test_random_field_values_give_answers_or_data_errors_only(valid, tmp_path: Path, changes: list[Any]) -> None:
    ds, export = valid
    doc: Any = copy.deepcopy(export)
    for path, value in changes:
        node = doc
        try:
            for step in path[:-1]:
                node = node[step]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed the parent
    file = tmp_path / "export.json"
    file.write_text(json.dumps(doc))
    try:
        read = read_survey_export([file], ds)
    except DataError as e:
        assert e.problems and all(p.file.endswith("export.json") for p in e.problems)
    else:
        assert set(read.answers) == {sid for sid, _ in ds.samples}
        assert all(len(panel) >= 2 for panel in read.answers.values())
