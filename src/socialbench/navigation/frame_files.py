"""A sample's raw camera frames as the renderer draws on them: read as RGB (a JPEG decoded at
the smallest DCT scale that covers its drawn size) and shrunk so that the prompt image they
end up in fits ``max_side`` (see :mod:`socialbench.navigation.render`)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from socialbench.errors import DataError


def target_frame_size(size: tuple[int, int], mode: str, max_side: int) -> tuple[int, int]:
    """The size a ``size`` frame is drawn at so that the ``mode`` image it ends up in has
    no side longer than ``max_side`` (0: unchanged; never upscaled).

    A composite is the frame above a square BEV of the same width, so the frame gets the
    height left under ``max_side`` once the width is scaled."""
    w, h = size
    full_h = h + w if mode == "img-with-bev" else h
    if max_side <= 0 or max(w, full_h) <= max_side:
        return w, h
    s = max_side / max(w, full_h)
    tw = max(1, round(w * s))
    th = max(1, round(full_h * s) - (tw if mode == "img-with-bev" else 0))
    return tw, th


#: The filter that shrinks frames to the size they are drawn at. A JPEG frame is decoded at a
#: reduced DCT scale first (1280×720 → 640×360 for a 768-px composite), which leaves a ~1.3×
#: downscale: Pillow's HAMMING, an antialiasing filter when shrinking, is as sharp there as
#: LANCZOS to within ~1 grey level on average and 2× cheaper (2 ms rather than 4.5 ms a frame).
SHRINK_FILTER = Image.Resampling.HAMMING


def shrink_frame(frame: Image.Image, mode: str, max_side: int) -> Image.Image:
    """``frame`` as RGB at the size :func:`target_frame_size` gives it (itself if unchanged)."""
    size = target_frame_size(frame.size, mode, max_side)
    if size == frame.size:
        return frame
    rgb = frame if frame.mode == "RGB" else frame.convert("RGB")
    return rgb.resize(size, SHRINK_FILTER, reducing_gap=3.0)


def load_frame(path: Path, mode: str = "img", max_side: int = 0) -> Image.Image:
    """A raw frame as RGB; with ``max_side`` a JPEG is decoded at the smallest DCT scale
    that still covers the size it will be drawn at (see :func:`target_frame_size`)."""
    try:
        with Image.open(path) as im:
            if max_side > 0 and im.format == "JPEG":
                im.draft("RGB", target_frame_size(im.size, mode, max_side))
            return im.convert("RGB")
    except FileNotFoundError:
        raise DataError.single(path, "", "raw frame not found", "check front_view/<S>/") from None
    except OSError as e:
        raise DataError.single(path, "", f"cannot read image: {e}") from None
