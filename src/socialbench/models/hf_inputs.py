"""What one ``hf:`` ``generate`` call is given and what it gives back, without the model:
devices and dtypes resolved from ``--model-opt``, decoded and shrunk images, the chat of a
request, sampling arguments, same-shape batches and the tokens of a reply.

Everything here is pure (or reads only the image bytes); :mod:`socialbench.models.hf_local`
runs the model with it.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError
from socialbench.prompting.turns import ChatMessage, user_turn
from socialbench.types import GenerationConfig, Request

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

_DTYPE_NAMES = {
    "float32": "float32",
    "fp32": "float32",
    "float": "float32",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
    "float16": "float16",
    "fp16": "float16",
    "half": "float16",
}

#: A job :func:`group_same_shape` batches.
Job = TypeVar("Job")


def fit_max_pixels(width: int, height: int, max_pixels: int | None) -> tuple[int, int]:
    """The largest size with the same aspect ratio and at most ``max_pixels`` pixels.

    >>> fit_max_pixels(1280, 720, 1280 * 720 // 4)
    (640, 360)
    """
    if not max_pixels or width * height <= max_pixels:
        return width, height
    scale = math.sqrt(max_pixels / float(width * height))
    w, h = max(1, int(width * scale)), max(1, int(height * scale))
    while w * h > max_pixels and (w > 1 or h > 1):  # floating-point edge cases
        if w >= h:
            w -= 1
        else:
            h -= 1
    return w, h


def decode_images(request: Request, max_pixels: int | None) -> list[Image.Image]:
    """The request's images as RGB PIL images, each shrunk to at most ``max_pixels``
    (:func:`fit_max_pixels`); ``bad_request`` naming an image that cannot be decoded."""
    from PIL import Image

    images = []
    for index, encoded in enumerate(request.images):
        try:
            with Image.open(io.BytesIO(encoded.data)) as raw:
                image = raw.convert("RGB")
        except Exception as exc:  # noqa: BLE001 - any decoder failure
            raise FatalModelError(
                "bad_request", f"image {index} ({encoded.mime}) cannot be decoded: {type(exc).__name__}"
            ) from None
        size = fit_max_pixels(image.width, image.height, max_pixels)
        if size != image.size:
            image = image.resize(size, Image.Resampling.BICUBIC)
        images.append(image)
    return images


def build_chat(request: Request, images_first: bool = False, system_role: bool = True) -> list[ChatMessage]:
    """Processor-style chat messages: optional system turn, then the user turn of
    :func:`socialbench.prompting.turns.user_turn` (text and images in the order ``export
    sft`` writes too).

    With ``system_role=False`` the system text is put before the prompt in the user turn.
    """
    prompt = request.prompt
    messages: list[ChatMessage] = []
    if request.system:
        if system_role:
            messages.append({"role": "system", "content": [{"type": "text", "text": request.system}]})
        else:
            prompt = f"{request.system}\n\n{prompt}"
    messages.append(user_turn(prompt, len(request.images), images_first))
    return messages


def resolve_device(option: str | None, cuda_available: bool) -> str:
    """``auto`` -> ``cuda`` when available, else ``cpu``; anything else is kept."""
    value = (option or "auto").strip().lower()
    if value == "auto":
        return "cuda" if cuda_available else "cpu"
    if not (value in ("cpu", "cuda", "mps") or value.startswith("cuda:")):
        raise UsageError(f"--model-opt device={option!r} is not a device; use auto, cpu, cuda, cuda:N or mps")
    return value


def resolve_dtype(option: str | None, device: str, bf16_supported: bool) -> str:
    """``auto`` -> bfloat16 / float16 on CUDA (bf16 when supported), float32 elsewhere."""
    value = (option or "auto").strip().lower()
    if value == "auto":
        if device.startswith("cuda"):
            return "bfloat16" if bf16_supported else "float16"
        return "float32"
    if value not in _DTYPE_NAMES:
        raise UsageError(f"--model-opt dtype={option!r} is unknown; use auto, float32, bfloat16 or float16")
    return _DTYPE_NAMES[value]


def sampling_args(config: GenerationConfig) -> dict[str, bool | float]:
    """``generate`` keyword arguments for a request's sampling settings: temperature 0 ->
    greedy (``do_sample=False``); a positive temperature -> sampling at it; unset -> nothing
    (the checkpoint's ``generation_config`` decides); ``top_p`` when set.

    >>> sampling_args(GenerationConfig(temperature=0.0)), sampling_args(GenerationConfig(temperature=None))
    ({'do_sample': False}, {})
    """
    args: dict[str, bool | float] = {}
    if config.temperature is not None:
        args["do_sample"] = config.temperature > 0
        if config.temperature > 0:
            args["temperature"] = config.temperature
    if config.top_p is not None:
        args["top_p"] = config.top_p
    return args


def group_same_shape(
    jobs: Sequence[Job], batch_size: int, key: Callable[[Job], Hashable]
) -> tuple[list[Job], list[Job]]:
    """Split ``jobs`` into the first batch (jobs sharing the first job's key, at most
    ``batch_size``, in order) and the rest (order kept)."""
    if not jobs:
        return [], []
    first = key(jobs[0])
    batch: list[Job] = []
    rest: list[Job] = []
    for job in jobs:
        if len(batch) < batch_size and key(job) == first:
            batch.append(job)
        else:
            rest.append(job)
    return batch, rest


def tokens_until_stop(tokens: Sequence[int], stop_ids: set[int]) -> list[int]:
    """The generated tokens up to and including the first stop token (all of them when none
    stops): what ``transformers serve`` counts as the completion of a one-request
    ``generate``. Tokens after the stop (a batch pads finished rows) are not the reply's.

    >>> tokens_until_stop([7, 0, 9, 2, 0, 0], {2})  # 0 is the pad token: generated, it counts
    [7, 0, 9, 2]
    """
    kept: list[int] = []
    for token in tokens:
        kept.append(token)
        if token in stop_ids:
            break
    return kept


def stop_token_ids(model: object, tokenizer: object) -> set[int]:
    """The end-of-sequence ids of the model's ``generation_config`` and of its tokenizer
    (either may hold one id or a list): where :func:`tokens_until_stop` cuts a reply."""
    ids: set[int] = set()
    model_eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    for value in (model_eos, getattr(tokenizer, "eos_token_id", None)):
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, Iterable):
            ids.update(int(v) for v in value if v is not None)
    return ids
