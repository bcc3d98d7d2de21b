"""Property tests: whatever JSON (or bytes) a SocialNav-SUB file holds, the loaders and
validators either load it or raise :class:`DataError` naming the file; never another
exception."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset
from socialbench.benchmarks.socialnav_sub.validate import validate_socialnav
from socialbench.errors import DataError, Problem
from socialbench.files.safe_pickle import load_pickle_bytes
from socialbench.navigation.tracks_json import parse_tracks

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)

# every kind of JSON scalar, strings with lone surrogates and ints too large for a float
_text = st.text(st.characters(blacklist_categories=()), max_size=12)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**300)
    | st.floats(allow_nan=True, allow_infinity=True)
    | _text
)


def _json(keys: st.SearchStrategy[str] = _text) -> st.SearchStrategy:
    return st.recursive(
        _scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4), max_leaves=12
    )


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("prop") / "data"
    return write_synthetic_dataset(root, n_samples=1, people=[1], seed=5, frame_size=(32, 18))


@pytest.fixture()
def root(dataset, tmp_path) -> Path:
    return Path(shutil.copytree(dataset, tmp_path / "data"))


def _sid(root: Path) -> str:
    return json.loads((root / "prompts" / "sample_info.json").read_text())["samples"][0]["folderpath"]


def _loads_or_names(root: Path, path: Path) -> None:
    """Loading succeeds or raises DataError; validate returns problems (never raises)."""
    try:
        load_socialnav(root)
    except DataError as exc:
        assert exc.problems and all(isinstance(p, Problem) for p in exc.problems)
    problems = validate_socialnav(root, check_images=False)
    assert all(isinstance(p, Problem) for p in problems)
    for p in problems:
        str(p).encode("utf-8")  # printable: no lone surrogate reaches a message


@SETTINGS
@given(data=st.data())
def test_any_label_values_load_or_raise_data_error(dataset, root, data):
    original = json.loads((dataset / "human_labels" / _sid(dataset) / "common_answers.json").read_text())
    keys = sorted(original)
    path = root / "human_labels" / _sid(root) / "common_answers.json"
    changes = data.draw(st.dictionaries(st.sampled_from(keys) | _text, _json(), max_size=4))
    path.write_text(json.dumps({**original, **changes}))
    _loads_or_names(root, path)


@SETTINGS
@given(value=_json())
def test_any_labels_file_loads_or_raises_data_error(root, value):
    path = root / "human_labels" / _sid(root) / "common_answers.json"
    path.write_text(json.dumps(value))
    _loads_or_names(root, path)


@SETTINGS
@given(entry=st.dictionaries(st.sampled_from(["folderpath", "n_people"]) | _text, _json(), max_size=3))
def test_any_sample_entry_loads_or_raises_data_error(root, entry):
    for rel in ("prompts/sample_info.json", "sample_info.json", "human_labels/sample_info.json"):
        (root / rel).write_text(json.dumps({"samples": [entry]}))
    _loads_or_names(root, root / "prompts" / "sample_info.json")


@SETTINGS
@given(value=_json())
def test_any_sample_info_loads_or_raises_data_error(root, value):
    for rel in ("prompts/sample_info.json", "sample_info.json", "human_labels/sample_info.json"):
        (root / rel).write_text(json.dumps(value))
    _loads_or_names(root, root / "prompts" / "sample_info.json")


@SETTINGS
@given(value=_json())
def test_any_sample_metadata_loads_or_raises_data_error(root, value):
    (root / "sample_metadata.json").write_text(json.dumps(value))
    _loads_or_names(root, root / "sample_metadata.json")


@SETTINGS
@given(value=_json())
def test_any_goal_info_loads_or_raises_data_error(root, value):
    (root / "goal_info.json").write_text(json.dumps(value))
    _loads_or_names(root, root / "goal_info.json")


_observation = st.fixed_dictionaries(
    {},
    optional={
        "center_x": _scalars,
        "center_y": _scalars,
        "timestep": _scalars,
        "pos_diff": _scalars,
        "bbox": _json() | st.lists(_scalars, min_size=4, max_size=4),
    },
)


@SETTINGS
@given(tracks=st.dictionaries(_text, st.lists(_observation, max_size=3) | _json(), max_size=3))
def test_any_tracks_parse_or_raise_data_error(tracks):
    try:
        parse_tracks({"track_id_to_object_trajectory": tracks}, "tracks.json")
    except DataError as exc:
        assert all(p.file == "tracks.json" for p in exc.problems)


@SETTINGS
@given(tracks=st.dictionaries(_text, st.lists(_observation, max_size=3), max_size=3))
def test_any_tracks_file_validates_without_exception(root, tracks):
    sid = _sid(root)
    path = root / "prompts" / sid / f"{sid}_localized_obj_coords.json"
    path.write_text(json.dumps({"track_id_to_object_trajectory": tracks}))
    assert all(isinstance(p, Problem) for p in validate_socialnav(root))


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=200))
def test_any_bytes_unpickle_or_raise_data_error(data):
    try:
        load_pickle_bytes(b"\x80\x04" + data, "traj_data.pkl")
    except DataError as exc:
        assert exc.problems[0].file == "traj_data.pkl"
