"""The ``vllm:`` backend on the CPU: vLLM's engine is replaced at its boundary by a fake
``vllm`` package (``LLM`` holding an engine with ``add_request``/``step``/``abort_request``)
put into ``sys.modules``, and the model's processor by a fake ``transformers`` (see
vllm_fakes.py)."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from socialbench.errors import UsageError
from socialbench.models import vllm_offline
from socialbench.models.base import ModelError
from socialbench.models.registry import ModelOptions, backends, create_model
from socialbench.types import EncodedImage, GenerationConfig, Request
from vllm_fakes import FakeEngine, FakeVLLM, PlainTextTokenizer, Stepper, png


@pytest.fixture
def fake(monkeypatch):
    f = FakeVLLM()
    monkeypatch.setitem(sys.modules, "vllm", f.module)
    monkeypatch.setitem(sys.modules, "vllm.sampling_params", f.sampling_module)
    monkeypatch.setitem(sys.modules, "transformers", f.transformers)
    monkeypatch.setattr(vllm_offline, "visible_gpus", lambda: 1)
    return f


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


async def until(condition: Callable[[], bool], timeout_s: float = 30.0) -> None:
    """Wait for ``condition`` (a bound against hanging, not a speed requirement)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not met"
        await asyncio.sleep(0.001)


def ask_while_loading(fake: FakeVLLM, m, *requests: Request) -> list[Any]:
    """Queue every request while the engine is still being built, then let it build: all of
    them are waiting when the engine's first step runs."""
    fake.gate = threading.Event()

    async def main():
        tasks = [asyncio.ensure_future(m.generate(r)) for r in requests]
        await until(lambda: m._queue.qsize() == len(requests))
        fake.gate.set()
        try:
            return await asyncio.gather(*tasks, return_exceptions=True)
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
    ask(
        model(
            "tensor_parallel_size=2",
            "max_model_len=8192",
            "gpu_memory_utilization=0.5",
            "limit_mm_per_prompt=image=4",
            "dtype=bfloat16",
            seed=3,
        ),
        Request(prompt="hi"),
    )
    kw = fake.llms[0].kwargs
    assert (
        kw["tensor_parallel_size"],
        kw["max_model_len"],
        kw["gpu_memory_utilization"],
        kw["limit_mm_per_prompt"],
        kw["dtype"],
        kw["seed"],
    ) == (2, 8192, 0.5, {"image": 4}, "bfloat16", 3)


def test_default_image_limit_fits_socialnav_prompts(fake):
    assert model().kwargs["limit_mm_per_prompt"] == {"image": 10}


@pytest.mark.parametrize(
    "opt, key",
    [
        ("dtype=int3", "dtype"),
        ("gpu_memory_utilization=1.5", "gpu_memory_utilization"),
        ("tensor_parallel_size=0", "tensor_parallel_size"),
        ("limit_mm_per_prompt=many", "limit_mm_per_prompt"),
    ],
)
def test_bad_model_option_is_a_usage_error_naming_it(fake, opt, key):
    with pytest.raises(UsageError, match=f"--model-opt {key}="):
        model(opt)


def test_request_reaches_the_engine_as_chat_rendered_tokens_with_its_images(fake):
    ask(model(), Request(prompt="which way?", system="be brief", images=(png(1, 1), png(2, 2))))
    (added,) = fake.engine.added.values()
    text = "".join(chr(t) for t in added.prompt["prompt_token_ids"])
    assert text == "<|system|>be brief<|user|>which way?<image><image><|assistant|>"
    assert [im.size for im in added.prompt["multi_modal_data"]["image"]] == [(1, 1), (2, 2)]


def test_processor_chat_template_is_used_when_the_checkpoint_has_one(fake):
    fake.processor_template = "{{ processor template }}"
    ask(model("revision=v2"), Request(prompt="hi"))
    assert set(fake.tokenizer.templates) == {"{{ processor template }}"}
    assert fake.processor_calls == [("org/tiny-vlm", {"revision": "v2", "trust_remote_code": False})]


def test_sampling_follows_the_request(fake):
    ask(model(), Request(prompt="hi", config=GenerationConfig(max_tokens=77, temperature=0.5, seed=9)))
    (added,) = fake.engine.added.values()
    assert (added.params.temperature, added.params.max_tokens, added.params.seed) == (0.5, 77, 9)


def test_engine_is_asked_for_final_outputs_only(fake):
    ask(model(), Request(prompt="hi"))
    (added,) = fake.engine.added.values()
    assert added.params.output_kind is fake.sampling_module.RequestOutputKind.FINAL_ONLY


def test_answer_text_and_token_usage_come_from_the_engine_output(fake):
    (gen,) = ask(model(), Request(prompt="left turn"))
    prompt_tokens = len("<|user|>left turn<|assistant|>")
    assert (gen.text, gen.usage.prompt_tokens, gen.usage.completion_tokens) == ("left", prompt_tokens, 4)


def test_requests_waiting_while_the_engine_loads_all_join_its_first_step(fake):
    m = model("batch_wait_ms=0")
    answers = ask_while_loading(fake, m, *(Request(prompt=f"q{i} x") for i in range(8)))
    assert [a.text for a in answers] == [f"q{i}" for i in range(8)]
    assert {a.at_step for a in fake.engine.added.values()} == {0} and set(fake.engine.finished.values()) == {1}


def test_request_arriving_while_another_runs_joins_at_the_next_step_and_finishes_first(fake):
    stepper = Stepper()
    fake.make_engine = lambda: FakeEngine(stepper=stepper)
    m = model("batch_wait_ms=0")

    async def main():
        long = asyncio.ensure_future(m.generate(Request(prompt="HOLD a long answer")))
        await until(stepper.waiting.is_set)  # the long request is in; step 1 about to run
        await stepper.step()
        await until(stepper.waiting.is_set)  # step 2 about to run
        short = asyncio.ensure_future(m.generate(Request(prompt="quick one")))
        await asyncio.sleep(0)  # queued now, while the long request runs
        await stepper.step()  # step 2: the engine takes the short request right after it
        await until(stepper.waiting.is_set)
        await stepper.step()  # step 3: the short request finishes
        short_answer = await asyncio.wait_for(short, 30)
        long_was_pending = not long.done()
        fake.engine.hold.set()
        await until(stepper.waiting.is_set)
        await stepper.step()  # step 4: the long request finishes
        long_answer = await asyncio.wait_for(long, 30)
        await m.aclose()
        return short_answer, long_was_pending, long_answer

    short_answer, long_was_pending, long_answer = asyncio.run(main())
    (long_id, long_added), (short_id, short_added) = fake.engine.added.items()
    assert (short_answer.text, long_was_pending, long_answer.text) == ("quick", True, "HOLD")
    assert (long_added.at_step, short_added.at_step) == (0, 2)
    assert (fake.engine.finished[short_id], fake.engine.finished[long_id]) == (3, 4)


def test_empty_answer_is_an_empty_response_error(fake):
    (err,) = ask(model(), Request(prompt="EMPTY please"))
    assert isinstance(err, ModelError) and err.kind == "empty_response" and not err.retryable


def test_request_the_engine_aborted_is_an_error_not_its_partial_text(fake):
    (err,) = ask(model(), Request(prompt="ABORTED midway"))
    assert isinstance(err, ModelError) and err.kind == "backend_error" and "finish_reason=abort" in str(err)


def test_engine_that_cannot_be_built_fails_every_request_with_load_error(fake):
    fake.load_error = RuntimeError("CUDA driver too old")
    errs = ask(model(), Request(prompt="a"), Request(prompt="b"))
    assert {e.kind for e in errs} == {"load_error"} and "CUDA driver too old" in str(errs[0])


def test_chat_template_that_cannot_place_images_fails_every_request_with_load_error(fake):
    fake.tokenizer = PlainTextTokenizer()
    errs = ask(model(), Request(prompt="a"), Request(prompt="b"))
    assert {e.kind for e in errs} == {"load_error"}
    assert "takes only plain-text content" in str(errs[0]) and "vllm serve" in str(errs[0])


def test_rejected_prompt_fails_only_its_own_request(fake):
    fake.make_engine = lambda: FakeEngine(reject="BAD")
    results = ask_while_loading(
        fake, model("batch_wait_ms=0"), *(Request(prompt=p) for p in ("fine one", "BAD one", "good two"))
    )
    assert results[0].text == "fine" and results[2].text == "good"
    assert isinstance(results[1], ModelError) and results[1].kind == "bad_request"


def test_undecodable_image_fails_only_its_own_request(fake):
    broken = Request(prompt="look", images=(EncodedImage(b"not a png", "image/png", 1, 1),))
    results = ask_while_loading(fake, model("batch_wait_ms=0"), Request(prompt="fine one"), broken)
    assert results[0].text == "fine"
    assert isinstance(results[1], ModelError) and results[1].kind == "bad_request" and "image 0" in str(results[1])


def test_failing_step_fails_the_requests_it_was_running(fake):
    fake.make_engine = lambda: FakeEngine(step_error=RuntimeError("engine core died"))
    errs = ask_while_loading(fake, model("batch_wait_ms=0"), Request(prompt="a x"), Request(prompt="b y"))
    assert [e.kind for e in errs] == ["backend_error", "backend_error"] and "engine core died" in str(errs[0])


def test_requests_after_a_failing_step_are_served(fake):
    fake.make_engine = lambda: FakeEngine(step_error=RuntimeError("engine core died"))
    m = model()

    async def main():
        first = await asyncio.gather(m.generate(Request(prompt="a x")), return_exceptions=True)
        second = await m.generate(Request(prompt="b y"))
        await m.aclose()
        return first[0], second

    first, second = asyncio.run(main())
    assert first.kind == "backend_error" and second.text == "b"


def test_request_the_engine_dropped_is_an_error_not_a_hang(fake):
    fake.make_engine = lambda: FakeEngine(drop_all=True)
    (err,) = ask(model(), Request(prompt="lost one"))
    assert isinstance(err, ModelError) and err.kind == "backend_error" and "dropped" in str(err)


def test_request_whose_caller_gave_up_is_aborted_in_the_engine(fake):
    m = model()

    async def main():
        task = asyncio.ensure_future(m.generate(Request(prompt="HOLD forever")))
        await until(lambda: bool(fake.llms) and bool(fake.engine.added))
        task.cancel()
        await until(lambda: bool(fake.engine.aborted))
        await m.aclose()

    asyncio.run(main())
    assert fake.engine.aborted == list(fake.engine.added) and fake.engine.finished == {}


def test_close_lets_running_requests_finish_then_ends_the_engine_thread(fake):
    m = model()

    async def main():
        task = asyncio.ensure_future(m.generate(Request(prompt="HOLD until closing")))
        await until(lambda: bool(fake.llms) and bool(fake.engine.added))
        thread = m._thread
        closing = asyncio.ensure_future(m.aclose())
        await asyncio.sleep(0)  # the stop signal is queued
        await until(lambda: m._queue.qsize() == 0)  # the engine thread has read the stop signal
        fake.engine.hold.set()
        answer = await asyncio.wait_for(task, 30)
        await asyncio.wait_for(closing, 30)
        return answer, thread

    answer, thread = asyncio.run(main())
    assert answer.text == "HOLD" and fake.engine.aborted == [] and not thread.is_alive()


def test_out_of_memory_is_retryable():
    err = vllm_offline.map_error(RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"))
    assert err.kind == "out_of_memory" and err.retryable


def test_other_engine_failure_is_a_fatal_backend_error():
    err = vllm_offline.map_error(RuntimeError("engine core died"))
    assert err.kind == "backend_error" and not err.retryable


def test_value_error_of_a_whole_step_is_not_blamed_on_a_prompt():
    err = vllm_offline.map_error(ValueError("scheduler state corrupt"), engine_wide=True)
    assert err.kind == "backend_error"


def test_identity_names_checkpoint_dtype_and_context_length(fake):
    ident = model("dtype=float16", "max_model_len=4096").identity()
    assert ident == "vllm|org/tiny-vlm|rev:main|dtype=float16|max_model_len=4096|text_first"
