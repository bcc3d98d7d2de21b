"""MOTChallenge boxes: every row checked, one line naming file, line, field and fix."""

from __future__ import annotations

import pytest

from socialbench.errors import DataError
from socialbench.recording.mot import Box, format_boxes, read_boxes


def _write(tmp_path, text):
    p = tmp_path / "boxes.txt"
    p.write_text(text)
    return p


def test_boxes_round_trip_with_zero_based_frames(tmp_path):
    boxes = [Box(0, "3", 10.0, 20.0, 5.0, 15.0, 0.9), Box(2, "3", 11.0, 20.0, 5.0, 15.0, 1.0)]
    got = read_boxes(_write(tmp_path, format_boxes(boxes)), n_frames=3)
    assert got == boxes and got[0].bottom_centre == (12.5, 35.0)


@pytest.mark.parametrize(
    ("row", "field", "fix"),
    [
        ("1,2,3", "row", "frame,id,x,y,w,h"),
        ("1,2,abc,4,5,6,1,-1,-1,-1", "bb_left", "numbers"),
        ("0,2,3,4,5,6,1,-1,-1,-1", "frame", "number frames from 1"),
        ("1,2,3,4,0,6,1,-1,-1,-1", "bb_width/bb_height", "size"),
        ("9,2,3,4,5,6,1,-1,-1,-1", "frame", "boxes of this recording"),
    ],
)
def test_a_malformed_row_names_the_line_and_field(tmp_path, row, field, fix):
    path = _write(tmp_path, "1,1,3,4,5,6,1,-1,-1,-1\n" + row + "\n")
    with pytest.raises(DataError) as e:
        read_boxes(path, n_frames=5)
    msg = str(e.value)
    assert msg.startswith(f"{path}:2 [{field}]") and fix in msg and "\n" not in msg


def test_an_id_that_jumps_frames_is_refused(tmp_path):
    path = _write(tmp_path, "1,7,3,4,5,6,1,-1,-1,-1\n40,7,3,4,5,6,1,-1,-1,-1\n")
    with pytest.raises(DataError) as e:
        read_boxes(path, n_frames=50, max_gap=30)
    msg = str(e.value)
    assert f"{path}:2 [id]" in msg and "id 7 jumps from frame 1 to frame 40" in msg and "--max-track-gap" in msg


def test_a_gap_within_the_limit_is_kept(tmp_path):
    path = _write(tmp_path, "1,7,3,4,5,6,1,-1,-1,-1\n31,7,3,4,5,6,1,-1,-1,-1\n")
    assert [b.frame for b in read_boxes(path, n_frames=50, max_gap=30)] == [0, 30]


def test_the_same_id_twice_in_a_frame_is_refused(tmp_path):
    path = _write(tmp_path, "1,7,3,4,5,6,1\n1,7,9,4,5,6,1\n")
    with pytest.raises(DataError, match=r"boxes.txt:2 \[id\]: id 7 twice in frame 1 \(also line 1\)"):
        read_boxes(path)


def test_a_missing_boxes_file_names_the_flag(tmp_path):
    with pytest.raises(DataError, match=r"boxes.txt: boxes file not found \(fix: .*--boxes\)"):
        read_boxes(tmp_path / "boxes.txt")


def test_a_boxes_fifo_is_refused_without_blocking(tmp_path):
    import os

    os.mkfifo(tmp_path / "boxes.txt")
    with pytest.raises(DataError, match="not a regular file"):
        read_boxes(tmp_path / "boxes.txt")
