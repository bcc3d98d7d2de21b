"""Seeded, deterministic image perturbations and perturbed dataset copies."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from socialbench.errors import DataError, UsageError
from socialbench.vision.image_effects import jpeg_quality
from socialbench.vision.images import ImageEncoder, ImagePolicy
from socialbench.vision.perturb import PERTURBATIONS, make_perturbation
from socialbench.vision.perturb_dataset import perturb_dataset


def scene(seed: int = 0, size: tuple[int, int] = (96, 64)) -> Image.Image:
    rng = np.random.default_rng(seed)
    arr = rng.integers(60, 200, size=(size[1], size[0], 3), dtype=np.uint8)
    img = Image.fromarray(arr, "RGB")
    d = ImageDraw.Draw(img)
    d.rectangle([10, 10, 40, 50], fill=(250, 250, 250))
    return img


def pixels(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("RGB"), dtype=np.int16)


@pytest.mark.parametrize("name", sorted(PERTURBATIONS))
def test_same_seed_and_image_give_identical_output(name: str) -> None:
    a = make_perturbation(name, 1.0, seed=3)(scene())
    b = make_perturbation(name, 1.0, seed=3)(scene())
    assert a.size == scene().size and a.mode == "RGB"
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("name", sorted(PERTURBATIONS))
def test_perturbation_changes_the_image(name: str) -> None:
    assert make_perturbation(name, 1.0)(scene()).tobytes() != scene().tobytes()


@pytest.mark.parametrize("name", sorted(PERTURBATIONS))
def test_strength_zero_is_the_identity(name: str) -> None:
    assert make_perturbation(name, 0.0)(scene()).tobytes() == scene().tobytes()


def test_result_does_not_depend_on_processing_order() -> None:
    p = make_perturbation("gaussian-noise", 1.0, seed=9)
    forward = [p(scene(i)).tobytes() for i in range(3)]
    backward = [p(scene(i)).tobytes() for i in reversed(range(3))][::-1]
    assert forward == backward


def test_different_seeds_give_different_noise() -> None:
    a = make_perturbation("gaussian-noise", 1.0, seed=1)(scene())
    b = make_perturbation("gaussian-noise", 1.0, seed=2)(scene())
    assert a.tobytes() != b.tobytes()


def test_noise_has_the_documented_standard_deviation() -> None:
    flat = Image.new("RGB", (200, 200), (128, 128, 128))
    out = pixels(make_perturbation("gaussian-noise", 0.5)(flat)) - 128
    assert out.std() == pytest.approx(0.06 * 255 * 0.5, rel=0.05)


def test_low_light_darkens() -> None:
    img = scene()
    assert pixels(make_perturbation("low-light", 1.0)(img)).mean() < 0.6 * pixels(img).mean()


def test_blur_reduces_high_frequency_detail() -> None:
    img = scene(size=(400, 300))  # radius 0.006 * 400 = 2.4 px

    def roughness(x: Image.Image) -> float:
        return float(np.abs(np.diff(pixels(x), axis=1)).mean())

    assert roughness(make_perturbation("blur", 1.0)(img)) < 0.5 * roughness(img)


def test_fisheye_blacks_out_the_corners_and_keeps_the_centre() -> None:
    img = Image.new("RGB", (100, 100), (200, 100, 50))
    out = pixels(make_perturbation("fisheye", 1.0)(img))
    assert out[0, 0].tolist() == [0, 0, 0]
    assert out[50, 50].tolist() == [200, 100, 50]


def test_fisheye_water_differs_from_plain_fisheye() -> None:
    plain = make_perturbation("fisheye", 1.0)(scene(size=(160, 120)))
    wet = make_perturbation("fisheye-water", 1.0)(scene(size=(160, 120)))
    assert plain.tobytes() != wet.tobytes()


def test_jpeg_quality_follows_the_strength() -> None:
    assert [jpeg_quality(s) for s in (0.0, 0.5, 1.0, 3.0)] == [95, 52, 10, 1]


def test_unknown_name_and_negative_strength_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="unknown perturbation"):
        make_perturbation("rain")
    with pytest.raises(UsageError, match=">= 0"):
        make_perturbation("blur", -1.0)


def test_encoder_applies_the_perturbation_before_encoding(tmp_path: Path) -> None:
    path = tmp_path / "a.png"
    scene().save(path)
    clean = ImageEncoder(ImagePolicy(format="PNG")).encode(path)
    noisy = ImageEncoder(ImagePolicy(format="PNG"), transform=make_perturbation("gaussian-noise", 1.0)).encode(path)
    again = ImageEncoder(ImagePolicy(format="PNG"), transform=make_perturbation("gaussian-noise", 1.0)).encode(path)
    assert clean.data != noisy.data and noisy.data == again.data


def make_dataset(root: Path) -> None:
    (root / "imgs").mkdir(parents=True)
    scene(1).save(root / "imgs" / "a.png")
    scene(2).save(root / "imgs" / "b.jpg", quality=95)
    (root / "metadata.jsonl").write_text('{"file_name": "imgs/a.png"}\n')


def test_perturb_dataset_copies_labels_and_perturbs_images(tmp_path: Path) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    make_dataset(src)
    assert perturb_dataset(src, dst, "low-light", 1.0, seed=0) == 2
    assert (dst / "metadata.jsonl").read_text() == (src / "metadata.jsonl").read_text()
    with Image.open(dst / "imgs" / "a.png") as out, Image.open(src / "imgs" / "a.png") as orig:
        assert out.format == "PNG"
        assert out.tobytes() == make_perturbation("low-light", 1.0, 0)(orig).tobytes()
    with Image.open(dst / "imgs" / "b.jpg") as out:
        assert out.format == "JPEG"
    info = json.loads((dst / "perturbation.json").read_text())
    assert (info["name"], info["strength"], info["images"]) == ("low-light", 1.0, 2)


def test_perturb_dataset_refuses_a_non_empty_or_nested_output(tmp_path: Path) -> None:
    src = tmp_path / "src"
    make_dataset(src)
    with pytest.raises(UsageError, match="inside"):
        perturb_dataset(src, src / "out", "blur", 1.0, 0)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(UsageError, match="not empty"):
        perturb_dataset(src, tmp_path / "full", "blur", 1.0, 0)


def test_perturb_dataset_lists_unreadable_images(tmp_path: Path) -> None:
    src = tmp_path / "src"
    make_dataset(src)
    (src / "imgs" / "broken.png").write_bytes(b"nope")
    with pytest.raises(DataError) as info:
        perturb_dataset(src, tmp_path / "dst", "blur", 1.0, 0)
    assert [Path(p.file).name for p in info.value.problems] == ["broken.png"]
    assert (tmp_path / "dst" / "imgs" / "a.png").exists()


def test_perturb_dataset_reports_progress_per_file(tmp_path: Path) -> None:
    make_dataset(tmp_path / "src")
    calls: list[tuple[int, int]] = []
    perturb_dataset(tmp_path / "src", tmp_path / "dst", "blur", 1.0, 0, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
