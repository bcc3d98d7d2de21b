"""The ``vllm:`` backend on the CPU: vLLM's engine is replaced at its boundary by a fake
``vllm`` module (``LLM``, ``SamplingParams``) put into ``sys.modules``."""

from __future__ import annotations

import asyncio
import sys
import threading
import types
from dataclasses import dataclass, field
from typing import Any

import pytest

from socialbench.errors import UsageError
from socialbench.models import vllm_offline
from socialbench.models.base import ModelError
from socialbench.models.registry import ModelOptions, backends, create_model
from socialbench.types import EncodedImage, GenerationConfig, Request


@dataclass
class FakeCompletion:
    text: str
    token_ids: list[int]
    finish_reason: str = "stop"


@dataclass
class FakeOutput:
    prompt_token_ids: list[int]
    outputs: list[FakeCompletion]


@dataclass
class FakeSampling:
    temperature: float
    max_tokens: int
    seed: int | None = None


@dataclass
class FakeEngine:
    """Stands in for ``vllm.LLM``: records its arguments and every ``chat`` call; answers
    each conversation with its prompt's first word, one token per character."""

    kwargs: dict[str, Any]
    calls: list[tuple[list, list]] = field(default_factory=list)
    fail_on: str | None = None  # a prompt containing this raises ValueError for the whole call
    error: BaseException | None = None  # raised by every call

    def chat(self, conversations, sampling_params, use_tqdm=True):
        self.calls.append((conversations, sampling_params))
        if self.error is not None:
            raise self.error
        outs = []
        for conv in conversations:
            text = next(p["text"] for p in conv[-1]["content"] if p["type"] == "text")
            if self.fail_on and self.fail_on in text:
                raise ValueError(f"prompt too long: {self.fail_on}")
            answer = "" if text.startswith("EMPTY") else text.split()[0]
            outs.append(FakeOutput(prompt_token_ids=list(range(len(text))), outputs=[FakeCompletion(answer, list(range(len(answer))))]))
        return outs


class FakeVLLM:
    """A fake ``vllm`` module and the engines it built."""

    def __init__(self) -> None:
        self.engines: list[FakeEngine] = []
        self.gate: threading.Event | None = None  # the engine's build waits for it
        self.load_error: BaseException | None = None  # the engine's build raises it
        self.fail_on: str | None = None  # given to every engine built
        self.module = types.ModuleType("vllm")
        self.module.LLM = self._llm
        self.module.SamplingParams = FakeSampling

    def _llm(self, **kwargs):
        if self.gate is not None:
            self.gate.wait(10)
        if self.load_error is not None:
            raise self.load_error
        self.engines.append(FakeEngine(kwargs, fail_on=self.fail_on))
        return self.engines[-1]


@pytest.fixture
def fake(monkeypatch):
    f = FakeVLLM()
    monkeypatch.setitem(sys.modules, "vllm", f.module)
    monkeypatch.setattr(vllm_offline, "visible_gpus", lambda: 1)
    return f


def image(tag: bytes) -> EncodedImage:
    return EncodedImage(tag, "image/png", 1, 1)


def model(*opts: str, seed: int = 0) -> vllm_offline.VLLMOfflineModel:
    pairs = tuple(tuple(o.split("=", 1)) for o in opts)
    return vllm_offline.VLLMOfflineModel("org/tiny-vlm", ModelOptions(seed=seed, extra=pairs))


def ask(m, *requests: Request) -> list[Any]:
    async def main():
        try:
            return await asyncio.gather(*(m.generate(r) for r in requests), return_exceptions=True)
        finally:
            await m.aclose()

    return asyncio.run(main())


def test_vllm_is_listed_among_the_backends():
    assert "vllm" in {b.prefix for b in backends()}


def test_missing_vllm_is_a_usage_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(UsageError, match=r"vllm:m needs vLLM and a CUDA GPU: pip install 'socialbench\[vllm\]'"):
        create_model("vllm:m")


def test_no_visible_gpu_is_a_usage_error_before_the_run(fake, monkeypatch):
    monkeypatch.setattr(vllm_offline, "visible_gpus", lambda: 0)
    with pytest.raises(UsageError, match="no CUDA GPU is visible"):
        model().identity()


def test_model_options_become_engine_arguments(fake):
    ask(model("tensor_parallel_size=2", "max_model_len=8192", "gpu_memory_utilization=0.5",
              "limit_mm_per_prompt=image=4", "dtype=bfloat16", seed=3), Request(prompt="hi"))
    kw = fake.engines[0].kwargs
    assert (kw["tensor_parallel_size"], kw["max_model_len"], kw["gpu_memory_utilization"], kw["limit_mm_per_prompt"],
            kw["dtype"], kw["seed"]) == (2, 8192, 0.5, {"image": 4}, "bfloat16", 3)


def test_default_image_limit_fits_socialnav_prompts(fake):
    assert model().kwargs["limit_mm_per_prompt"] == {"image": 10}


@pytest.mark.parametrize("opt, key", [("dtype=int3", "dtype"), ("gpu_memory_utilization=1.5", "gpu_memory_utilization"),
                                      ("tensor_parallel_size=0", "tensor_parallel_size"),
                                      ("limit_mm_per_prompt=many", "limit_mm_per_prompt")])
def test_bad_model_option_is_a_usage_error_naming_it(fake, opt, key):
    with pytest.raises(UsageError, match=f"--model-opt {key}="):
        model(opt)


def test_user_turn_holds_the_prompt_then_every_image_as_a_data_url():
    req = Request(prompt="which way?", images=(image(b"a"), image(b"b")))
    (turn,) = vllm_offline.build_messages(req)
    assert [p["type"] for p in turn["content"]] == ["text", "image_url", "image_url"]
    assert turn["content"][2]["image_url"]["url"] == "data:image/png;base64," + image(b"b").b64


def test_images_first_puts_the_images_before_the_prompt():
    (turn,) = vllm_offline.build_messages(Request(prompt="p", images=(image(b"a"),)), images_first=True)
    assert [p["type"] for p in turn["content"]] == ["image_url", "text"]


def test_system_text_is_a_system_turn():
    messages = vllm_offline.build_messages(Request(prompt="p", system="be brief"))
    assert messages[0] == {"role": "system", "content": "be brief"}


def test_sampling_follows_the_request(fake):
    ask(model(), Request(prompt="hi", config=GenerationConfig(max_tokens=77, temperature=0.5, seed=9)))
    (params,) = fake.engines[0].calls[0][1]
    assert (params.temperature, params.max_tokens, params.seed) == (0.5, 77, 9)


def test_answer_text_and_token_usage_come_from_the_engine_output(fake):
    (gen,) = ask(model(), Request(prompt="left turn"))
    assert (gen.text, gen.usage.prompt_tokens, gen.usage.completion_tokens) == ("left", 9, 4)


def test_concurrent_requests_share_one_engine_call(fake):
    fake.gate = threading.Event()
    m = model("batch_wait_ms=0")
    requests = [Request(prompt=f"q{i} x") for i in range(8)]

    async def main():
        tasks = [asyncio.ensure_future(m.generate(r)) for r in requests]
        while m._queue.qsize() < len(requests):  # all queued while the engine is still loading
            await asyncio.sleep(0.001)
        fake.gate.set()
        try:
            return await asyncio.gather(*tasks)
        finally:
            await m.aclose()

    answers = asyncio.run(main())
    assert m.call_sizes == [8] and [a.text for a in answers] == [f"q{i}" for i in range(8)]


def test_empty_answer_is_an_empty_response_error(fake):
    (err,) = ask(model(), Request(prompt="EMPTY please"))
    assert isinstance(err, ModelError) and err.kind == "empty_response" and not err.retryable


def test_engine_that_cannot_be_built_fails_every_request_with_load_error(fake):
    fake.load_error = RuntimeError("CUDA driver too old")
    errs = ask(model(), Request(prompt="a"), Request(prompt="b"))
    assert {e.kind for e in errs} == {"load_error"} and "CUDA driver too old" in str(errs[0])


def test_rejected_prompt_fails_only_its_own_request(fake):
    fake.gate, fake.fail_on = threading.Event(), "BAD"
    m = model("batch_wait_ms=0")

    async def main():
        tasks = [asyncio.ensure_future(m.generate(Request(prompt=p))) for p in ("fine one", "BAD one", "good two")]
        while m._queue.qsize() < 3:  # one engine call for all three
            await asyncio.sleep(0.001)
        fake.gate.set()
        try:
            return await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            await m.aclose()

    results = asyncio.run(main())
    assert results[0].text == "fine" and results[2].text == "good"
    assert isinstance(results[1], ModelError) and results[1].kind == "bad_request"


def test_out_of_memory_is_retryable():
    err = vllm_offline.map_error(RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"))
    assert err.kind == "out_of_memory" and err.retryable


def test_other_engine_failure_is_a_fatal_backend_error():
    err = vllm_offline.map_error(RuntimeError("engine core died"))
    assert err.kind == "backend_error" and not err.retryable


def test_identity_names_checkpoint_dtype_and_context_length(fake):
    ident = model("dtype=float16", "max_model_len=4096").identity()
    assert ident == "vllm|org/tiny-vlm|rev:main|dtype=float16|max_model_len=4096|text_first"
