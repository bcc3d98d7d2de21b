"""Stand-ins for vLLM's engine and a model's chat template, used by the ``vllm:`` tests.

:class:`FakeVLLM` is a fake ``vllm`` package (``LLM``, ``SamplingParams``,
``sampling_params.RequestOutputKind``) plus a fake ``transformers.AutoProcessor``; its
``LLM`` holds a :class:`FakeEngine` with the methods the backend drives
(``add_request``, ``step``, ``has_unfinished_requests``, ``abort_request``). The engine
answers each request with the first word of its user text, one token per character, and
records when each request was added and finished (in engine steps).
"""

from __future__ import annotations

import asyncio
import enum
import io
import threading
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from socialbench.types import EncodedImage

USER, ASSISTANT, IMAGE = "<|user|>", "<|assistant|>", "<image>"


class FakeTokenizer:
    """Renders typed-part conversations the way a VLM chat template does (``<|role|>``, each
    text part, ``<image>`` per image part; ``<|assistant|>`` as the generation prompt) and
    encodes one token per character. Records the template and encode flags it was given."""

    def __init__(self) -> None:
        self.templates: list[str | None] = []
        self.special_tokens: list[bool] = []

    def apply_chat_template(
        self,
        conversation: Any,
        chat_template: str | None = None,
        tokenize: bool = True,
        add_generation_prompt: bool = False,
    ) -> str:
        self.templates.append(chat_template)
        text = "".join(
            f"<|{m['role']}|>" + "".join(p["text"] if p["type"] == "text" else IMAGE for p in m["content"])
            for m in conversation
        )
        return text + (ASSISTANT if add_generation_prompt else "")

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        self.special_tokens.append(add_special_tokens)
        return [ord(c) for c in text]


class PlainTextTokenizer(FakeTokenizer):
    """A template that takes only string content (it prints the parts list as text)."""

    def apply_chat_template(
        self,
        conversation: Any,
        chat_template: str | None = None,
        tokenize: bool = True,
        add_generation_prompt: bool = False,
    ) -> str:
        return "".join(f"<|{m['role']}|>{m['content']}" for m in conversation) + ASSISTANT


class ImageDroppingTokenizer(FakeTokenizer):
    """A template that renders text parts and silently skips image parts."""

    def apply_chat_template(
        self,
        conversation: Any,
        chat_template: str | None = None,
        tokenize: bool = True,
        add_generation_prompt: bool = False,
    ) -> str:
        return "".join(f"<|{m['role']}|>" + "".join(p.get("text", "") for p in m["content"]) for m in conversation)


class NoSystemRoleTokenizer(FakeTokenizer):
    """A template that raises on a system turn (as some VLM templates do)."""

    def apply_chat_template(self, conversation: Any, **kwargs: Any) -> str:
        if any(m["role"] == "system" for m in conversation):
            raise ValueError("System role not supported")
        return super().apply_chat_template(conversation, **kwargs)


class NoTemplateTokenizer(FakeTokenizer):
    """A tokenizer without any chat template."""

    def apply_chat_template(self, conversation: Any, **kwargs: Any) -> str:
        raise ValueError("Cannot use chat template functions because tokenizer.chat_template is not set")


def prompt_text(prompt: dict[str, Any]) -> str:
    """The rendered text of an engine prompt (one token per character)."""
    return "".join(chr(t) for t in prompt["prompt_token_ids"])


def user_text(prompt: dict[str, Any]) -> str:
    """The user turn's text of an engine prompt, image placeholders removed."""
    text = prompt_text(prompt)
    return text[text.rindex(USER) + len(USER) : text.rindex(ASSISTANT)].replace(IMAGE, "").strip()


def png(width: int, height: int) -> EncodedImage:
    """A real PNG of the given size (its size tells images apart after decoding)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), (10, 20, 30)).save(buf, format="PNG")
    return EncodedImage(buf.getvalue(), "image/png", width, height)


@dataclass
class FakeSampling:
    temperature: float
    max_tokens: int
    seed: int | None = None
    output_kind: Any = None


RequestOutputKind = enum.Enum("RequestOutputKind", "CUMULATIVE DELTA FINAL_ONLY")


@dataclass
class FakeCompletion:
    text: str
    token_ids: list[int]
    finish_reason: str = "stop"


@dataclass
class FakeOutput:
    request_id: str
    prompt_token_ids: list[int]
    outputs: list[FakeCompletion]
    finished: bool = True


@dataclass
class Added:
    """One ``add_request`` call: the prompt, the sampling and the engine step count then."""

    prompt: dict[str, Any]
    params: FakeSampling
    at_step: int


class Stepper:
    """Lets a test run the fake engine one step at a time."""

    def __init__(self) -> None:
        self._go = threading.Semaphore(0)
        self._done = threading.Semaphore(0)
        #: Set while the engine waits to run its next step (everything before it is done).
        self.waiting = threading.Event()

    def wait_turn(self) -> None:
        self.waiting.set()
        acquired = self._go.acquire(timeout=30)
        self.waiting.clear()
        assert acquired, "the test never ran this step"

    def done(self) -> None:
        self._done.release()

    async def step(self) -> None:
        """Run one engine step and wait until it is over."""
        self._go.release()
        assert await asyncio.to_thread(self._done.acquire, True, 30), "the step did not finish"


@dataclass
class FakeEngine:
    """Stands in for ``LLMEngine``. A user text starting with ``HOLD`` finishes only once
    ``hold`` is set; ``ABORTED`` ends with finish_reason ``abort`` and a partial text;
    ``EMPTY`` answers nothing; one containing ``reject`` is refused by ``add_request``."""

    reject: str | None = None
    step_error: BaseException | None = None  # the next step raises it
    drop_all: bool = False  # forget every request (has_unfinished_requests is False)
    stepper: Stepper | None = None
    hold: threading.Event = field(default_factory=threading.Event)
    added: dict[str, Added] = field(default_factory=dict)
    finished: dict[str, int] = field(default_factory=dict)
    aborted: list[str] = field(default_factory=list)
    steps: int = 0
    active: list[str] = field(default_factory=list)

    def add_request(self, request_id: str, prompt: dict[str, Any], params: FakeSampling) -> None:
        if self.reject and self.reject in user_text(prompt):
            raise ValueError(f"prompt too long: {self.reject}")
        self.added[request_id] = Added(prompt, params, self.steps)
        self.active.append(request_id)

    def has_unfinished_requests(self) -> bool:
        return bool(self.active) and not self.drop_all

    def abort_request(self, request_ids: list[str]) -> None:
        self.aborted.extend(request_ids)
        self.active = [r for r in self.active if r not in request_ids]

    def step(self) -> list[FakeOutput]:
        if self.stepper is not None:
            self.stepper.wait_turn()
        else:
            time.sleep(0.001)
        try:
            if self.step_error is not None:
                error, self.step_error = self.step_error, None
                raise error
            return [self._finish(r) for r in list(self.active) if self._ready(r)]
        finally:
            self.steps += 1
            if self.stepper is not None:
                self.stepper.done()

    def _ready(self, request_id: str) -> bool:
        return not user_text(self.added[request_id].prompt).startswith("HOLD") or self.hold.is_set()

    def _finish(self, request_id: str) -> FakeOutput:
        self.active.remove(request_id)
        self.finished[request_id] = self.steps + 1
        prompt = self.added[request_id].prompt
        text = user_text(prompt)
        answer = "" if text.startswith("EMPTY") else text.split()[0]
        reason = "stop"
        if text.startswith("ABORTED"):
            answer, reason = "ABO", "abort"
        completion = FakeCompletion(answer, list(range(len(answer))), reason)
        return FakeOutput(request_id, list(prompt["prompt_token_ids"]), [completion])


class FakeLLM:
    """Stands in for ``vllm.LLM``: its constructor arguments, engine and tokenizer."""

    def __init__(self, kwargs: dict[str, Any], engine: FakeEngine, tokenizer: FakeTokenizer) -> None:
        self.kwargs = kwargs
        self.llm_engine = engine
        self._tokenizer = tokenizer

    def get_tokenizer(self) -> FakeTokenizer:
        return self._tokenizer


class FakeVLLM:
    """Fake ``vllm`` and ``transformers`` modules and the engines built through them."""

    def __init__(self) -> None:
        self.llms: list[FakeLLM] = []
        self.gate: threading.Event | None = None  # the engine's build waits for it
        self.load_error: BaseException | None = None  # the engine's build raises it
        self.make_engine: Callable[[], FakeEngine] = FakeEngine
        self.tokenizer: FakeTokenizer = FakeTokenizer()
        self.processor_template: str | None = None  # None: AutoProcessor cannot load one
        self.processor_calls: list[tuple[str, dict[str, Any]]] = []
        self.module = types.ModuleType("vllm")
        self.module.LLM = self._llm
        self.module.SamplingParams = FakeSampling
        self.sampling_module = types.ModuleType("vllm.sampling_params")
        self.sampling_module.RequestOutputKind = RequestOutputKind
        self.module.sampling_params = self.sampling_module
        self.transformers = types.ModuleType("transformers")
        self.transformers.AutoProcessor = types.SimpleNamespace(from_pretrained=self._processor)

    @property
    def engine(self) -> FakeEngine:
        return self.llms[0].llm_engine

    def _llm(self, **kwargs: Any) -> FakeLLM:
        if self.gate is not None:
            self.gate.wait(30)
        if self.load_error is not None:
            raise self.load_error
        self.llms.append(FakeLLM(kwargs, self.make_engine(), self.tokenizer))
        return self.llms[-1]

    def _processor(self, source: str, **kwargs: Any) -> Any:
        self.processor_calls.append((source, kwargs))
        if self.processor_template is None:
            raise OSError(f"{source} does not appear to have a file named preprocessor_config.json")
        return types.SimpleNamespace(chat_template=self.processor_template)
