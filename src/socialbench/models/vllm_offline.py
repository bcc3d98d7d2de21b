"""In-process vLLM backend: ``vllm:PATH_OR_ID`` (vLLM's offline ``LLM`` on this GPU, batched).

One background thread builds the engine on the first uncached request and owns it. Each
request is one OpenAI-format conversation (:mod:`socialbench.models.vllm_chat`) given to
``LLM.chat``; the thread runs what waits (up to ``max_batch``) as one call, in which vLLM
batches continuously. A failed call is run again one request at a time, so only the faulty
request fails. Options, sampling, errors and the vLLM versions the extra admits:
docs/models.md, "vLLM in this process". vLLM is imported only when the engine is built.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Sequence
from typing import Any

from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError, ModelError
from socialbench.models.hf_checkpoint import checkpoint_folder, checkpoint_where
from socialbench.models.reasoning import THINK_END, TemplateSwitchMixin, single_token_id
from socialbench.models.registry import ModelOption, ModelOptions, register
from socialbench.models.vllm_chat import (
    check_images,
    openai_messages,
    processor_chat_template,
    template_has_system_role,
)
from socialbench.models.vllm_results import map_error, to_generation
from socialbench.models.vllm_setup import (
    MISSING_VLLM,
    defaults_applied,
    engine_kwargs,
    model_sampling_defaults,
    sampling_kwargs,
    visible_gpus,
    vllm_installed,
)
from socialbench.models.worker_thread import ThreadJob, WorkerThreadModel

log = logging.getLogger(__name__)

DEFAULT_MAX_BATCH = 1024
DEFAULT_BATCH_WAIT_S = 0.005
_MAX_MESSAGE_CHARS = 300


class VLLMOfflineModel(TemplateSwitchMixin, WorkerThreadModel):
    """A vision-language model served by vLLM's offline engine in this process (see the
    module docstring)."""

    cacheable = True
    needs_prompt = True

    def __init__(self, source: str, options: ModelOptions | None = None) -> None:
        options = options or ModelOptions()
        source = source.strip()
        if not source:
            raise UsageError("model spec 'vllm:' has no checkpoint; use vllm:PATH or vllm:OWNER/NAME")
        self.spec = f"vllm:{source}"
        if not vllm_installed():
            raise UsageError(f"{self.spec} {MISSING_VLLM}")
        self.local_path = checkpoint_folder(self.spec, source, "point vllm: at a checkpoint folder")
        self.source = source
        self.kwargs = engine_kwargs(str(self.local_path or source), options)
        self.images_first = options.get_flag("images_first")
        self.max_batch = options.get_count("max_batch", DEFAULT_MAX_BATCH) or DEFAULT_MAX_BATCH
        wait_ms = options.get_nonnegative("batch_wait_ms", DEFAULT_BATCH_WAIT_S * 1000)
        self.batch_wait_s = wait_ms / 1000.0
        self._init_worker()
        self._llm: Any = None
        #: The generation_config's sampling settings (:func:`model_sampling_defaults`).
        self._defaults: dict[str, float] = {}
        #: What those defaults set in the requests so far (run.json's ``generation_adapted``).
        self._adapted: dict[str, str] = {}
        self._template: str | None = None
        self._system_role = True
        self._think_end: int | None = None
        self._warned_no_switch = False
        self._identity: str | None = None
        #: Sizes of the ``LLM.chat`` calls made so far (for tests and benchmarks).
        self.batch_sizes: list[int] = []

    def __repr__(self) -> str:
        return f"VLLMOfflineModel(source={self.source!r})"

    def identity(self) -> str:
        """Checkpoint (fingerprint or revision), dtype, context length, image order and the
        chat path (``LLM.chat``): what changes answers. Checks that a GPU is visible (so a
        run fails before it starts)."""
        if self._identity is None:
            if visible_gpus() < 1:
                raise UsageError(f"{self.spec}: no CUDA GPU is visible to this process; {MISSING_VLLM}")
            where = checkpoint_where(self.local_path, self.kwargs.get("revision"))
            self._identity = "|".join(
                [
                    "vllm",
                    self.source,
                    where,
                    f"dtype={self.kwargs['dtype']}",
                    f"max_model_len={self.kwargs.get('max_model_len', 'model')}",
                    "images_first" if self.images_first else "text_first",
                    "llm.chat",
                ]
            )
        return self._identity

    # -- engine -------------------------------------------------------------------------

    def load(self) -> None:
        """Build the engine and read its chat template now (the engine thread does it on
        first use otherwise)."""
        if self._llm is not None:
            return
        import vllm

        llm = vllm.LLM(**self.kwargs)
        tokenizer = llm.get_tokenizer()
        template = processor_chat_template(
            self.kwargs["model"], self.kwargs.get("revision"), self.kwargs["trust_remote_code"]
        )
        self._template = template or getattr(tokenizer, "chat_template", None)
        self._system_role = template_has_system_role(tokenizer, template)
        self._think_end = single_token_id(tokenizer, THINK_END)
        self._defaults = model_sampling_defaults(llm)
        if self._defaults:
            log.info("%s: sampling defaults of the model's generation_config: %s", self.spec, self._defaults)
        self._llm = llm
        log.info("vLLM engine ready for %s", self.spec)

    thread_prefix = "vllm-engine"

    def _serve(self) -> None:
        """Take what waits (up to ``max_batch``), run it as ``LLM.chat`` calls (one per set of
        chat-template arguments), answer each request; until :data:`STOP` is read."""
        pending: collections.deque[ThreadJob] = collections.deque()
        stopping = False
        while (taken := self._take_live(pending, stopping, self.max_batch, self.batch_wait_s)) is not None:
            live, stopping = taken
            batch, rest = live[: self.max_batch], live[self.max_batch :]
            pending = collections.deque(rest)
            if self._load_error is not None:
                for job in batch:
                    job.resolve(self._load_error)
                continue
            try:
                for group in self._groups(batch):
                    self._run(group)
            except Exception as exc:  # noqa: BLE001 - a bug here must not leave callers waiting forever
                log.exception("%s: engine loop failed", self.spec)
                error = FatalModelError(
                    "backend_error", f"engine loop failed: {type(exc).__name__}: {exc}"[:_MAX_MESSAGE_CHARS]
                )
                for job in batch:
                    job.resolve(error)

    def _groups(self, batch: Sequence[ThreadJob]) -> list[tuple[dict[str, bool], list[ThreadJob]]]:
        """The batch split by chat-template arguments (``LLM.chat`` takes one set a call),
        in order of first appearance."""
        groups: dict[tuple[tuple[str, bool], ...], tuple[dict[str, bool], list[ThreadJob]]] = {}
        for job in batch:
            kwargs = self._template_kwargs(job.request)
            groups.setdefault(tuple(sorted(kwargs.items())), (kwargs, []))[1].append(job)
        return list(groups.values())

    def _run(self, group: tuple[dict[str, bool], list[ThreadJob]]) -> None:
        """One ``LLM.chat`` call; if it fails for another reason than memory, each request of
        a larger call is run alone so that only the faulty one fails."""
        chat_kwargs, candidates = group
        import vllm

        jobs = []
        for job in candidates:
            try:
                check_images(job.request.images)
            except ModelError as exc:
                job.resolve(exc)
                continue
            jobs.append(job)
        if not jobs:
            return
        conversations = [openai_messages(job.request, self.images_first, self._system_role) for job in jobs]
        params = [vllm.SamplingParams(**sampling_kwargs(job.request.config, self._defaults)) for job in jobs]
        for job in jobs:
            for name, note in defaults_applied(job.request.config, self._defaults).items():
                self._adapted.setdefault(name, note)
        try:
            outputs = self._llm.chat(
                conversations, sampling_params=params, use_tqdm=False, chat_template_kwargs=chat_kwargs or None
            )
        except Exception as exc:  # noqa: BLE001 - mapped below
            error = map_error(exc)
            if len(jobs) > 1 and error.kind != "out_of_memory":
                for job in jobs:
                    self._run((chat_kwargs, [job]))
                return
            for job in jobs:
                job.resolve(error)
            return
        self.batch_sizes.append(len(jobs))
        if len(outputs) != len(jobs):
            error = FatalModelError("backend_error", f"LLM.chat gave {len(outputs)} outputs for {len(jobs)} requests")
            for job in jobs:
                job.resolve(error)
            return
        for job, output in zip(jobs, outputs):
            job.resolve(to_generation(output, self._think_end))

    def adaptations(self) -> dict[str, str]:
        """The sampling settings the model's generation_config set where the run left them
        open (run.json's ``generation_adapted``), as ``vllm serve`` applies them."""
        return dict(self._adapted)

    async def aclose(self) -> None:
        await self._stop_worker()
        self._llm = None


@register(
    "vllm",
    summary="vLLM's offline engine in this process on a GPU, batched through LLM.chat (options: "
    "tensor_parallel_size, max_model_len, gpu_memory_utilization, limit_mm_per_prompt, dtype)",
    example="vllm:Qwen/Qwen2.5-VL-3B-Instruct",
    options=(
        ModelOption("tensor_parallel_size", "count", "GPUs the model is split over (default 1)"),
        ModelOption("max_model_len", "count", "the engine's context length in tokens"),
        ModelOption("gpu_memory_utilization", "number", "fraction of GPU memory the engine takes (0, 1]"),
        ModelOption("limit_mm_per_prompt", "text", "images per prompt (default: the benchmark's largest request)"),
        ModelOption("dtype", "text", "auto, bfloat16, float16 or float32 (default auto)"),
        ModelOption("trust_remote_code", "flag", "true: run the checkpoint's own model code"),
        ModelOption("revision", "text", "the hub revision (branch, tag or commit) to load"),
        ModelOption("images_first", "flag", "true: images before the prompt text (default false)"),
        ModelOption("max_batch", "count", "requests handed to the engine together"),
        ModelOption("batch_wait_ms", "number", "milliseconds to wait for a batch to fill"),
    ),
)
def create_vllm_model(rest: str, options: ModelOptions) -> VLLMOfflineModel:
    """Local checkpoint or hub id run by vLLM in-process: ``vllm:PATH_OR_ID``."""
    return VLLMOfflineModel(rest, options)
