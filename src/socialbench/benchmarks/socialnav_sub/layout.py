"""Fixed facts of the official SocialNav-SUB folder layout (reference §a) that the scan, the
loader and the report share."""

from __future__ import annotations

#: Frames per sample (timesteps 0..9; frame files ``F0 .. F0+9``, composites ``0 .. 9``).
N_FRAMES = 10
#: (width, height) the official harness squashes every API image to, aspect ratio not kept,
#: before JPEG-encoding it at OpenCV's default quality 95 (``evaluate_vlm.py``, reference §c).
OFFICIAL_IMAGE_SIZE = (512, 512)
#: Where the sample list may be, in order of preference.
SAMPLE_INFO_CANDIDATES = ("prompts/sample_info.json", "sample_info.json", "human_labels/sample_info.json")
#: Metadata keys set by the loader; ``sample_metadata.json`` may not override them.
RESERVED_METADATA_KEYS = frozenset(
    {"n_people", "sample_dir", "tracks_path", "odometry_path", "frames", "first_frame", "composites", "goal_xy"}
)
