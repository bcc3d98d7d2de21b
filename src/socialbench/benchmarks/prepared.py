"""One benchmark's eval made ready outside the runner: its checked options, loaded dataset,
the paper's generation settings and the image encoder, and the solving of one item.

What ``socialbench eval`` does before its first request (:func:`socialbench.runner.run.run_eval`),
for the callers that send requests some other way: the Inspect AI tasks
(:mod:`socialbench.inspect_tasks`) and ``socialbench export inspect``. Items are answered by
the benchmark's own ``solve`` through :func:`socialbench.solving.standalone.standalone_context`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from socialbench.benchmarks.base import Benchmark, get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.errors import UsageError
from socialbench.solving.context import Generate
from socialbench.solving.standalone import standalone_context
from socialbench.types import GenerationConfig, Item, SampleRecord
from socialbench.vision.images import ImageEncoder, ImagePolicy
from socialbench.vision.prepare import PerturbSpec
from socialbench.vision.render_cache import RenderCache


@dataclass(frozen=True)
class PreparedEval:
    """A benchmark with its options checked and its dataset loaded (images required)."""

    name: str
    benchmark: Benchmark
    options: Any
    run: EvalOptions
    dataset: Any
    generation: GenerationConfig
    policy: ImagePolicy
    perturb: PerturbSpec | None
    #: Where prepared images are read and stored (``socialbench eval``'s render cache), or None.
    render_cache: RenderCache | None = None

    def encoder(self) -> ImageEncoder:
        """A new encoder under the eval's image policy and perturbation."""
        transform = None
        if self.run.perturb:
            from socialbench.vision.perturb import make_perturbation

            transform = make_perturbation(self.run.perturb, self.run.perturb_strength, self.run.seed)
        return ImageEncoder(self.policy, transform=transform)

    async def solve(self, item: Item, generate: Generate, *, needs_prompt: bool = True) -> list[SampleRecord]:
        """Answer every question of ``item`` with the benchmark's ``solve``, each request sent
        through ``generate``; the records in the order the solver made them. ``needs_prompt``
        False builds the requests as a run of an in-process model that reads no prompt (a
        baseline) made them: without images."""
        records: list[SampleRecord] = []
        ctx = standalone_context(
            generate,
            records,
            options=self.options,
            generation=self.generation,
            encoder=self.encoder() if needs_prompt else None,
            perturb=self.perturb,
            seed=self.run.seed,
            needs_prompt=needs_prompt,
            render_cache=self.render_cache,
        )
        await self.benchmark.solve(item, self.dataset, ctx)
        return records


def prepare_eval(
    benchmark: str,
    data: Path | None,
    options: Mapping[str, object],
    *,
    protocol: str = "paper",
    limit: int | None = None,
    seed: int = 0,
    perturb: str | None = None,
    perturb_strength: float = 1.0,
    max_side: int | None = None,
    image_policy: ImagePolicy | None = None,
) -> PreparedEval:
    """Check ``options`` (the benchmark's own, by name, as ``eval``'s flags give them), load
    ``data`` (None: the benchmark's bundled data, where it has some) and fix the paper's
    generation settings, as ``socialbench eval -b BENCHMARK`` does before its first request.
    ``image_policy`` (a run's recorded one), else ``max_side``, else the benchmark's image
    policy (SocialNav-SUB: the official 512×512)."""
    bench, default_data = get_benchmark(benchmark)
    if data is None:
        data = default_data if default_data is not None else getattr(bench, "default_data", lambda: None)()
    if data is None:
        raise UsageError(f"{benchmark} has no bundled data; give the dataset folder (data=DIR)")
    run = EvalOptions(
        protocol=protocol, limit=limit, seed=seed, perturb=perturb, perturb_strength=perturb_strength, extra=options
    )
    typed = bench.check_options(run)
    spec: PerturbSpec | None = None
    if perturb:
        from socialbench.vision.perturb import METAMORPHIC, check_perturbation, has_image_part

        check_perturbation(perturb, perturb_strength)
        if perturb in METAMORPHIC and perturb not in getattr(bench, "metamorphic", ()):
            raise UsageError(f"perturb={perturb} changes the right answers and {benchmark} does not map them")
        if has_image_part(perturb):
            spec = PerturbSpec(perturb, perturb_strength, seed)
    dataset = bench.load(Path(data), require_images=True, limit=limit)
    generation = bench.generation_config(typed, seed)
    policy = image_policy or (bench.image_policy(typed) if max_side is None else ImagePolicy(max_side=max_side))
    return PreparedEval(benchmark, bench, typed, run, dataset, generation, policy, spec)
