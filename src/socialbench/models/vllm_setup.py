"""What the ``vllm:`` engine and each of its requests are given: whether vLLM and a GPU are
there, ``vllm.LLM(...)`` arguments from ``--model-opt`` (checked before anything loads) and
``SamplingParams`` arguments of a request over the model's defaults. Pure but for the probes
of the installation; :mod:`socialbench.models.vllm_offline` runs the engine.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import TypedDict

from socialbench.errors import UsageError
from socialbench.models.registry import ModelOptions
from socialbench.types import GenerationConfig

#: Images per prompt when neither the benchmark nor ``limit_mm_per_prompt`` says.
DEFAULT_IMAGES_PER_PROMPT = 10
_DTYPES = {"auto", "bfloat16", "float16", "float32", "half", "float"}
#: Sampling settings of the model's generation_config (vLLM's ``get_diff_sampling_param``:
#: ``max_new_tokens`` as ``max_tokens``) that a request never sets itself.
_MODEL_DEFAULTS = ("top_k", "min_p", "repetition_penalty")
#: The settings vLLM reads from a generation_config (``ModelConfig.get_diff_sampling_param``).
MODEL_SETTINGS = ("temperature", "top_p", "top_k", "min_p", "repetition_penalty", "max_tokens")
MISSING_VLLM = "needs vLLM and a CUDA GPU: pip install 'socialbench[vllm]' on a GPU machine (or serve the model with `vllm serve` and use openai:MODEL@URL)"


def vllm_installed() -> bool:
    """Whether ``import vllm`` can work (without importing it: that takes seconds)."""
    if "vllm" in sys.modules:
        return sys.modules["vllm"] is not None
    try:
        return importlib.util.find_spec("vllm") is not None
    except (ImportError, ValueError):
        return False


def visible_gpus() -> int:
    """CUDA devices this process can see (0 without torch or CUDA)."""
    try:
        import torch
    except ImportError:
        return 0
    try:
        return int(torch.cuda.device_count())
    except Exception:  # noqa: BLE001 - a broken driver counts as no GPU
        return 0


def parse_mm_limit(value: str | None, needed: int | None = None) -> dict[str, int]:
    """``limit_mm_per_prompt`` as vLLM's mapping: ``N`` or ``image=N[,video=M]``; unset, the
    ``needed`` images of the benchmark's largest request (at least 1), or
    :data:`DEFAULT_IMAGES_PER_PROMPT` when the benchmark does not say. A limit below
    ``needed`` is a usage error (every such request would be refused)."""
    if value is None or value.strip() == "":
        return {"image": DEFAULT_IMAGES_PER_PROMPT if needed is None else max(needed, 1)}
    out: dict[str, int] = {}
    for part in value.split(","):
        key, sep, number = part.partition("=")
        key, number = (key.strip(), number.strip()) if sep else ("image", key.strip())
        if not number.isdigit() or not key:
            raise UsageError(f"--model-opt limit_mm_per_prompt={value!r} must be N or image=N[,video=M]")
        out[key] = int(number)
    if needed is not None and out.get("image", 0) < needed:
        raise UsageError(
            f"--model-opt limit_mm_per_prompt={value!r} allows {out.get('image', 0)} image(s) per prompt, but "
            f"this benchmark's requests carry up to {needed}; give image={needed} or more, or leave it out"
        )
    return out


class _EngineArgsAlways(TypedDict):
    model: str
    tensor_parallel_size: int | None
    limit_mm_per_prompt: dict[str, int]
    dtype: str
    seed: int
    trust_remote_code: bool


class EngineArgs(_EngineArgsAlways, total=False):
    """Keyword arguments of ``vllm.LLM(...)`` (:func:`engine_kwargs`); the context length,
    hub revision and GPU memory fraction only when ``--model-opt`` sets them (vLLM's own
    default applies otherwise)."""

    max_model_len: int
    revision: str
    gpu_memory_utilization: float


def engine_kwargs(source: str, options: ModelOptions) -> EngineArgs:
    """Keyword arguments of ``vllm.LLM(...)`` from the ``--model-opt`` pairs (checked here,
    so a typo is a usage error before anything loads)."""
    kwargs: EngineArgs = {
        "model": source,
        "tensor_parallel_size": options.get_count("tensor_parallel_size", 1),
        "limit_mm_per_prompt": parse_mm_limit(options.get("limit_mm_per_prompt"), options.max_images),
        "dtype": (options.get("dtype") or "auto").strip().lower(),
        "seed": options.seed,
        "trust_remote_code": options.get_flag("trust_remote_code"),
    }
    if kwargs["dtype"] not in _DTYPES:
        raise UsageError(
            f"--model-opt dtype={options.get('dtype')!r} is unknown; use auto, bfloat16, float16 or float32"
        )
    util = options.get("gpu_memory_utilization")
    if util not in (None, ""):
        try:
            fraction = float(util or "")
        except ValueError:
            fraction = -1.0
        if not 0 < fraction <= 1:
            raise UsageError(f"--model-opt gpu_memory_utilization={util!r} must be a fraction in (0, 1]")
        kwargs["gpu_memory_utilization"] = fraction
    max_len = options.get_count("max_model_len")
    if max_len is not None:
        kwargs["max_model_len"] = max_len
    revision = options.get("revision")
    if revision:
        kwargs["revision"] = revision
    return kwargs


def model_sampling_defaults(llm: object) -> dict[str, float]:
    """The sampling settings the checkpoint's generation_config sets, as vLLM reads them
    (``ModelConfig.get_diff_sampling_param()``, which ``vllm serve`` and
    ``LLM.get_default_sampling_params`` use: ``max_new_tokens`` becomes ``max_tokens``), only
    those of :data:`MODEL_SETTINGS`. Where the engine does not expose its model config,
    ``LLM.get_default_sampling_params()`` gives all but ``max_tokens`` (its plain
    ``SamplingParams()`` holds 16 there, which is no model's setting)."""
    config = getattr(llm, "model_config", None) or getattr(getattr(llm, "llm_engine", None), "model_config", None)
    read = getattr(config, "get_diff_sampling_param", None)
    if callable(read):
        diff = read()
        if isinstance(diff, dict):
            return {k: v for k, v in diff.items() if k in MODEL_SETTINGS and isinstance(v, (int, float))}
    defaults = llm.get_default_sampling_params()  # type: ignore[attr-defined]
    found = {name: getattr(defaults, name, None) for name in MODEL_SETTINGS if name != "max_tokens"}
    return {k: v for k, v in found.items() if isinstance(v, (int, float))}


def sampling_kwargs(config: GenerationConfig, defaults: dict[str, float]) -> dict[str, float | None]:
    """Keyword arguments of ``vllm.SamplingParams`` for a request, as ``vllm serve`` builds
    them: its temperature, ``top_p``, ``max_tokens`` and seed, over ``defaults`` (the model's
    generation_config, :func:`model_sampling_defaults`) for what it leaves unset, and
    ``top_k``, ``min_p``, ``repetition_penalty`` from ``defaults``. ``max_tokens`` unset and
    not in the generation_config: None (up to the context length, as ``vllm serve``)."""
    out: dict[str, float | None] = {"max_tokens": config.max_tokens, "seed": config.seed}
    if config.max_tokens is None and "max_tokens" in defaults:
        out["max_tokens"] = int(defaults["max_tokens"])
    for name in ("temperature", "top_p"):
        value = getattr(config, name)
        if value is None:
            value = defaults.get(name)
        if value is not None:
            out[name] = value
    for name in _MODEL_DEFAULTS:
        if name in defaults:
            out[name] = defaults[name]
    return out


def defaults_applied(config: GenerationConfig, defaults: dict[str, float]) -> dict[str, str]:
    """What the model's generation_config set in a request the run left open (run.json's
    ``generation_adapted``): setting -> the value and where it came from."""
    out: dict[str, str] = {}
    for name in MODEL_SETTINGS:
        asked = getattr(config, name, None) if name in ("temperature", "top_p", "max_tokens") else None
        if name in defaults and asked is None:
            label = "max_new_tokens" if name == "max_tokens" else name
            out[name] = f"{defaults[name]!r} (the model's generation_config {label}, as vllm serve applies it)"
    return out
