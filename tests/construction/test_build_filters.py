"""Real-photo filters: MIME, size, SHA-256 and perceptual duplicates, resolution, sharpness, VLM."""

import numpy as np
import pytest
from PIL import Image, ImageFilter

from socialbench.construction.filters import FilterOptions, dhash, hamming, laplacian_variance, phash, scan_photos
from socialbench.construction.jsonl import read_jsonl


def _photo(seed, size=(640, 480), bright=False):
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 256, size=(size[1] // 8, size[0] // 8, 3), dtype=np.uint8)
    img = Image.fromarray(base).resize(size, Image.Resampling.NEAREST)
    if bright:
        img = Image.fromarray(np.clip(np.asarray(img, dtype=int) // 2 + 128, 0, 255).astype(np.uint8))
    return img


def test_phash_and_dhash_match_resized_copies_not_other_photos():
    a, b = _photo(1), _photo(2)
    small = a.resize((320, 240))
    assert hamming(phash(a), phash(small)) <= 4 and hamming(dhash(a), dhash(small)) <= 6
    assert hamming(phash(a), phash(b)) > 16


def test_blur_lowers_laplacian_variance():
    a = _photo(3)
    assert laplacian_variance(a.filter(ImageFilter.GaussianBlur(6))) < 0.1 * laplacian_variance(a)


@pytest.fixture
def photos(tmp_path):
    d = tmp_path / "photos"
    d.mkdir()
    _photo(1).save(d / "a.jpg", quality=95)
    (d / "a_copy.jpg").write_bytes((d / "a.jpg").read_bytes())  # exact duplicate
    _photo(1).resize((800, 600)).save(d / "a_big.png")  # near-duplicate, more pixels: kept instead of a.jpg
    _photo(2).save(d / "b.webp", quality=90)
    _photo(4).filter(ImageFilter.GaussianBlur(8)).save(d / "blurry.png")
    noise = np.random.default_rng(5).integers(0, 256, size=(200, 300, 3), dtype=np.uint8)
    Image.fromarray(noise).save(d / "tiny.png")  # large file, low resolution
    (d / "notes.jpg").write_bytes(b"this is not an image at all, just text" * 400)
    Image.new("RGB", (10, 10)).save(d / "small_file.png")  # under 8 KB
    return d


def test_scan_rejects_each_kind_with_a_reason(photos):
    accepted, rejected = scan_photos([photos], FilterOptions())
    reasons = {r["path"].rsplit("/", 1)[1]: r["reason"] for r in rejected}
    assert reasons == {
        "a_copy.jpg": "duplicate",
        "a.jpg": "near_duplicate",
        "blurry.png": "blurry",
        "tiny.png": "resolution",
        "notes.jpg": "mime",
        "small_file.png": "size",
    }
    assert sorted(a["path"].rsplit("/", 1)[1] for a in accepted) == ["a_big.png", "b.webp"]
    assert {a["mime"] for a in accepted} == {"image/png", "image/webp"}


def test_cli_real_images_with_vlm_screening(cli, work, chat_server, llm_args, tmp_path):
    d = tmp_path / "p"
    d.mkdir()
    _photo(7).save(d / "mid.png")  # mean grey ~127: the fixture VLM calls photos brighter than 90 relevant
    Image.fromarray((np.asarray(_photo(8)) // 4).astype(np.uint8)).save(d / "darker.png")
    _photo(9, bright=True).save(d / "bright.png")
    res = cli("real-images", d, "--work", work, *llm_args(chat_server), "--min-sharpness", "10", "--category", "Home")
    assert res.exit_code == 0, res.output
    kept = read_jsonl(work / "real_images.jsonl")
    rejected = read_jsonl(work / "real_images.rejected.jsonl", require_id=False)
    assert [r["reason"] for r in rejected] == ["not_relevant"] and rejected[0]["path"].endswith("darker.png")
    assert len(kept) == 2 and all((work / k["image"]).is_file() and k["category"] == "Home" for k in kept)
    assert all(k["id"].startswith("real/") for k in kept)
    before = chat_server.count
    assert cli("real-images", d, "--work", work, *llm_args(chat_server), "--min-sharpness", "10").exit_code == 0
    assert chat_server.count == before  # screening verdicts are resumed, not asked again
