"""Tracks: loading the release JSON, the official keep-filter and label order."""

import json
import math

import pytest

from socialbench.errors import DataError
from socialbench.navigation.track_labels import assign_labels, keep_track, label_people
from socialbench.navigation.tracks import PersonTrack, make_track
from socialbench.navigation.tracks_json import load_tracks, parse_tracks, tracks_to_json, write_tracks


def _obs(t, x, y, bbox=(0, 0, 10, 10), pos_diff=0.1):
    return {"center_x": x, "center_y": y, "yaw": 0.0, "timestep": t, "bbox": list(bbox), "pos_diff": pos_diff}


def test_load_tracks_reads_positions_bbox_and_sorts_timesteps(tmp_path):
    path = tmp_path / "S_localized_obj_coords.json"
    path.write_text(
        json.dumps(
            {
                "track_id_to_object_trajectory": {
                    "7": [_obs(2, 3.0, -1.0, (100, 50, 140, 200)), _obs(0, 2.5, -1.2, (90, 50, 130, 200))],
                }
            }
        )
    )
    tracks = load_tracks(path)
    tr = tracks["7"]
    assert tr.timesteps == (0, 2)
    assert tr.first.xy == (2.5, -1.2)
    assert tr.last.bbox == (100, 50, 140, 200)
    assert tr.last.bbox_center == (120.0, 125.0)
    assert tr.at(1) is None


def test_load_tracks_reports_every_bad_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps(
            {
                "track_id_to_object_trajectory": {
                    "1": [{"center_x": "far", "center_y": 0, "timestep": 0}],
                    "2": [{"center_x": 1, "center_y": 0, "timestep": -3}],
                }
            }
        )
    )
    with pytest.raises(DataError) as e:
        load_tracks(path)
    assert len(e.value.problems) == 2
    assert "track_id_to_object_trajectory.1[0]" in str(e.value)
    assert "bad.json" in str(e.value)


def test_parse_tracks_rejects_missing_top_level_key():
    with pytest.raises(DataError, match="track_id_to_object_trajectory"):
        parse_tracks({"tracks": {}}, "x.json")


def test_tracks_json_round_trip(tmp_path):
    tr = make_track("5", [[1.0, 2.0], [1.5, 2.0]], bboxes=[(1, 2, 3, 4), (5, 6, 7, 8)])
    path = tmp_path / "t.json"
    write_tracks(path, [tr])
    back = load_tracks(path)["5"]
    assert back == tr
    assert tracks_to_json([tr])["track_id_to_object_trajectory"]["5"][1]["pos_diff"] == pytest.approx(0.5)


def test_keep_filter_wide_box_needs_three_timesteps():
    two = make_track("a", [[8.0, 4.0], [8.0, 4.0]])
    three = make_track("b", [[8.0, 4.0]] * 3)
    assert not keep_track(two)
    assert keep_track(three)


def test_keep_filter_near_box_keeps_single_sighting():
    assert keep_track(make_track("a", [[4.0, 2.5]]))
    assert not keep_track(make_track("b", [[6.0, 2.5]]))  # outside the near box, seen once


def test_keep_filter_uses_minima_not_distances():
    # min x is negative (person behind the robot at some point) -> both boxes fail
    assert not keep_track(make_track("a", [[-0.5, 0.0], [2.0, 0.0], [3.0, 0.0]]))
    # min y = -6 is outside both boxes even though the person passes in front
    assert not keep_track(make_track("b", [[3.0, -6.0], [3.0, 0.0], [3.0, 1.0]]))


def test_labels_follow_first_bbox_x1_left_to_right():
    tracks = {
        "10": make_track("10", [[3, 0]], bboxes=[(700, 0, 760, 100)]),
        "11": make_track("11", [[3, 0]], bboxes=[(100, 0, 160, 100)]),
        "12": make_track("12", [[3, 0], [3, 0]], timesteps=[2, 3], bboxes=[(400, 0, 460, 100), (10, 0, 20, 5)]),
    }
    assert assign_labels(tracks) == {"11": 1, "12": 2, "10": 3}


def test_label_people_drops_filtered_tracks_before_numbering():
    tracks = {
        "far": make_track("far", [[30.0, 0.0]] * 5, bboxes=[(0, 0, 1, 1)] * 5),
        "b": make_track("b", [[3.0, 0.0]], bboxes=[(500, 0, 510, 1)]),
        "a": make_track("a", [[3.0, 1.0]], bboxes=[(200, 0, 210, 1)]),
    }
    people = label_people(tracks)
    assert [tr.track_id for tr in people.values()] == ["a", "b"]
    assert list(people) == [1, 2]


def test_heading_from_successive_positions():
    tr = make_track("h", [[0, 0], [0, 1], [1, 1]])
    assert tr.heading(0) == pytest.approx(math.pi / 2)  # moving left
    assert tr.heading(2) == pytest.approx(0.0)  # last uses the previous step: forward
    assert make_track("s", [[2, 2]]).heading(0) == 0.0


def test_track_rejects_duplicate_timesteps():
    tr = make_track("d", [[0, 0]])
    with pytest.raises(ValueError, match="increasing"):
        PersonTrack("d", tr.observations * 2)
