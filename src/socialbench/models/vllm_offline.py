"""In-process vLLM backend: ``vllm:PATH_OR_ID`` (vLLM's offline ``LLM`` engine on this GPU).

    vllm:Qwen/Qwen2.5-VL-3B-Instruct
    vllm:/checkpoints/my-vlm --model-opt tensor_parallel_size=2 --model-opt max_model_len=16384

The engine is built once, on the first request (a fully cached run never builds it), by one
background thread that owns it. Each request becomes an OpenAI-style chat conversation —
``Request.system`` as a system turn, then one user turn with the prompt text and its images
as ``data:`` URLs (``images_first=true`` puts them first) — rendered by vLLM's own chat
templating (``LLM.chat``, the model's processor and placeholders). Sampling follows the
request: temperature, ``max_tokens``, seed; JSON mode does not apply (as for ``hf:``).

Batching: :meth:`VLLMOfflineModel.generate` only enqueues. The engine thread hands every
request waiting at that moment (up to ``max_batch``) to one ``LLM.chat`` call, inside which
vLLM batches continuously (requests join and leave the running batch token by token, no
padding); requests arriving meanwhile form the next call. The engine's ``--concurrency``
therefore sets how many requests vLLM can schedule at once: give it at least vLLM's
``max_num_seqs`` (256 by default) for full throughput.

Options (``--model-opt KEY=VALUE``): ``tensor_parallel_size`` (1), ``max_model_len``
(the model's), ``gpu_memory_utilization`` (0.9), ``limit_mm_per_prompt`` (10 images: the
most SocialNav-SUB sends; or ``image=N``), ``dtype`` (``auto``, ``bfloat16``, ``float16``,
``float32``), ``max_batch`` (1024 requests per call), ``batch_wait_ms`` (5),
``images_first``, ``revision``, ``trust_remote_code`` (false), ``seed`` of the engine (the
run's ``--seed``).

Errors follow every backend's contract: an engine that cannot be built is ``load_error``
(fatal, every request), a prompt the engine rejects (too long for ``max_model_len``, too many
images for ``limit_mm_per_prompt``, an undecodable image) ``bad_request``, GPU memory
exhaustion ``out_of_memory`` (retryable), an empty answer ``empty_response``, anything else
``backend_error``. One bad request in a call does not fail the others: the call is re-run
request by request.

vLLM is imported only when the engine is built (``pip install 'socialbench[vllm]'``, on a
machine with a CUDA GPU); a missing vLLM or a machine without a visible GPU is a one-line
usage error before the run starts.
"""

from __future__ import annotations

import importlib.util
import logging
import queue
import sys
from pathlib import Path
from typing import Any, Sequence

from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError, ModelError, RetryableModelError
from socialbench.models.hf_local import checkpoint_fingerprint
from socialbench.models.registry import ModelOptions, register
from socialbench.models.worker_thread import STOP, ThreadJob, WorkerThreadModel
from socialbench.types import Generation, Request, Usage

log = logging.getLogger(__name__)

DEFAULT_IMAGES_PER_PROMPT = 10
DEFAULT_MAX_BATCH = 1024
DEFAULT_BATCH_WAIT_S = 0.005
_DTYPES = {"auto", "bfloat16", "float16", "float32", "half", "float"}
_MAX_MESSAGE_CHARS = 300
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


def build_messages(request: Request, images_first: bool = False) -> list[dict[str, Any]]:
    """The OpenAI-style conversation ``LLM.chat`` renders: an optional system turn, then one
    user turn with the prompt and every image as a ``data:`` URL, in the request's order."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    text = [{"type": "text", "text": request.prompt}]
    images = [{"type": "image_url", "image_url": {"url": f"data:{img.mime};base64,{img.b64}"}} for img in request.images]
    messages.append({"role": "user", "content": images + text if images_first else text + images})
    return messages


def parse_mm_limit(value: str | None) -> dict[str, int]:
    """``limit_mm_per_prompt``: ``N`` or ``image=N[,video=M]`` -> vLLM's mapping."""
    if value is None or value.strip() == "":
        return {"image": DEFAULT_IMAGES_PER_PROMPT}
    out: dict[str, int] = {}
    for part in value.split(","):
        key, sep, number = part.partition("=")
        key, number = (key.strip(), number.strip()) if sep else ("image", key.strip())
        if not number.isdigit() or not key:
            raise UsageError(f"--model-opt limit_mm_per_prompt={value!r} must be N or image=N[,video=M]")
        out[key] = int(number)
    return out


def engine_kwargs(source: str, options: ModelOptions) -> dict[str, Any]:
    """Keyword arguments of ``vllm.LLM(...)`` from the ``--model-opt`` pairs (checked here,
    so a typo is a usage error before anything loads)."""
    kwargs: dict[str, Any] = {
        "model": source,
        "tensor_parallel_size": options.get_count("tensor_parallel_size", 1),
        "gpu_memory_utilization": 0.9,
        "limit_mm_per_prompt": parse_mm_limit(options.get("limit_mm_per_prompt")),
        "dtype": (options.get("dtype") or "auto").strip().lower(),
        "seed": options.seed,
        "trust_remote_code": options.get_flag("trust_remote_code"),
    }
    if kwargs["dtype"] not in _DTYPES:
        raise UsageError(f"--model-opt dtype={options.get('dtype')!r} is unknown; use auto, bfloat16, float16 or float32")
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


class VLLMOfflineModel(WorkerThreadModel):
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
        local = Path(source).expanduser()
        if local.exists():
            if not (local / "config.json").is_file():
                raise UsageError(f"{self.spec}: {local} has no config.json; point vllm: at a checkpoint folder")
            self.local_path: Path | None = local.resolve()
        elif source.startswith(("/", ".", "~")):
            raise UsageError(f"{self.spec}: no such folder; give an existing checkpoint folder or a hub id")
        else:
            self.local_path = None
        self.source = source
        self.kwargs = engine_kwargs(str(self.local_path or source), options)
        self.images_first = options.get_flag("images_first")
        self.max_batch = options.get_count("max_batch", DEFAULT_MAX_BATCH) or DEFAULT_MAX_BATCH
        wait_ms = options.get_nonnegative("batch_wait_ms", DEFAULT_BATCH_WAIT_S * 1000)
        self.batch_wait_s = wait_ms / 1000.0
        self._init_worker()
        self._llm: Any = None
        self._identity: str | None = None
        #: Sizes of the ``LLM.chat`` calls made so far (for tests and benchmarks).
        self.call_sizes: list[int] = []

    def __repr__(self) -> str:
        return f"VLLMOfflineModel(source={self.source!r})"

    def identity(self) -> str:
        """Checkpoint (fingerprint or revision), dtype, context length and image order: what
        changes answers. Checks that a GPU is visible (so a run fails before it starts)."""
        if self._identity is None:
            if visible_gpus() < 1:
                raise UsageError(f"{self.spec}: no CUDA GPU is visible to this process; {MISSING_VLLM}")
            where = (f"local:{checkpoint_fingerprint(self.local_path)}" if self.local_path is not None
                     else f"rev:{self.kwargs.get('revision', 'main')}")
            self._identity = "|".join([
                "vllm", self.source, where, f"dtype={self.kwargs['dtype']}",
                f"max_model_len={self.kwargs.get('max_model_len', 'model')}",
                "images_first" if self.images_first else "text_first",
            ])
        return self._identity

    # -- engine -------------------------------------------------------------------------

    def load(self) -> None:
        """Build the engine now (the engine thread does it on first use otherwise)."""
        if self._llm is not None:
            return
        import vllm

        self._llm = vllm.LLM(**self.kwargs)
        log.info("vLLM engine ready for %s", self.spec)

    def _sampling(self, request: Request) -> Any:
        import vllm

        config = request.config
        return vllm.SamplingParams(temperature=config.temperature, max_tokens=config.max_tokens, seed=config.seed)

    thread_prefix = "vllm-engine"

    def _serve(self) -> None:
        while True:
            first = self._queue.get()
            if first is STOP:
                return
            jobs, stop = self._gather([first])
            jobs = [j for j in jobs if not j.future.done()]
            if jobs:
                if self._load_error is not None:
                    for job in jobs:
                        job.resolve(self._load_error)
                else:
                    self._run(jobs)
            if stop:
                return

    def _gather(self, jobs: list[ThreadJob]) -> tuple[list[ThreadJob], bool]:
        """Take what else is waiting (up to ``max_batch``; ``batch_wait_s`` for company while
        the call would hold one request). True when the stop signal was seen."""
        waited = False
        while len(jobs) < self.max_batch:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                if waited or self.batch_wait_s <= 0:
                    break
                waited = True
                try:
                    item = self._queue.get(timeout=self.batch_wait_s)
                except queue.Empty:
                    break
            if item is STOP:
                return jobs, True
            jobs.append(item)
        return jobs, False

    def _run(self, jobs: Sequence[ThreadJob]) -> None:
        try:
            results = self._chat([j.request for j in jobs])
        except Exception as exc:  # noqa: BLE001 - mapped below
            error = map_error(exc)
            if len(jobs) > 1 and error.kind != "out_of_memory":
                for job in jobs:  # one bad prompt must not sink the others
                    try:
                        job.resolve(self._chat([job.request])[0])
                    except Exception as single:  # noqa: BLE001
                        job.resolve(map_error(single))
                return
            for job in jobs:
                job.resolve(error)
            return
        for job, result in zip(jobs, results):
            job.resolve(result)

    def _chat(self, requests: Sequence[Request]) -> list[Generation | ModelError]:
        """One ``LLM.chat`` over ``requests``: a generation or ``empty_response`` each."""
        conversations = [build_messages(r, self.images_first) for r in requests]
        outputs = self._llm.chat(conversations, [self._sampling(r) for r in requests], use_tqdm=False)
        self.call_sizes.append(len(requests))
        if len(outputs) != len(requests):
            raise RuntimeError(f"vLLM returned {len(outputs)} outputs for {len(requests)} conversations")
        return [to_generation(o) for o in outputs]

    async def aclose(self) -> None:
        await self._stop_worker()
        self._llm = None


def to_generation(output: Any) -> Generation | ModelError:
    """A vLLM ``RequestOutput`` -> a :class:`Generation` with token usage (or an
    ``empty_response`` error)."""
    completion = output.outputs[0] if output.outputs else None
    text = completion.text if completion is not None else ""
    if not text.strip():
        return FatalModelError("empty_response", f"finish_reason={getattr(completion, 'finish_reason', None)}")
    prompt_tokens = len(output.prompt_token_ids or ())
    return Generation(text=text, usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=len(completion.token_ids or ())))


def map_error(exc: BaseException) -> ModelError:
    """An exception from the engine -> the backend contract's error kinds."""
    if isinstance(exc, ModelError):
        return exc
    text = f"{type(exc).__name__}: {exc}"[:_MAX_MESSAGE_CHARS]
    if type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower():
        return RetryableModelError("out_of_memory", text)
    if isinstance(exc, (ValueError, TypeError, KeyError)):
        return FatalModelError("bad_request", text)
    return FatalModelError("backend_error", text)


@register(
    "vllm",
    summary="vLLM's offline engine in this process on a GPU, continuous batching (options: "
    "tensor_parallel_size, max_model_len, gpu_memory_utilization, limit_mm_per_prompt, dtype)",
    example="vllm:Qwen/Qwen2.5-VL-3B-Instruct",
)
def create_vllm_model(rest: str, options: ModelOptions) -> VLLMOfflineModel:
    """Local checkpoint or hub id run by vLLM in-process: ``vllm:PATH_OR_ID``."""
    return VLLMOfflineModel(rest, options)
