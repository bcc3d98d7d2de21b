"""The metamorphic perturbations: ``mirror`` flips images, ``shuffle-options`` changes none,
and neither may write a perturbed dataset copy (its labels would be wrong)."""

from __future__ import annotations

import pytest
from PIL import Image

from socialbench.errors import UsageError
from socialbench.vision.perturb import has_image_part, make_perturbation
from socialbench.vision.perturb_dataset import perturb_dataset


def two_pixels() -> Image.Image:
    img = Image.new("RGB", (2, 1))
    img.putpixel((0, 0), (255, 0, 0))
    img.putpixel((1, 0), (0, 0, 255))
    return img


def test_mirror_swaps_left_and_right_pixels():
    out = make_perturbation("mirror")(two_pixels())
    assert out.getpixel((0, 0)) == (0, 0, 255) and out.getpixel((1, 0)) == (255, 0, 0)


def test_shuffle_options_leaves_images_unchanged():
    assert make_perturbation("shuffle-options")(two_pixels()).tobytes() == two_pixels().tobytes()


def test_only_mirror_has_an_image_part():
    assert has_image_part("mirror") and not has_image_part("shuffle-options")


@pytest.mark.parametrize("name", ["mirror", "shuffle-options"])
def test_a_perturbed_copy_is_refused(tmp_path, name):
    (tmp_path / "src").mkdir()
    two_pixels().save(tmp_path / "src" / "a.png")
    with pytest.raises(UsageError, match="changes the right answers"):
        perturb_dataset(tmp_path / "src", tmp_path / "dst", name, 1.0, 0)
    assert not (tmp_path / "dst").exists()
