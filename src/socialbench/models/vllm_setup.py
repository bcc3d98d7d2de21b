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
#: Sampling defaults of the model (its generation_config) that a request never sets itself.
_MODEL_DEFAULTS = ("top_k", "min_p", "repetition_penalty")
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
    gpu_memory_utilization: float
    limit_mm_per_prompt: dict[str, int]
    dtype: str
    seed: int
    trust_remote_code: bool


class EngineArgs(_EngineArgsAlways, total=False):
    """Keyword arguments of ``vllm.LLM(...)`` (:func:`engine_kwargs`); the context length
    and hub revision only when ``--model-opt`` sets them."""

    max_model_len: int
    revision: str


def engine_kwargs(source: str, options: ModelOptions) -> EngineArgs:
    """Keyword arguments of ``vllm.LLM(...)`` from the ``--model-opt`` pairs (checked here,
    so a typo is a usage error before anything loads)."""
    kwargs: EngineArgs = {
        "model": source,
        "tensor_parallel_size": options.get_count("tensor_parallel_size", 1),
        "gpu_memory_utilization": 0.9,
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
            kwargs["gpu_memory_utilization"] = float(util)
        except ValueError:
            kwargs["gpu_memory_utilization"] = -1.0
        if not 0 < kwargs["gpu_memory_utilization"] <= 1:
            raise UsageError(f"--model-opt gpu_memory_utilization={util!r} must be a fraction in (0, 1]")
    max_len = options.get_count("max_model_len")
    if max_len is not None:
        kwargs["max_model_len"] = max_len
    revision = options.get("revision")
    if revision:
        kwargs["revision"] = revision
    return kwargs


def sampling_kwargs(config: GenerationConfig, defaults: object) -> dict[str, float | None]:
    """Keyword arguments of ``vllm.SamplingParams`` for a request: its temperature,
    ``top_p``, ``max_tokens`` (None: up to the context length, as ``vllm serve``) and seed,
    over ``defaults`` (``LLM.get_default_sampling_params()``: the model's generation_config)
    for what it leaves unset and for ``top_k``, ``min_p``, ``repetition_penalty``."""
    out: dict[str, float | None] = {"max_tokens": config.max_tokens, "seed": config.seed}
    for name in ("temperature", "top_p"):
        value = getattr(config, name)
        if value is None:
            value = getattr(defaults, name, None)
        if value is not None:
            out[name] = value
    for name in _MODEL_DEFAULTS:
        value = getattr(defaults, name, None)
        if value is not None:
            out[name] = value
    return out
