"""The images a run sent with an item's questions, for the report's item viewer.

The viewer must show what the model saw (a run on a folder without the release's composites
sends frames *rendered* with numbered people and a BEV, and "person 2 is ..." can only be
checked on those). So nothing is redrawn here: the run's image settings are read from its
``run.json`` and the benchmark's own image jobs (the jobs ``eval`` sends) prepare them,
through the run's render cache when that folder exists: same job, same inputs, same bytes.
A metamorphic run shows its variants' images, a waypoint run its clip and candidate image.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from socialbench.benchmarks.base import Dataset
from socialbench.errors import DataError, SocialbenchError
from socialbench.report.run_dir import RunDir
from socialbench.types import EncodedImage
from socialbench.vision.images import ImagePolicy
from socialbench.vision.prepare import ImageJob, PerturbSpec, run_job
from socialbench.vision.render_cache import RenderCache

_T = TypeVar("_T")

__all__ = ["SentImages", "sent_images_of"]

#: Benchmarks whose requests carry rendered images this module can prepare again.
_RENDERED = ("socialnav-sub", "socialnav-sim", "socialnav-waypoint")


@dataclass(frozen=True)
class SentImages:
    """How to prepare again the images one run sent (see the module docstring)."""

    benchmark: Any
    dataset: Any
    mode: str
    policy: ImagePolicy
    perturb: PerturbSpec | None
    cache: RenderCache | None

    def describe(self) -> str:
        """One line: the image mode, size and format, and the perturbation."""
        text = f"{self.mode}, {self.policy.label()}"
        if self.perturb is not None:
            what = "mirrored scene" if self.perturb.name == "mirror" else self.perturb.name
            text += f", {what}" + (f" (strength {self.perturb.strength:g})" if self.perturb.name != "mirror" else "")
        return text

    @cached_property
    def _items(self) -> dict[str, Any]:
        return {it.item_id: it for it in self.dataset.items}

    def jobs(self, item_id: str) -> list[ImageJob]:
        """The image jobs of one request about ``item_id``, in the order they are sent."""
        item = self._items.get(item_id)
        if item is None:
            raise DataError.single(item_id, "", "not an item of the run's dataset", "give the run's --data folder")
        if hasattr(self.benchmark, "sent_image_jobs"):
            return list(self.benchmark.sent_image_jobs(item, self.dataset, self.mode, self.policy, self.perturb))
        return [self.benchmark.sent_image_job(item, self.mode, self.policy, self.perturb)]

    def key(self) -> tuple[object, ...]:
        """Equal for two runs that send the same images of every item."""
        return (
            self.benchmark.name,
            str(getattr(self.dataset, "root", id(self.dataset))),
            getattr(self.benchmark, "variant", None),
            self.mode,
            self.policy,  # frozen: hashable (its describe() holds a list)
            self.perturb,
        )

    def images_with_captions(self, item_id: str) -> tuple[tuple[EncodedImage, ...], list[str]]:
        """The encoded images sent with ``item_id``'s questions (from the render cache when it
        holds them, else prepared now by the same job) and a caption for each: ``frame N`` for
        the clip's images, ``waypoint candidates A-E`` for a waypoint request's last image."""
        out: list[EncodedImage] = []
        captions: list[str] = []
        jobs = self.jobs(item_id)
        for n, job in enumerate(jobs):
            images = run_job(job, self.cache)
            if n == 1 and hasattr(self.benchmark, "sent_image_jobs"):
                captions += ["waypoint candidates " + _letters(self.dataset, item_id)] * len(images)
            else:
                captions += [f"frame {len(captions) + i + 1}" for i in range(len(images))]
            out.extend(images)
        return tuple(out), captions


def _letters(dataset: Dataset, item_id: str) -> str:
    """The candidate letters of a waypoint item (``A-E``)."""
    options = next(it for it in dataset.items if it.item_id == item_id).questions[0].options
    return f"{options[0]}-{options[-1]}" if options else ""


def _field(run: Mapping[str, object], path: Path, name: str, kind: type[_T]) -> _T:
    value = run.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DataError.single(
            path / "run.json",
            name,
            f"expected {kind.__name__}, found {value!r}",
            "give a run directory written by socialbench eval",
        )
    return value


def sent_images_of(run: RunDir, dataset: Dataset) -> SentImages | None:
    """What :class:`SentImages` needs for ``run`` on its loaded ``dataset``; None for a
    benchmark whose images are files sent as they are (RobotEQ: the viewer shows the file).
    Raises :class:`~socialbench.errors.SocialbenchError` naming the ``run.json`` field
    when the run's image settings cannot be read."""
    if run.benchmark not in _RENDERED:
        return None
    from socialbench.benchmarks.base import get_benchmark
    from socialbench.benchmarks.options import EvalOptions
    from socialbench.vision.perturb import has_image_part

    record = run.run
    mode = _field(record, run.path, "images", str)
    policy_doc = _field(record, run.path, "image_policy", dict)
    try:
        policy = ImagePolicy(**policy_doc)
    except TypeError as exc:
        raise DataError.single(
            run.path / "run.json", "image_policy", f"not an image policy ({exc})", "give the run's own run.json"
        ) from exc
    perturb_doc = record.get("perturb")
    name = perturb_doc.get("name") if isinstance(perturb_doc, Mapping) else None
    strength = perturb_doc.get("strength", 1.0) if isinstance(perturb_doc, Mapping) else 1.0
    if (name is not None and not isinstance(name, str)) or not isinstance(strength, (int, float)):
        raise DataError.single(
            run.path / "run.json",
            "perturb",
            f"expected {{name: text, strength: number}}, found {perturb_doc!r}",
            "give the run's own run.json",
        )
    seed_doc = record.get("seed")
    seed = seed_doc if isinstance(seed_doc, int) and not isinstance(seed_doc, bool) else 0
    bench, _ = get_benchmark(run.benchmark)
    # the benchmark's own check sets what its jobs depend on (a mirror run renders every image)
    bench.check_options(
        EvalOptions(protocol=run.protocol, seed=seed, perturb=name, perturb_strength=strength, extra={"images": mode})
    )
    spec = PerturbSpec(name, float(strength), seed) if name and has_image_part(name) else None
    folder = record.get("render_cache")
    cache = RenderCache(folder) if isinstance(folder, str) and Path(folder).is_dir() else None
    return SentImages(bench, dataset, mode, policy, spec, cache)


def safe_sent_images(run: RunDir, dataset: Dataset) -> tuple[SentImages | None, str | None]:
    """:func:`sent_images_of`, or (None, why not) when the run's settings cannot be read."""
    try:
        return sent_images_of(run, dataset), None
    except SocialbenchError as exc:
        return None, str(exc)
