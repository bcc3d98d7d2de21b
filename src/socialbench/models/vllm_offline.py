"""In-process vLLM backend: ``vllm:PATH_OR_ID`` (vLLM's engine on this GPU, continuous batching).

    vllm:Qwen/Qwen2.5-VL-3B-Instruct
    vllm:/checkpoints/my-vlm --model-opt tensor_parallel_size=2 --model-opt max_model_len=16384

The engine (``vllm.LLM``'s ``LLMEngine``) is built once, on the first request (a fully
cached run never builds it), by one background thread that owns it. Each request is rendered
with the model's own chat template (:mod:`socialbench.models.vllm_chat`: a system turn, then
the prompt and its images; ``images_first=true`` puts the images first) and sampled as the
request says: temperature, ``max_tokens``, seed; JSON mode does not apply (as for ``hf:``).

Continuous batching: :meth:`VLLMOfflineModel.generate` only enqueues. The engine thread runs
vLLM's step loop: before every ``LLMEngine.step()`` it adds each request that arrived
meanwhile (``add_request``), so a new request joins the running batch at the next step
instead of waiting for the others to finish; each request is answered as soon as its own
``RequestOutput`` is finished. A request whose caller stopped waiting (a timeout, Ctrl-C) is
aborted in the engine (``abort_request``) at the next step, freeing its KV cache. The run's
``--concurrency`` is how many requests the engine can schedule: give it at least vLLM's
``max_num_seqs`` (256 by default) for full throughput.

Options (``--model-opt KEY=VALUE``): ``tensor_parallel_size`` (1), ``max_model_len``
(the model's), ``gpu_memory_utilization`` (0.9), ``limit_mm_per_prompt`` (10 images: the
most SocialNav-SUB sends; or ``image=N``), ``dtype`` (``auto``, ``bfloat16``, ``float16``,
``float32``), ``max_batch`` (1024: most requests held by the engine at once, running or
waiting in its scheduler; more wait here), ``batch_wait_ms`` (5: how long a request reaching
an idle engine waits for others to start with it), ``images_first``, ``revision``,
``trust_remote_code`` (false), ``seed`` of the engine (the run's ``--seed``).

Errors follow every backend's contract, per request: an engine that cannot be built or a
chat template that cannot place images is ``load_error`` (fatal, every request); a prompt
the engine rejects when it is added (too long for ``max_model_len``, too many images for
``limit_mm_per_prompt``, an undecodable image) ``bad_request`` for that request only; a
request the engine ends without an answer (aborted, or an error finish) ``backend_error``;
an empty answer ``empty_response``. A failing ``step()`` fails the requests it was running
(``out_of_memory``, retryable, for GPU memory exhaustion; else ``backend_error``) and the
loop goes on with the next requests.

vLLM is imported only when the engine is built (``pip install 'socialbench[vllm]'``, on a
machine with a CUDA GPU); a missing vLLM or a machine without a visible GPU is a one-line
usage error before the run starts.
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import queue
import sys
from pathlib import Path
from typing import Any

from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError, ModelError, RetryableModelError
from socialbench.models.hf_local import checkpoint_fingerprint
from socialbench.models.registry import ModelOptions, register
from socialbench.models.vllm_chat import ChatPrompter, processor_chat_template
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
        self._engine: Any = None
        self._prompter: ChatPrompter | None = None
        self._request_ids = itertools.count()
        self._identity: str | None = None

    def __repr__(self) -> str:
        return f"VLLMOfflineModel(source={self.source!r})"

    def identity(self) -> str:
        """Checkpoint (fingerprint or revision), dtype, context length and image order: what
        changes answers. Checks that a GPU is visible (so a run fails before it starts)."""
        if self._identity is None:
            if visible_gpus() < 1:
                raise UsageError(f"{self.spec}: no CUDA GPU is visible to this process; {MISSING_VLLM}")
            where = (
                f"local:{checkpoint_fingerprint(self.local_path)}"
                if self.local_path is not None
                else f"rev:{self.kwargs.get('revision', 'main')}"
            )
            self._identity = "|".join(
                [
                    "vllm",
                    self.source,
                    where,
                    f"dtype={self.kwargs['dtype']}",
                    f"max_model_len={self.kwargs.get('max_model_len', 'model')}",
                    "images_first" if self.images_first else "text_first",
                ]
            )
        return self._identity

    # -- engine -------------------------------------------------------------------------

    def load(self) -> None:
        """Build the engine and check the chat template now (the engine thread does it on
        first use otherwise)."""
        if self._engine is not None:
            return
        import vllm

        llm = vllm.LLM(**self.kwargs)
        template = processor_chat_template(
            self.kwargs["model"], self.kwargs.get("revision"), self.kwargs["trust_remote_code"]
        )
        prompter = ChatPrompter(llm.get_tokenizer(), template, self.images_first)
        prompter.check()
        self._llm, self._engine, self._prompter = llm, llm.llm_engine, prompter
        log.info("vLLM engine ready for %s", self.spec)

    def _sampling(self, request: Request) -> Any:
        import vllm

        config = request.config
        params = vllm.SamplingParams(temperature=config.temperature, max_tokens=config.max_tokens, seed=config.seed)
        try:  # only the finished output of each request is needed (what LLM.generate asks for)
            from vllm.sampling_params import RequestOutputKind
        except ImportError:  # vLLM before 0.6.2: every step's output; finished ones are kept
            return params
        params.output_kind = RequestOutputKind.FINAL_ONLY
        return params

    thread_prefix = "vllm-engine"

    def _serve(self) -> None:
        """The step loop: add what arrived, abort what was given up, step, answer what
        finished; until :data:`STOP` is read and nothing is running."""
        running: dict[str, ThreadJob] = {}
        stopping = False
        while True:
            try:
                if not stopping:
                    stopping = self._admit(running)
                self._abort_abandoned(running)
                if not running:
                    if stopping:
                        return
                    continue
                self._step(running)
            except Exception as exc:  # noqa: BLE001 - a bug here must not leave callers waiting forever
                log.exception("%s: engine loop failed", self.spec)
                error = FatalModelError(
                    "backend_error", f"engine loop failed: {type(exc).__name__}: {exc}"[:_MAX_MESSAGE_CHARS]
                )
                for job in running.values():
                    job.resolve(error)
                running.clear()

    def _admit(self, running: dict[str, ThreadJob]) -> bool:
        """Add the waiting requests to the engine (up to ``max_batch`` held at once). With
        nothing running, sleep until a request comes, then give others ``batch_wait_s`` to
        join it. True when the stop signal was read."""
        idle = not running
        company_wait = self.batch_wait_s if idle else 0.0
        while len(running) < self.max_batch:
            if idle and not running:
                item = self._queue.get()
            else:
                try:
                    item = self._queue.get(timeout=company_wait) if company_wait > 0 else self._queue.get_nowait()
                except queue.Empty:
                    break
                company_wait = 0.0
            if item is STOP:
                return True
            self._add(item, running)
        return False

    def _add(self, job: ThreadJob, running: dict[str, ThreadJob]) -> None:
        """One request into the engine, or its error to its caller."""
        if not job.live():
            return
        if self._load_error is not None:
            job.resolve(self._load_error)
            return
        assert self._prompter is not None
        try:
            prompt = self._prompter.prompt(job.request)
        except ModelError as exc:
            job.resolve(exc)
            return
        except Exception as exc:  # noqa: BLE001 - the template or tokenizer refused this request
            job.resolve(
                FatalModelError(
                    "bad_request", f"prompt cannot be rendered: {type(exc).__name__}: {exc}"[:_MAX_MESSAGE_CHARS]
                )
            )
            return
        request_id = f"socialbench-{next(self._request_ids)}"
        try:
            self._engine.add_request(request_id, prompt, self._sampling(job.request))
        except Exception as exc:  # noqa: BLE001 - mapped: a rejected prompt fails only this request
            job.resolve(map_error(exc))
            return
        running[request_id] = job

    def _abort_abandoned(self, running: dict[str, ThreadJob]) -> None:
        """Abort the requests whose callers stopped waiting (their KV cache is freed)."""
        gone = [request_id for request_id, job in running.items() if not job.live()]
        for request_id in gone:
            del running[request_id]
        if gone:
            self._abort(gone)

    def _abort(self, request_ids: list[str]) -> None:
        try:
            self._engine.abort_request(request_ids)
        except Exception as exc:  # noqa: BLE001 - the requests are answered already; only log
            log.warning(
                "%s: abort of %d request(s) failed: %s: %s", self.spec, len(request_ids), type(exc).__name__, exc
            )

    def _step(self, running: dict[str, ThreadJob]) -> None:
        """One engine step; answer each request it finished. A failing step fails the
        requests it was running (they are aborted in the engine)."""
        if not self._engine.has_unfinished_requests():  # stepping would wait for outputs that never come
            dropped = FatalModelError("backend_error", "the engine dropped the request without an output")
            for job in running.values():
                job.resolve(dropped)
            running.clear()
            return
        try:
            outputs = self._engine.step()
        except Exception as exc:  # noqa: BLE001 - mapped below
            error = map_error(exc, engine_wide=True)
            for job in running.values():
                job.resolve(error)
            self._abort(list(running))
            running.clear()
            return
        for output in outputs:
            if getattr(output, "finished", False) and output.request_id in running:
                running.pop(output.request_id).resolve(to_generation(output))

    async def aclose(self) -> None:
        await self._stop_worker()
        self._llm = self._engine = self._prompter = None


#: Finish reasons of a request the engine ended without an answer.
_FAILED_FINISH = {"abort", "error"}


def to_generation(output: Any) -> Generation | ModelError:
    """A finished vLLM ``RequestOutput`` -> a :class:`Generation` with token usage, or the
    error it is (``backend_error`` for an aborted or failed request, ``empty_response``)."""
    completion = output.outputs[0] if output.outputs else None
    reason = getattr(completion, "finish_reason", None)
    if reason in _FAILED_FINISH:
        return FatalModelError("backend_error", f"the engine ended the request: finish_reason={reason}")
    text = completion.text if completion is not None else ""
    if completion is None or not text.strip():
        return FatalModelError("empty_response", f"finish_reason={reason}")
    prompt_tokens = len(output.prompt_token_ids or ())
    return Generation(
        text=text, usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=len(completion.token_ids or ()))
    )


def map_error(exc: BaseException, engine_wide: bool = False) -> ModelError:
    """An exception from the engine -> the backend contract's error kinds. ``engine_wide``:
    raised by ``step()`` (never one prompt's fault, so never ``bad_request``)."""
    if isinstance(exc, ModelError):
        return exc
    text = f"{type(exc).__name__}: {exc}"[:_MAX_MESSAGE_CHARS]
    if type(exc).__name__ == "OutOfMemoryError" or "out of memory" in str(exc).lower():
        return RetryableModelError("out_of_memory", text)
    if not engine_wide and isinstance(exc, (ValueError, TypeError, KeyError)):
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
