"""3-D tracks (``--tracks``): a person twice in one frame, or an id that is no whole number
(1.4 would merge into person 1), is one line naming the file and the row."""

import pytest

from socialbench.errors import DataError
from socialbench.recording.tracks3d import read_tracks3d


def test_a_person_twice_in_one_frame_is_refused_naming_the_row(tmp_path):
    p = tmp_path / "tracks.csv"
    p.write_text("frame,id,x,y\n1,1,2.0,0.5\n1,1,2.1,0.5\n")
    with pytest.raises(DataError, match=r"tracks\.csv:3 \[frame, id\]: person 1 appears twice in frame 1"):
        read_tracks3d(p, n_frames=10)


def test_a_fractional_id_is_refused(tmp_path):
    p = tmp_path / "tracks.json"
    p.write_text('[{"frame": 1, "id": 1.4, "x": 2.0, "y": 0.5}]')
    with pytest.raises(DataError, match=r"\[id\]: track id 1.4 is not a whole number"):
        read_tracks3d(p, n_frames=10)


def test_distinct_rows_are_read(tmp_path):
    p = tmp_path / "tracks.csv"
    p.write_text("frame,id,x,y\n1,1,2.0,0.5\n2,1,2.1,0.5\n1,2,3.0,-1.0\n")
    assert [(q.frame, q.track_id) for q in read_tracks3d(p, n_frames=10)] == [(0, "1"), (1, "1"), (0, "2")]
