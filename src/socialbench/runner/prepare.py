"""An eval made ready from its option values, shared by ``socialbench eval`` and ``socialbench
sweep``: the benchmark and its data folder, the model (refused when it comes with another
benchmark's code), its ``--model-opt`` options, and the
:class:`~socialbench.runner.run.RunRequest` (:func:`prepare_eval`). The options themselves are
declared in :mod:`socialbench.runner.eval_options`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialbench.errors import SocialbenchError, UsageError
from socialbench.runner.eval_options import check_eval_values, eval_options

if TYPE_CHECKING:  # pragma: no cover
    from socialbench.benchmarks.base import Benchmark
    from socialbench.models.base import Model
    from socialbench.models.registry import ModelOptions
    from socialbench.runner.run import RunRequest
    from socialbench.vision.images import ImagePolicy


def default_cache_path() -> Path:
    return Path.home() / ".cache" / "socialbench" / "responses.sqlite3"


def resolve_data(benchmark_name: str, data: Path | None) -> tuple[Benchmark, Path]:
    """(benchmark, dataset folder) for ``--benchmark``/``--data``: ``data``, else the
    benchmark's bundled or default data; a hub id becomes a local snapshot."""
    from socialbench.benchmarks.base import get_benchmark

    bench, bundled = get_benchmark(benchmark_name)
    default = getattr(bench, "default_data", None)  # a benchmark with bundled data of its own
    path = data or bundled or (default() if default is not None else None)
    if path is None:
        raise UsageError(f"--data is required for {benchmark_name} (the folder of the dataset release)")
    resolve = getattr(bench, "resolve_data", None)  # e.g. a hub id -> a local snapshot
    if resolve is not None:
        path = resolve(path)
    if not path.exists():
        raise UsageError(f"--data {path} does not exist")
    return bench, path


def model_options(
    pairs: list[str], seed: int, timeout: float, data: object = None, first_byte_timeout: float | None = None
) -> ModelOptions:
    """The :class:`~socialbench.models.registry.ModelOptions` of ``--model-opt`` KEY=VALUE
    ``pairs`` and the run's seed and timeouts."""
    from socialbench.models.registry import ModelOptions

    extra = []
    for p in pairs:
        k, sep, v = p.partition("=")
        if not sep or not k:
            from socialbench.models.redact import redact

            raise UsageError(f"--model-opt takes KEY=VALUE (got {redact(p)!r})")
        extra.append((k.strip(), v.strip()))
    return ModelOptions(
        seed=seed, timeout_s=timeout, first_byte_timeout_s=first_byte_timeout, data=data, extra=tuple(extra)
    )


def check_model_benchmark(spec: str, benchmark: str, model: Model | None = None) -> None:
    """Refuse model ``spec`` on ``benchmark`` when the model comes with another benchmark's
    code (``baseline:rule-based`` with SocialNav-SUB's, ``baseline:waypoint-*`` with the
    waypoint task's): a :class:`UsageError` naming the benchmarks that run it. ``model``:
    the model made from ``spec``; None when making it failed (unknown while the other
    benchmarks' code is not loaded: it is loaded here to find the owner)."""
    from socialbench.benchmarks.base import benchmark_entry, benchmark_names, load_benchmark_code
    from socialbench.models.registry import ModelOptions, create_model

    def package(module: str) -> str | None:
        parts = module.split(".")
        return ".".join(parts[:3]) if parts[:2] == ["socialbench", "benchmarks"] and len(parts) > 3 else None

    def benchmark_package(name: str) -> str | None:
        factory = benchmark_entry(name).factory
        return package(factory.partition(":")[0]) if isinstance(factory, str) else None

    if model is None:
        load_benchmark_code()
        try:
            model = create_model(spec, ModelOptions())
        except SocialbenchError:
            return  # unknown everywhere (or refused for its options): the original error stands
    owner = package(type(model).__module__)
    if owner is None or owner == benchmark_package(benchmark):
        return
    names = [n for n in benchmark_names() if benchmark_package(n) == owner]
    raise UsageError(
        f"{spec} is a model of {', '.join(names)} only (it answers from their data), not of -b {benchmark}; "
        f"run it with -b {names[0] if names else '...'}, or choose a model for {benchmark} (`socialbench models`)"
    )


def requested_image_policy(image_size: str | None, max_side: int | None) -> ImagePolicy | None:
    """The image policy ``--image-size`` (or its older spelling ``--max-side N``) asks for;
    None when neither is given: the benchmark's own (``image_policy()``), applied by the run."""
    from socialbench.vision.image_size import longest_side_policy, parse_image_size

    if image_size is not None and max_side is not None:
        raise UsageError(
            f"give --image-size or --max-side, not both (got --image-size {image_size} --max-side {max_side})"
        )
    if image_size is not None:
        return parse_image_size(image_size)
    return None if max_side is None else longest_side_policy(max_side)


def prepare_eval(
    values: Mapping[str, Any], runs_root: Path = Path("runs")
) -> tuple[Benchmark, Path, Model, RunRequest]:
    """An eval from its option ``values`` (every :func:`eval_flags` option by name), shared
    by ``socialbench eval`` and ``socialbench sweep``: returns (benchmark, data path, model,
    :class:`~socialbench.runner.run.RunRequest`). Without ``out_dir`` the run directory is
    ``runs_root/BENCHMARK/MODEL/VARIANT``."""
    from socialbench.benchmarks.options import slug
    from socialbench.models.registry import create_model
    from socialbench.runner.engine import RetryPolicy
    from socialbench.runner.run import RunRequest
    from socialbench.vision.render_cache import default_render_cache_dir

    v = values
    check_eval_values(v)
    benchmark, seed, timeout = v["benchmark"], v["seed"], v["timeout"]
    bench, path = resolve_data(benchmark, v["data"])
    options = eval_options(v)
    typed = bench.check_options(options)
    variant = typed.variant(options.perturbation)
    declared = getattr(bench, "max_images_per_request", None)  # a benchmark may leave it undeclared
    first_byte = v.get("first_byte_timeout")
    mopts = model_options(list(v["model_opt"]), seed, timeout, first_byte_timeout=first_byte)
    if declared is not None:
        mopts = replace(mopts, max_images=declared(typed))
    try:
        mdl = create_model(v["model"], mopts)
    except UsageError:
        check_model_benchmark(v["model"], benchmark)  # a model another benchmark's code brings
        raise
    check_model_benchmark(v["model"], benchmark, mdl)
    if options.generation:  # a run with other generation settings gets a folder of its own
        variant += "-" + options.generation.tag()
    run_dir = v["out_dir"] or runs_root / benchmark / slug(mdl.spec) / variant  # spec: no credentials
    req = RunRequest(
        benchmark_name=benchmark,
        data=path,
        model_spec=v["model"],
        out=run_dir,
        options=options,
        concurrency=v["concurrency"],
        retry=RetryPolicy(
            max_attempts=v["max_attempts"],
            timeout_s=timeout,
            first_byte_timeout_s=first_byte,
            give_up_after=v.get("give_up_after", RetryPolicy.give_up_after),
        ),
        cache_path=None if v["no_cache"] else (v["cache"] or default_cache_path()),
        model_options=mopts.extra,
        image_policy=requested_image_policy(v.get("image_size"), v.get("max_side")),
        render_cache=None if v["no_render_cache"] else (v["render_cache"] or default_render_cache_dir()),
        show_progress=v["progress"],
    )
    return bench, path, mdl, req
