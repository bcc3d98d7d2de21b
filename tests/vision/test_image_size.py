"""``--image-size``: WxH squashes as the official SocialNav-SUB harness, N keeps the aspect
ratio; anything else is refused in one line naming the option and the fix."""

from __future__ import annotations

import pytest

from socialbench.errors import UsageError
from socialbench.vision.image_size import parse_image_size


def test_width_by_height_is_the_official_squash() -> None:
    policy = parse_image_size("512x512")
    assert (policy.size, policy.resample, policy.quality) == ((512, 512), "opencv-linear", 95)


def test_a_number_keeps_the_aspect_ratio() -> None:
    policy = parse_image_size("768")
    assert (policy.size, policy.max_side, policy.quality) == (None, 768, 90)


@pytest.mark.parametrize("text", ["512x", "big", "-1", "0x512", "512x512x3", "99999"])
def test_bad_sizes_are_refused_naming_the_option(text: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_image_size(text)
    message = str(err.value)
    assert (message.startswith("--image-size takes WxH"), "\n" in message, repr(text) in message) == (
        True,
        False,
        True,
    )
