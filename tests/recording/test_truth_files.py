"""The true tracks beside a simulated recording."""

from __future__ import annotations

import numpy as np
import pytest

from socialbench.errors import DataError
from socialbench.recording.truth_files import read_truth


def test_truth_positions_by_frame(tmp_path):
    (tmp_path / "people.csv").write_text("frame,time,id,x,y,visible\n1,0.0,4,1.0,2.0,1\n3,0.2,4,1.5,2.0,0\n")
    t = read_truth(tmp_path)
    xy = t.at("4", np.array([0, 1, 2]))
    assert np.allclose(xy[[0, 2]], [[1.0, 2.0], [1.5, 2.0]]) and np.isnan(xy[1]).all()
    assert t.visible_at("4", np.array([0, 2])).tolist() == [True, False]


def test_a_missing_truth_folder_names_the_file(tmp_path):
    with pytest.raises(DataError, match=r"people.csv: true tracks not found \(fix: give the folder"):
        read_truth(tmp_path)


def test_a_malformed_truth_row_names_its_line(tmp_path):
    (tmp_path / "people.csv").write_text("frame,time,id,x,y,visible\n1,0.0,4,one,2.0,1\n")
    with pytest.raises(DataError, match=r"people.csv:2 \[row\]"):
        read_truth(tmp_path)
