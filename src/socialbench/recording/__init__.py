"""Robot recordings read without ROS: frames, odometry, camera calibration and tracker boxes.

``ros_io`` reads (and, for the simulator and the tests, writes) ROS 1 bags, ROS 2 bags and
MCAP files through ``rosbags`` (the ``record`` extra, imported lazily); ``folder_reader``
reads a plain folder (frames, odometry CSV, calibration YAML); ``clip`` holds what both
return (:class:`~socialbench.recording.clip.Recording`) and the 4 Hz resampling; ``camera``
the calibrated camera and the ray/floor lifting; ``mot`` the MOTChallenge boxes file;
``tracks3d`` 3-D track files. Formats: docs/recording.md.
"""
