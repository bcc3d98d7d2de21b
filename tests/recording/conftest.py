"""Every test here reads or writes ROS recordings through rosbags (extra ``record``)."""

import pytest

pytest.importorskip("rosbags", reason="rosbags (optional extra record) is not installed")
