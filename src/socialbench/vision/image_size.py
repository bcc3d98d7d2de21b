"""``--image-size``: the image policy of a run from one flag (light: ``eval --help`` reads
:data:`IMAGE_SIZE_HELP`; :mod:`socialbench.vision.images` is imported when a policy is made)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from socialbench.errors import UsageError

if TYPE_CHECKING:
    from socialbench.vision.images import ImagePolicy

#: The largest side ``--image-size`` takes (a larger one is a typo, and would not fit in memory).
MAX_SIDE = 8192

__all__ = ["IMAGE_SIZE_HELP", "longest_side_policy", "parse_image_size", "squashed_policy"]

#: The flag that sets the policy of a run (``socialbench eval --image-size``).
IMAGE_SIZE_HELP = (
    "images sent: WxH squashes each to exactly W×H with OpenCV's bilinear and JPEG quality 95 "
    "(the official SocialNav-SUB harness: 512x512); N keeps the aspect ratio, longest side N px, "
    "Lanczos, JPEG quality 90 (RobotEQ: 768); 0 sends the original size at quality 90 "
    "[default: the benchmark's: SocialNav-SUB 512x512, RobotEQ 768]"
)


def squashed_policy(width: int, height: int) -> ImagePolicy:
    """The official SocialNav-SUB harness's preparation at ``width``×``height``:
    ``cv2.resize`` (bilinear, aspect ratio not kept), then JPEG at OpenCV's default
    quality, 95 (``evaluate_vlm.py``)."""
    from socialbench.vision.images import ImagePolicy

    return ImagePolicy(max_side=0, quality=95, size=(width, height), resample="opencv-linear")


def longest_side_policy(max_side: int) -> ImagePolicy:
    """Longest side ``max_side`` px (0: original size), aspect kept, Lanczos, JPEG quality 90."""
    from socialbench.vision.images import ImagePolicy

    return ImagePolicy(max_side=max_side)


def parse_image_size(text: str) -> ImagePolicy:
    """The policy of ``--image-size TEXT`` (see :data:`IMAGE_SIZE_HELP`); a
    :class:`~socialbench.errors.UsageError` naming the option and the fix otherwise.

    >>> parse_image_size("512x512").label()
    '512×512 (squashed, OpenCV bilinear), JPEG quality 95'
    >>> parse_image_size("768").label()
    'longest side 768 px (aspect kept), JPEG quality 90'
    """
    t = text.strip().lower().replace("×", "x")
    w, sep, h = t.partition("x")
    try:
        if sep:
            width, height = int(w), int(h)
            if 1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE:
                return squashed_policy(width, height)
        else:
            n = int(t)
            if 0 <= n <= MAX_SIDE:
                return longest_side_policy(n)
    except ValueError:
        pass
    raise UsageError(
        f"--image-size takes WxH (e.g. 512x512: squashed, as the official SocialNav-SUB harness), "
        f"N (e.g. 768: longest side, aspect kept) or 0 (original size), sides at most {MAX_SIDE}; got {text!r}"
    )
