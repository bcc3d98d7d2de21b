"""In-process Hugging Face Transformers backend: ``hf:PATH_OR_ID`` or ``hf:BASE+ADAPTER``.

The checkpoint is loaded on the first uncached request; ``hf:BASE+ADAPTER`` merges a local
LoRA adapter folder into ``BASE`` (its path and a hash of its files enter the identity).
:meth:`HFLocalModel.generate` only enqueues: one worker thread owns the model and runs one
left-padded ``generate`` per group of requests with the same image count, sampling and
chat-template settings (up to ``batch_size``). Token usage counts what ``transformers
serve`` counts: every generated token up to and including the first stop token. Options,
decoding and errors: docs/models.md, "A local Hugging Face checkpoint". torch and
transformers are imported only when the model is used (``socialbench[hf]``).
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError, ModelError, RetryableModelError
from socialbench.models.hf_checkpoint import (
    HF_INSTALL,
    adapter_fingerprint,
    adapter_folder,
    checkpoint_folder,
    checkpoint_where,
    load_checkpoint,
    split_adapter_spec,
)
from socialbench.models.hf_inputs import (
    build_chat,
    decode_images,
    group_same_shape,
    resolve_device,
    resolve_dtype,
    sampling_args,
    stop_token_ids,
    tokens_until_stop,
)
from socialbench.models.reasoning import TemplateSwitchMixin, reply_generation, template_kwargs
from socialbench.models.registry import ModelOption, ModelOptions, register
from socialbench.models.worker_thread import ThreadJob, WorkerThreadModel
from socialbench.types import Generation, Request

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 16
DEFAULT_BATCH_WAIT_S = 0.005
_MAX_MESSAGE_CHARS = 300


class HFLocalModel(TemplateSwitchMixin, WorkerThreadModel):
    """A vision-language model run in this process with Transformers (see module docstring)."""

    cacheable = True
    needs_prompt = True

    def __init__(self, source: str, options: ModelOptions | None = None) -> None:
        options = options or ModelOptions()
        spec_text = source.strip()
        if not spec_text:
            raise UsageError("model spec 'hf:' has no checkpoint; use hf:PATH or hf:OWNER/NAME")
        source, adapter = split_adapter_spec(spec_text)
        #: The LoRA (PEFT) adapter folder of ``hf:BASE+ADAPTER``, merged into the weights at load.
        self.adapter_path: Path | None = adapter_folder(spec_text, adapter) if adapter is not None else None
        fix = "point hf: at a folder written by save_pretrained (config.json, weights, processor files)"
        self.local_path = checkpoint_folder(f"hf:{source}", source, fix)
        self.source = source
        self.spec = f"hf:{spec_text}"
        self.batch_size = options.get_count("batch_size", DEFAULT_BATCH_SIZE) or DEFAULT_BATCH_SIZE
        self.max_pixels = options.get_count("max_pixels")
        self.batch_wait_s = options.get_nonnegative("batch_wait_ms", DEFAULT_BATCH_WAIT_S * 1000) / 1000.0
        self.images_first = options.get_flag("images_first")
        self.trust_remote_code = options.get_flag("trust_remote_code")
        self.revision = options.get("revision") or None
        self._device_option = options.get("device", "auto")
        self._dtype_option = options.get("dtype", "auto")
        resolve_device(self._device_option, False)  # validate early
        resolve_dtype(self._dtype_option, "cpu", False)
        self.device: str | None = None
        self.dtype: str | None = None
        self._effective_batch = self.batch_size
        self._init_worker()
        # transformers objects (optional dependency, untyped Auto classes): see LoadedCheckpoint
        self._processor: Any = None
        self._model: Any = None
        self._system_role = True
        self._template: str | None = None
        self._think_end: int | None = None
        self._warned_no_switch = False
        self._identity: str | None = None
        #: Sizes of the batches run so far (for tests and benchmarks).
        self.batch_sizes: list[int] = []

    def __repr__(self) -> str:
        adapter = f", adapter={str(self.adapter_path)!r}" if self.adapter_path is not None else ""
        return f"HFLocalModel(source={self.source!r}{adapter}, batch_size={self.batch_size})"

    # -- identity ---------------------------------------------------------------------

    def _resolved(self) -> tuple[str, str]:
        if self.device is None or self.dtype is None:
            try:
                import torch
            except ImportError:
                raise UsageError(f"{self.spec} needs torch and transformers: {HF_INSTALL}") from None

            cuda = torch.cuda.is_available()
            self.device = resolve_device(self._device_option, cuda)
            bf16 = bool(self.device.startswith("cuda") and cuda and torch.cuda.is_bf16_supported())
            self.dtype = resolve_dtype(self._dtype_option, self.device, bf16)
        return self.device, self.dtype

    def identity(self) -> str:
        """Checkpoint (and its fingerprint or revision), the adapter's path and content hash
        (``hf:BASE+ADAPTER``), dtype, image bound and order."""
        if self._identity is None:
            _, dtype = self._resolved()
            where = checkpoint_where(self.local_path, self.revision)
            adapter = (
                [f"adapter:{self.adapter_path}:{adapter_fingerprint(self.adapter_path)}"]
                if self.adapter_path is not None
                else []
            )
            self._identity = "|".join(
                [
                    "hf",
                    self.source,
                    where,
                    *adapter,
                    dtype,
                    f"max_pixels={self.max_pixels or 'none'}",
                    "images_first" if self.images_first else "text_first",
                ]
            )
        return self._identity

    # -- loading ----------------------------------------------------------------------

    def load(self) -> None:
        """Load processor and weights now (the worker does it on first use otherwise)."""
        if self._model is not None:
            return
        device, dtype_name = self._resolved()
        source = str(self.local_path) if self.local_path is not None else self.source
        options: dict[str, str | bool] = {"trust_remote_code": self.trust_remote_code}
        if self.revision:
            options["revision"] = self.revision
        loaded = load_checkpoint(source, self.spec, device, dtype_name, options, self.adapter_path)
        self._template, self._think_end = loaded.template, loaded.think_end
        self._processor, self._model = loaded.processor, loaded.model

    # -- request path -----------------------------------------------------------------

    thread_prefix = "hf-worker"

    def _serve(self) -> None:
        pending: collections.deque[ThreadJob] = collections.deque()
        stopping = False
        while (taken := self._take_live(pending, stopping, self._effective_batch, self.batch_wait_s)) is not None:
            live, stopping = taken
            batch, rest = group_same_shape(live, self._effective_batch, key=self._batch_key)
            pending = collections.deque(rest)
            if not batch:
                continue
            if self._load_error is not None:
                for job in batch:
                    job.resolve(self._load_error)
                continue
            self._run(batch)

    def _run(self, batch: list[ThreadJob]) -> None:
        prepared: list[tuple[ThreadJob, list[Image.Image]]] = []
        for job in batch:
            try:
                prepared.append((job, decode_images(job.request, self.max_pixels)))
            except ModelError as exc:
                job.resolve(exc)
        if not prepared:
            return
        jobs = [job for job, _ in prepared]
        try:
            results = self._generate_batch([job.request for job in jobs], [imgs for _, imgs in prepared])
        except Exception as exc:  # noqa: BLE001 - mapped to model errors below
            error = self._map_error(exc, len(jobs))
            if len(jobs) > 1 and error.kind not in ("out_of_memory",):
                # One bad request must not sink its batch-mates: answer each alone.
                for job, images in prepared:
                    self._run_single(job, images)
                return
            for job in jobs:
                job.resolve(error)
            return
        for job, result in zip(jobs, results):
            job.resolve(result)

    def _run_single(self, job: ThreadJob, images: list[Image.Image]) -> None:
        try:
            job.resolve(self._generate_batch([job.request], [images])[0])
        except Exception as exc:  # noqa: BLE001
            job.resolve(self._map_error(exc, 1))

    def _map_error(self, exc: BaseException, batch_len: int) -> ModelError:
        if isinstance(exc, ModelError):
            return exc
        text = f"{type(exc).__name__}: {exc}"[:_MAX_MESSAGE_CHARS]
        if type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower():
            smaller = max(1, batch_len // 2)
            if smaller < self._effective_batch:
                self._effective_batch = smaller
                log.warning("%s ran out of memory; batches now hold at most %d requests", self.spec, smaller)
            _empty_cuda_cache()
            return RetryableModelError("out_of_memory", text)
        if isinstance(exc, (ValueError, TypeError, IndexError, KeyError)):
            return FatalModelError("bad_request", text)
        return FatalModelError("backend_error", text)

    def _batch_key(self, job: ThreadJob) -> tuple[object, ...]:
        """What the requests of one ``generate`` share: image count, sampling settings (one
        seed and temperature a batch) and chat-template arguments."""
        c = job.request.config
        switch = tuple(sorted(template_kwargs(self._template, c.reasoning_effort).items()))
        return (len(job.request.images), c.temperature, c.top_p, c.seed, switch)

    def _render(self, request: Request) -> str:
        switch = self._template_kwargs(request)

        def render(system_role: bool) -> str:
            chat = build_chat(request, self.images_first, system_role=system_role)
            text: str = self._processor.apply_chat_template(chat, add_generation_prompt=True, tokenize=False, **switch)
            return text  # a string with tokenize=False (transformers is untyped)

        if request.system and self._system_role:
            try:
                return render(True)
            except Exception:  # noqa: BLE001 - templates without a system role raise
                log.info("%s: chat template has no system role; system text goes into the prompt", self.spec)
                self._system_role = False
        return render(False)

    def _generate_batch(
        self, requests: Sequence[Request], images: Sequence[list[Image.Image]]
    ) -> list[Generation | ModelError]:
        """One padded ``generate`` over same-shaped requests: a generation (or an
        ``empty_response`` error) per request, in order."""
        import torch

        processor, model = self._processor, self._model
        tokenizer = processor.tokenizer
        texts = [self._render(r) for r in requests]
        kwargs: dict[str, Any] = {"text": texts, "return_tensors": "pt", "padding": True}
        if any(images):
            kwargs["images"] = [list(imgs) for imgs in images]
        inputs = processor(**kwargs)
        device, dtype_name = self._resolved()
        dtype = getattr(torch, dtype_name)
        moved = {}
        for name, value in inputs.items():
            if isinstance(value, torch.Tensor):
                value = value.to(device)
                if torch.is_floating_point(value):
                    value = value.to(dtype)
            moved[name] = value
        default_limit = getattr(getattr(model, "generation_config", None), "max_new_tokens", None)
        limits = [r.config.max_tokens_or(default_limit) for r in requests]
        config = requests[0].config  # the batch shares its sampling settings (_batch_key)
        if config.seed is not None:
            torch.manual_seed(config.seed)
        with torch.inference_mode():
            output = model.generate(**moved, max_new_tokens=max(limits), num_beams=1, **sampling_args(config))
        self.batch_sizes.append(len(requests))
        prompt_len = moved["input_ids"].shape[1]
        stop_ids = stop_token_ids(model, tokenizer)
        results: list[Generation | ModelError] = []
        for row, limit in enumerate(limits):
            kept = tokens_until_stop(output[row, prompt_len:].tolist()[:limit], stop_ids)
            text = tokenizer.decode(kept, skip_special_tokens=True)
            if not text.strip():
                results.append(FatalModelError("empty_response", f"no text in {len(kept)} generated tokens"))
                continue
            prompt_tokens = int(moved["attention_mask"][row].sum()) if "attention_mask" in moved else prompt_len
            results.append(reply_generation(text, kept, prompt_tokens, self._think_end, None))
        return results

    async def aclose(self) -> None:
        await self._stop_worker()
        self._model = None
        self._processor = None
        _empty_cuda_cache()


def _empty_cuda_cache() -> None:
    torch = __import__("sys").modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()


@register(
    "hf",
    summary="Local Hugging Face Transformers VLM, batched in-process "
    "(options: batch_size, device, dtype, max_pixels, images_first, revision)",
    example="hf:HuggingFaceTB/SmolVLM-Instruct",
    options=(
        ModelOption("batch_size", "count", "requests generated together"),
        ModelOption("batch_wait_ms", "number", "milliseconds to wait for a batch to fill"),
        ModelOption("device", "text", "auto, cpu, cuda, cuda:N or mps (default auto)"),
        ModelOption("dtype", "text", "auto, bfloat16, float16 or float32 (default auto)"),
        ModelOption("max_pixels", "count", "resize images to at most this many pixels"),
        ModelOption("images_first", "flag", "true: images before the prompt text (default false)"),
        ModelOption("trust_remote_code", "flag", "true: run the checkpoint's own model code"),
        ModelOption("revision", "text", "the hub revision (branch, tag or commit) to load"),
    ),
)
def create_hf_model(rest: str, options: ModelOptions) -> HFLocalModel:
    """Local Transformers checkpoint or hub id, optionally with a LoRA adapter folder:
    ``hf:PATH_OR_ID`` or ``hf:PATH_OR_ID+ADAPTER``."""
    return HFLocalModel(rest, options)
