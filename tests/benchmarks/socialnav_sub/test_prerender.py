"""``socialbench data render``: the release layout, nothing overwritten, and evals use it."""

from pathlib import Path

import pytest
from PIL import Image

from socialbench.benchmarks.socialnav_sub.prerender import composite_paths, prerender_dataset
from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset
from socialbench.errors import UsageError


@pytest.fixture()
def raw(tmp_path: Path) -> Path:
    root = write_synthetic_dataset(tmp_path / "data", n_samples=2, people=[2, 3], seed=5, frame_size=(160, 90))
    for png in root.glob("prompts/*/sample_with_bev_*.png"):
        png.unlink()
    return root


def _ids(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "front_view").iterdir() if p.is_dir())


def test_writes_ten_composites_per_sample_in_the_release_layout(raw: Path, tmp_path: Path) -> None:
    prerender_dataset(raw, tmp_path / "out", workers=0)
    written = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*.png"))
    expected = sorted(f"prompts/{s}/sample_with_bev_{i}.png" for s in _ids(raw) for i in range(10))
    assert written == expected


def test_composites_are_frame_width_above_a_square_bev(raw: Path, tmp_path: Path) -> None:
    prerender_dataset(raw, tmp_path / "out", workers=0)
    with Image.open(composite_paths(tmp_path / "out", _ids(raw)[0])[0]) as im:
        assert (im.format, im.size) == ("PNG", (160, 90 + 160))


def test_samples_already_rendered_are_skipped(raw: Path) -> None:
    prerender_dataset(raw, workers=0)
    assert prerender_dataset(raw, workers=0).skipped == 2


def test_a_partly_rendered_sample_is_refused(raw: Path) -> None:
    first = composite_paths(raw, _ids(raw)[0])[0]
    first.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), (9, 9, 9)).save(first)
    kept = first.read_bytes()
    with pytest.raises(UsageError, match="--overwrite"):
        prerender_dataset(raw, workers=0)
    assert first.read_bytes() == kept


def test_progress_counts_each_rendered_sample(raw: Path) -> None:
    calls: list[tuple[int, int]] = []
    prerender_dataset(raw, workers=0, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 2), (2, 2)]
