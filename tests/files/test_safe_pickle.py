"""Tests for the restricted unpickler used on traj_data.pkl."""

from __future__ import annotations

import os
import pickle
from collections import OrderedDict

import numpy as np
import pytest

from socialbench.errors import DataError
from socialbench.files.safe_pickle import load_pickle_safely


class _OpensFile:
    """Unpickling this calls open(marker, "w"), which would create the marker file."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


class _RunsShell:
    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("payload", [_OpensFile, _RunsShell])
def test_malicious_pickle_is_refused_without_side_effect(tmp_path, payload):
    marker = tmp_path / "pwned"
    path = tmp_path / "traj_data.pkl"
    path.write_bytes(pickle.dumps({"position": payload(str(marker))}))
    with pytest.raises(DataError) as err:
        load_pickle_safely(path)
    assert not marker.exists()
    problem = err.value.problems[0]
    assert problem.file == str(path)
    assert "refused" in problem.message


def test_refusal_names_the_global(tmp_path):
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps(_RunsShell(str(tmp_path / "x"))))
    with pytest.raises(DataError) as err:
        load_pickle_safely(path)
    assert "system" in err.value.problems[0].message


def test_custom_class_is_refused(tmp_path):
    path = tmp_path / "obj.pkl"
    path.write_bytes(pickle.dumps(OrderedDict(a=_Plain())))
    with pytest.raises(DataError):
        load_pickle_safely(path)


class _Plain:
    pass


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_numpy_odometry_pickle_loads(tmp_path, protocol):
    position = np.arange(40, dtype=np.float64).reshape(20, 2)
    yaw = np.linspace(0.0, 1.0, 20)
    path = tmp_path / "traj_data.pkl"
    path.write_bytes(pickle.dumps({"position": position, "yaw": yaw}, protocol=protocol))
    data = load_pickle_safely(path)
    np.testing.assert_array_equal(data["position"], position)
    np.testing.assert_array_equal(data["yaw"], yaw)


def test_numpy_scalars_and_containers_load(tmp_path):
    obj = OrderedDict(s=np.float64(1.5), i=np.int32(3), t=(1, 2), st={1}, l=[np.float32(2)])
    path = tmp_path / "misc.pkl"
    path.write_bytes(pickle.dumps(obj, protocol=2))
    data = load_pickle_safely(path)
    assert data == obj and isinstance(data, OrderedDict)


def test_truncated_pickle_is_a_data_error(tmp_path):
    path = tmp_path / "cut.pkl"
    path.write_bytes(pickle.dumps({"position": np.zeros((5, 2))})[:-10])
    with pytest.raises(DataError) as err:
        load_pickle_safely(path)
    assert err.value.problems[0].file == str(path)


def test_missing_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError):
        load_pickle_safely(tmp_path / "absent.pkl")


class _Call:
    """Pickles as ``fn(*args)``: a global call with a small argument."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return (self.fn, self.args)


@pytest.mark.parametrize("fn", [bytearray, bytes])
def test_allocation_from_an_integer_is_refused(tmp_path, fn):
    path = tmp_path / "traj_data.pkl"
    path.write_bytes(pickle.dumps(_Call(fn, 12_000_000_000), protocol=2))
    assert len(path.read_bytes()) < 64
    with pytest.raises(DataError) as err:
        load_pickle_safely(path)
    assert err.value.problems[0].file == str(path)


def test_huge_array_shape_is_refused(tmp_path):
    path = tmp_path / "traj_data.pkl"
    path.write_bytes(pickle.dumps(_Call(np.ndarray, (10**6, 10**6)), protocol=4))
    with pytest.raises(DataError) as err:
        load_pickle_safely(path)
    assert "bytes" in err.value.problems[0].message


def test_complex_numbers_are_refused(tmp_path):
    path = tmp_path / "traj_data.pkl"
    path.write_bytes(pickle.dumps({"yaw": 1j}, protocol=2))
    with pytest.raises(DataError) as err:
        load_pickle_safely(path)
    assert "complex" in err.value.problems[0].message


def test_a_fifo_is_refused_without_blocking(tmp_path):
    path = tmp_path / "traj_data.pkl"
    os.mkfifo(path)
    with pytest.raises(DataError) as err:
        load_pickle_safely(path)
    assert "not a regular file" in err.value.problems[0].message
