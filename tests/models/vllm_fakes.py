"""Stand-ins for vLLM's ``LLM`` and a model's chat template, used by the ``vllm:`` tests.

:class:`FakeVLLM` is a fake ``vllm`` package (``LLM``, ``SamplingParams``) plus a fake
``transformers.AutoProcessor``. Its ``LLM.chat`` takes OpenAI-format conversations as vLLM's
does: it checks every conversation first (more ``image_url`` parts than
``limit_mm_per_prompt`` allows, or a user text containing the engine's ``reject`` word (a
prompt longer than the model's context) fails the whole call with vLLM 0.34's
``VLLMValidationError``, which is not a ``ValueError``: :data:`EXCEPTIONS`; an undecodable
image fails it with PIL's own error),
then answers each with the first word of its user text, one token per character. With the
chat-template argument ``enable_thinking`` true, the reply first thinks in a
``<think>...</think>`` section (``</think>`` is one token, :data:`THINK_END_ID`). Every
call is recorded (:class:`Call`).
"""

from __future__ import annotations

import base64
import io
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from socialbench.types import EncodedImage

THINK_END_ID = 9_999


class VLLMError(Exception):
    """vLLM 0.34's ``vllm.exceptions.VLLMError``: the base of its own errors (an ``Exception``)."""


class VLLMClientError(VLLMError):
    """``vllm.exceptions.VLLMClientError``: caused by the request (the server answers 4xx)."""


class VLLMServerError(VLLMError):
    """``vllm.exceptions.VLLMServerError``: caused by the server (5xx)."""


class VLLMValidationError(VLLMClientError):
    """``vllm.exceptions.VLLMValidationError`` as vLLM 0.34 defines it: a client error, NOT a
    ``ValueError`` (older releases subclassed ``ValueError``); ``str()`` appends
    ``(parameter=..., value=...)``."""

    def __init__(self, message: str, *, parameter: str | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.value = value

    def __str__(self) -> str:
        extras = [f"{k}={v}" for k, v in (("parameter", self.parameter), ("value", self.value)) if v is not None]
        base = super().__str__()
        return f"{base} ({', '.join(extras)})" if extras else base


def exceptions_module() -> types.ModuleType:
    """A fake ``vllm.exceptions`` holding the 0.34 hierarchy above."""
    module = types.ModuleType("vllm.exceptions")
    for cls in (VLLMError, VLLMClientError, VLLMServerError, VLLMValidationError):
        setattr(module, cls.__name__, cls)
    return module


class FakeTokenizer:
    """A chat template as a tokenizer applies it: ``<|role|>`` then the text (``<image>`` per
    image part); ``<|assistant|>`` as the generation prompt. Its vocabulary has ``</think>``
    as one token."""

    chat_template: str | None = "{{ plain template }}"

    def apply_chat_template(self, conversation: Any, chat_template: str | None = None, **kwargs: Any) -> str:
        return "".join(f"<|{m['role']}|>{content_text(m['content'])}" for m in conversation) + "<|assistant|>"

    def get_vocab(self) -> dict[str, int]:
        return {"</think>": THINK_END_ID}


class NoSystemRoleTokenizer(FakeTokenizer):
    """A template that raises on a system turn (as some VLM templates do)."""

    def apply_chat_template(self, conversation: Any, chat_template: str | None = None, **kwargs: Any) -> str:
        if any(m["role"] == "system" for m in conversation):
            raise ValueError("System role not supported")
        return super().apply_chat_template(conversation, chat_template, **kwargs)


class BrokenTemplateTokenizer(FakeTokenizer):
    """A template that fails on every conversation."""

    def apply_chat_template(self, conversation: Any, chat_template: str | None = None, **kwargs: Any) -> str:
        raise ValueError("Cannot use chat template functions because tokenizer.chat_template is not set")


def content_text(content: Any) -> str:
    """A message's content as the fake template renders it."""
    if isinstance(content, str):
        return content
    return "".join(p["text"] if p["type"] == "text" else "<image>" for p in content)


def user_text(conversation: list[dict[str, Any]]) -> str:
    """The text of a conversation's user turn."""
    (user,) = [m for m in conversation if m["role"] == "user"]
    return "".join(p["text"] for p in user["content"] if p["type"] == "text")


def image_parts(conversation: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``image_url`` parts of a conversation, in order."""
    return [p for m in conversation if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image_url"]


def decoded_sizes(conversation: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """The sizes of a conversation's images, decoded from their ``data:`` URLs."""
    from PIL import Image

    sizes = []
    for part in image_parts(conversation):
        data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
        with Image.open(io.BytesIO(data)) as im:
            sizes.append(im.size)
    return sizes


def png(width: int, height: int) -> EncodedImage:
    """A real PNG of the given size (its size tells images apart after decoding)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), (10, 20, 30)).save(buf, format="PNG")
    return EncodedImage(buf.getvalue(), "image/png", width, height)


@dataclass
class FakeSampling:
    """``vllm.SamplingParams``: the keyword arguments it was built with."""

    max_tokens: int | None = 16
    temperature: float = 1.0
    top_p: float = 1.0
    seed: int | None = None
    top_k: int | None = None
    min_p: float | None = None
    repetition_penalty: float | None = None


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
class Call:
    """One ``LLM.chat`` call: its conversations, sampling parameters and template arguments."""

    conversations: list[list[dict[str, Any]]]
    params: list[FakeSampling]
    chat_template_kwargs: dict[str, Any] | None


@dataclass
class FakeEngine:
    """What the fake ``LLM.chat`` does. A user text starting with ``HOLD`` waits until
    ``hold`` is set; ``ABORTED`` ends with finish_reason ``abort``; ``EMPTY`` answers
    nothing; ``RAMBLE`` thinks without ever closing its reasoning; one containing ``reject``
    (when set) is refused. ``fail_next`` is raised by the next call."""

    reject: str | None = None
    fail_next: BaseException | None = None
    hold: threading.Event = field(default_factory=threading.Event)
    calls: list[Call] = field(default_factory=list)
    #: Set while a call waits on ``hold``.
    holding: threading.Event = field(default_factory=threading.Event)
    image_limit: int = 1

    def chat(
        self,
        conversations: list[list[dict[str, Any]]],
        sampling_params: list[FakeSampling],
        use_tqdm: bool = True,
        chat_template_kwargs: dict[str, Any] | None = None,
    ) -> list[FakeOutput]:
        assert use_tqdm is False
        self.calls.append(Call(conversations, sampling_params, chat_template_kwargs))
        if self.fail_next is not None:
            error, self.fail_next = self.fail_next, None
            raise error
        for conversation in conversations:
            n = len(image_parts(conversation))
            if n > self.image_limit:
                raise VLLMValidationError(
                    f"At most {self.image_limit} image(s) may be provided in one prompt.", parameter="image", value=n
                )
            decoded_sizes(conversation)  # an undecodable image fails the call, as in vLLM
            if self.reject and self.reject in user_text(conversation):
                length = len(FakeTokenizer().apply_chat_template(conversation))
                raise VLLMValidationError(
                    f"The decoder prompt (length {length}) is longer than the maximum model length of {length - 1}. "
                    "Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal "
                    "tokens.",
                    parameter="input_tokens",
                    value=length,
                )
        if any(user_text(c).startswith("HOLD") for c in conversations):
            self.holding.set()
            assert self.hold.wait(30), "the test never released the held call"
        thinking = bool((chat_template_kwargs or {}).get("enable_thinking"))
        return [self._answer(str(i), c, thinking) for i, c in enumerate(conversations)]

    def _answer(self, request_id: str, conversation: list[dict[str, Any]], thinking: bool) -> FakeOutput:
        prompt = FakeTokenizer().apply_chat_template(conversation)
        text = user_text(conversation)
        word = "" if text.startswith("EMPTY") else text.split()[0]
        ids = [ord(c) for c in word]
        reply, reason = word, "stop"
        if text.startswith("ABORTED"):
            reply, ids, reason = "ABO", [1, 2, 3], "abort"
        elif text.startswith("RAMBLE"):
            reply, ids, reason = "<think>and then", [ord(c) for c in "<think>and then"], "length"
        elif thinking and word:
            head = f"<think>about {word}"
            reply = f"{head}</think>{word}"
            ids = [ord(c) for c in head] + [THINK_END_ID] + ids
        return FakeOutput(request_id, [ord(c) for c in prompt], [FakeCompletion(reply, ids, reason)])


#: The tests' model: its generation_config's sampling settings.
DEFAULT_DIFF: dict[str, Any] = {"temperature": 0.7, "top_p": 0.8, "top_k": 20}


@dataclass
class FakeModelConfig:
    """``LLM.model_config``: what the checkpoint's generation_config sets."""

    diff: dict[str, Any]

    def get_diff_sampling_param(self) -> dict[str, Any]:
        return dict(self.diff)


class FakeLLM:
    """Stands in for ``vllm.LLM``: its constructor arguments, tokenizer and ``chat``."""

    def __init__(self, kwargs: dict[str, Any], engine: FakeEngine, tokenizer: FakeTokenizer) -> None:
        self.kwargs = kwargs
        self.engine = engine
        self.engine.image_limit = kwargs["limit_mm_per_prompt"]["image"]
        self._tokenizer = tokenizer
        #: What the model's generation_config sets (vLLM's ``model_config.get_diff_sampling_param()``:
        #: its ``max_new_tokens`` as ``max_tokens``).
        self.model_config = FakeModelConfig(dict(DEFAULT_DIFF))

    def get_tokenizer(self) -> FakeTokenizer:
        return self._tokenizer

    def get_default_sampling_params(self) -> FakeSampling:
        """As vLLM's: ``SamplingParams`` over the generation_config's settings, or plain
        ``SamplingParams()`` (whose ``max_tokens`` is 16) when it sets none."""
        diff = self.model_config.get_diff_sampling_param()
        return FakeSampling(**diff) if diff else FakeSampling()

    def chat(self, messages: Any, sampling_params: Any = None, **kwargs: Any) -> list[FakeOutput]:
        return self.engine.chat(messages, sampling_params, **kwargs)


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
        self.exceptions = exceptions_module()
        self.module.exceptions = self.exceptions
        #: Replaces the generation_config settings of the engines built from now on.
        self.diff: dict[str, Any] | None = None
        self.transformers = types.ModuleType("transformers")
        self.transformers.AutoProcessor = types.SimpleNamespace(from_pretrained=self._processor)

    @property
    def engine(self) -> FakeEngine:
        return self.llms[0].engine

    def _llm(self, **kwargs: Any) -> FakeLLM:
        if self.gate is not None:
            self.gate.wait(30)
        if self.load_error is not None:
            raise self.load_error
        llm = FakeLLM(kwargs, self.make_engine(), self.tokenizer)
        if self.diff is not None:
            llm.model_config = FakeModelConfig(dict(self.diff))
        self.llms.append(llm)
        return llm

    def _processor(self, source: str, **kwargs: Any) -> Any:
        self.processor_calls.append((source, kwargs))
        if self.processor_template is None:
            raise OSError(f"{source} does not appear to have a file named preprocessor_config.json")
        return types.SimpleNamespace(chat_template=self.processor_template)
