"""Pre-render a SocialNav-SUB folder's composites in the release layout.

``socialbench data render -d DATA [-o OUT]`` writes ``OUT/prompts/<S>/sample_with_bev_<i>.png``
(i = 0..9: the annotated front view above the BEV, reference §a) for every sample of
``DATA``, drawn from its raw frames, tracks, odometry and goal on every core. ``OUT``
defaults to ``DATA``. Existing composites are kept unless ``overwrite``: a sample whose ten
files all exist is skipped, and one that has some of them is an error (nothing already
written is replaced).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from socialbench.errors import UsageError
from socialbench.files.atomic_write import write_bytes_atomic
from socialbench.types import Item
from socialbench.vision.images import ImagePolicy
from socialbench.vision.prepare import MAX_DEFAULT_WORKERS, ImagePreparer

N_COMPOSITES = 10


@dataclass(frozen=True)
class RenderSummary:
    """What :func:`prerender_dataset` did."""

    written: int  # samples whose composites were written
    skipped: int  # samples that already had all their composites
    out: Path


def composite_paths(out: Path, sample_id: str) -> list[Path]:
    """``out/prompts/<S>/sample_with_bev_<i>.png`` for i = 0..9."""
    return [out / "prompts" / sample_id / f"sample_with_bev_{i}.png" for i in range(N_COMPOSITES)]


def prerender_dataset(
    data: Path,
    out: Path | None = None,
    *,
    max_side: int = 0,
    overwrite: bool = False,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RenderSummary:
    """Render every sample's composites of ``data`` into ``out`` (default ``data``).

    ``max_side`` 0 draws at the frames' size (1280×2000 composites for 1280×720 frames, as the
    release ships them); a positive value draws at most that long a side.
    ``progress(done, total)`` is called as each sample to render is written."""
    from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
    from socialbench.navigation.render_job import RenderSample

    target = out if out is not None else data
    ds = load_socialnav(data, require_images=True, image_mode="img")  # frames, not composites
    todo: list[tuple[Item, list[Path]]] = []
    skipped = 0
    for item in ds.items:
        paths = composite_paths(target, item.item_id)
        present = [p for p in paths if p.exists()]
        if present and not overwrite:
            if len(present) == len(paths):
                skipped += 1
                continue
            raise UsageError(
                f"{present[0].parent} already has {len(present)} of the {len(paths)} composites; "
                "remove them or pass --overwrite"
            )
        todo.append((item, paths))
    policy = ImagePolicy(max_side=max_side, format="PNG")

    written = 0

    async def main() -> None:
        async def one(item: Item, paths: list[Path]) -> None:
            nonlocal written
            images = await preparer.prepare(RenderSample.of(item.metadata, "img-with-bev", policy))
            for path, img in zip(paths, images):
                write_bytes_atomic(path, img.data)
            written += 1
            if progress is not None:
                progress(written, len(todo))

        await asyncio.gather(*(one(item, paths) for item, paths in todo))

    # nothing else runs here: one worker per core (a run keeps one core for its event loop)
    every_core = min(os.cpu_count() or 1, MAX_DEFAULT_WORKERS)
    preparer = ImagePreparer(
        every_core if workers is None else workers, None, preload=("socialbench.navigation.render_job",)
    )
    try:
        if todo:
            asyncio.run(main())
    finally:
        preparer.shutdown()
    return RenderSummary(written=len(todo), skipped=skipped, out=target)
