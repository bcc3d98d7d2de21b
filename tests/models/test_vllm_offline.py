"""The ``vllm:`` backend on the CPU: vLLM is replaced at its boundary by a fake ``vllm``
package (``LLM`` with ``chat``, ``get_tokenizer``, ``get_default_sampling_params``) put into
``sys.modules``, and the model's processor by a fake ``transformers`` (see vllm_fakes.py)."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from socialbench.errors import UsageError
from socialbench.models import vllm_offline, vllm_results
from socialbench.models.base import ModelError
from socialbench.models.registry import ModelOptions, backends, create_model
from socialbench.types import EncodedImage, GenerationConfig, Request
from vllm_fakes import FakeEngine, FakeVLLM, NoSystemRoleTokenizer, decoded_sizes, png, user_text

THINKING_TEMPLATE = "{% if enable_thinking is false %}<think></think>{% endif %}"


@pytest.fixture
def fake(monkeypatch):
    f = FakeVLLM()
    monkeypatch.setitem(sys.modules, "vllm", f.module)
    monkeypatch.setitem(sys.modules, "transformers", f.transformers)
    monkeypatch.setattr(vllm_offline, "visible_gpus", lambda: 1)
    return f


def model(*opts: str, seed: int = 0, max_images: int | None = None) -> vllm_offline.VLLMOfflineModel:
    pairs = tuple(tuple(o.split("=", 1)) for o in opts)
    return vllm_offline.VLLMOfflineModel("org/tiny-vlm", ModelOptions(seed=seed, extra=pairs, max_images=max_images))


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
    them are waiting when the engine takes its first batch."""
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


def thinking(effort: str | None) -> Request:
    return Request(prompt="left turn", config=GenerationConfig(reasoning_effort=effort))


# -- construction ---------------------------------------------------------------------------


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


def test_image_limit_is_the_benchmarks_largest_request(fake):
    assert model(max_images=11).kwargs["limit_mm_per_prompt"] == {"image": 11}


def test_image_limit_without_a_declaring_benchmark_is_ten(fake):
    assert model().kwargs["limit_mm_per_prompt"] == {"image": 10}


def test_image_limit_of_a_benchmark_without_images_is_one(fake):
    assert model(max_images=0).kwargs["limit_mm_per_prompt"] == {"image": 1}


def test_image_limit_below_the_benchmarks_largest_request_is_a_usage_error(fake):
    with pytest.raises(
        UsageError, match=r"allows 10 image\(s\) per prompt, but this benchmark's requests carry up to 11"
    ):
        model("limit_mm_per_prompt=10", max_images=11)


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


# -- what reaches LLM.chat ------------------------------------------------------------------


def test_request_reaches_llm_chat_as_an_openai_conversation_with_its_images(fake):
    ask(model(), Request(prompt="which way?", system="be brief", images=(png(1, 1), png(2, 2))))
    (conversation,) = fake.engine.calls[0].conversations
    assert [m["role"] for m in conversation] == ["system", "user"] and conversation[0]["content"] == "be brief"
    assert [p["type"] for p in conversation[1]["content"]] == ["text", "image_url", "image_url"]
    assert decoded_sizes(conversation) == [(1, 1), (2, 2)]


def test_images_first_puts_the_images_before_the_text(fake):
    ask(model("images_first=true"), Request(prompt="which way?", images=(png(1, 1),)))
    (conversation,) = fake.engine.calls[0].conversations
    assert [p["type"] for p in conversation[0]["content"]] == ["image_url", "text"]


def test_template_without_a_system_role_gets_the_system_text_in_the_prompt(fake):
    fake.tokenizer = NoSystemRoleTokenizer()
    ask(model(), Request(prompt="which way?", system="be brief"))
    (conversation,) = fake.engine.calls[0].conversations
    assert [m["role"] for m in conversation] == ["user"] and user_text(conversation) == "be brief\n\nwhich way?"


def test_processor_is_read_at_the_checkpoints_revision(fake):
    fake.processor_template = "{{ processor template }}"
    ask(model("revision=v2"), Request(prompt="hi"))
    assert fake.processor_calls == [("org/tiny-vlm", {"revision": "v2", "trust_remote_code": False})]


def test_sampling_follows_the_request(fake):
    ask(model(), Request(prompt="hi", config=GenerationConfig(max_tokens=77, temperature=0.5, seed=9, top_p=0.9)))
    (params,) = fake.engine.calls[0].params
    assert (params.temperature, params.top_p, params.max_tokens, params.seed) == (0.5, 0.9, 77, 9)


def test_unset_sampling_settings_are_the_models_defaults(fake):
    ask(model(), Request(prompt="hi", config=GenerationConfig(max_tokens=None, temperature=None)))
    (params,) = fake.engine.calls[0].params
    assert (params.temperature, params.top_p, params.top_k, params.max_tokens) == (0.7, 0.8, 20, None)


def test_answer_text_and_token_usage_come_from_the_engine_output(fake):
    (gen,) = ask(model(), Request(prompt="left turn"))
    prompt_tokens = len("<|user|>left turn<|assistant|>")
    assert (gen.text, gen.usage.prompt_tokens, gen.usage.completion_tokens) == ("left", prompt_tokens, 4)


# -- batching -------------------------------------------------------------------------------


def test_requests_waiting_while_the_engine_loads_go_in_one_call(fake):
    m = model("batch_wait_ms=0")
    answers = ask_while_loading(fake, m, *(Request(prompt=f"q{i} x") for i in range(8)))
    assert [a.text for a in answers] == [f"q{i}" for i in range(8)] and m.batch_sizes == [8]


def test_max_batch_bounds_a_call(fake):
    m = model("batch_wait_ms=0", "max_batch=3")
    ask_while_loading(fake, m, *(Request(prompt=f"q{i} x") for i in range(7)))
    assert m.batch_sizes == [3, 3, 1]


def test_request_arriving_during_a_call_goes_into_the_next_call(fake):
    m = model("batch_wait_ms=0")

    async def main():
        first = asyncio.ensure_future(m.generate(Request(prompt="HOLD on")))
        await until(lambda: bool(fake.llms) and fake.engine.holding.is_set())
        second = asyncio.ensure_future(m.generate(Request(prompt="quick one")))
        await until(lambda: m._queue.qsize() == 1)  # queued while the first call runs
        fake.engine.hold.set()
        answers = await asyncio.gather(first, second)
        await m.aclose()
        return answers

    first, second = asyncio.run(main())
    assert (first.text, second.text) == ("HOLD", "quick")
    assert [[user_text(c) for c in call.conversations] for call in fake.engine.calls] == [["HOLD on"], ["quick one"]]


def test_request_whose_caller_gave_up_before_its_call_is_not_sent(fake):
    m = model("batch_wait_ms=0")

    async def main():
        held = asyncio.ensure_future(m.generate(Request(prompt="HOLD on")))
        await until(lambda: bool(fake.llms) and fake.engine.holding.is_set())
        given_up = asyncio.ensure_future(m.generate(Request(prompt="never mind")))
        await until(lambda: m._queue.qsize() == 1)
        given_up.cancel()
        fake.engine.hold.set()
        await held
        await m.generate(Request(prompt="later one"))
        await m.aclose()

    asyncio.run(main())
    sent = [user_text(c) for call in fake.engine.calls for c in call.conversations]
    assert sent == ["HOLD on", "later one"]


def test_close_lets_the_running_call_finish_then_ends_the_engine_thread(fake):
    m = model()

    async def main():
        task = asyncio.ensure_future(m.generate(Request(prompt="HOLD until closing")))
        await until(lambda: bool(fake.llms) and fake.engine.holding.is_set())
        thread = m._thread
        closing = asyncio.ensure_future(m.aclose())
        await until(lambda: m._queue.qsize() == 1)  # the stop signal waits behind the call
        fake.engine.hold.set()
        answer = await asyncio.wait_for(task, 30)
        await asyncio.wait_for(closing, 30)
        return answer, thread

    answer, thread = asyncio.run(main())
    assert answer.text == "HOLD" and not thread.is_alive()


# -- errors ---------------------------------------------------------------------------------


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


def test_out_of_memory_fails_the_whole_call_as_retryable(fake):
    fake.make_engine = lambda: FakeEngine(fail_next=RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"))
    errs = ask_while_loading(fake, model("batch_wait_ms=0"), Request(prompt="a x"), Request(prompt="b y"))
    assert [e.kind for e in errs] == ["out_of_memory", "out_of_memory"] and errs[0].retryable
    assert len(fake.engine.calls) == 1


def test_requests_after_a_failing_call_are_served(fake):
    fake.make_engine = lambda: FakeEngine(fail_next=RuntimeError("engine core died"))
    m = model()

    async def main():
        first = await asyncio.gather(m.generate(Request(prompt="a x")), return_exceptions=True)
        second = await m.generate(Request(prompt="b y"))
        await m.aclose()
        return first[0], second

    first, second = asyncio.run(main())
    assert first.kind == "backend_error" and second.text == "b"


def test_value_error_is_the_prompts_fault_and_other_failures_the_engines():
    assert vllm_results.map_error(ValueError("prompt too long")).kind == "bad_request"
    assert vllm_results.map_error(RuntimeError("engine core died")).kind == "backend_error"


# -- reasoning ------------------------------------------------------------------------------


@pytest.mark.parametrize("effort, switch", [("none", False), ("low", True), ("high", True)])
def test_reasoning_effort_sets_the_templates_thinking_switch(fake, effort, switch):
    fake.processor_template = THINKING_TEMPLATE
    ask(model(), thinking(effort))
    assert fake.engine.calls[0].chat_template_kwargs == {"enable_thinking": switch}


def test_unset_reasoning_effort_leaves_the_templates_default(fake):
    fake.processor_template = THINKING_TEMPLATE
    ask(model(), thinking(None))
    assert fake.engine.calls[0].chat_template_kwargs is None


def test_template_without_a_thinking_switch_gets_no_switch(fake, caplog):
    ask(model(), thinking("none"))
    assert fake.engine.calls[0].chat_template_kwargs is None
    assert "no reasoning switch" in caplog.text


def test_reasoning_section_is_kept_apart_from_the_answer(fake):
    fake.processor_template = THINKING_TEMPLATE
    (gen,) = ask(model(), thinking("high"))
    assert (gen.text, gen.reasoning) == ("left", "about left")
    assert (gen.usage.reasoning_tokens, gen.usage.completion_tokens) == (len("<think>about left") + 1, 22)


def test_reply_cut_off_inside_its_reasoning_is_an_empty_response(fake):
    (err,) = ask(model(), Request(prompt="RAMBLE on"))
    assert isinstance(err, ModelError) and err.kind == "empty_response"
    assert "ends inside its reasoning section" in str(err) and "--max-tokens" in str(err)


def test_requests_with_different_switches_go_in_different_calls(fake):
    fake.processor_template = THINKING_TEMPLATE
    answers = ask_while_loading(fake, model("batch_wait_ms=0"), thinking("none"), thinking("high"), thinking("none"))
    assert [a.text for a in answers] == ["left"] * 3
    assert [(c.chat_template_kwargs, len(c.conversations)) for c in fake.engine.calls] == [
        ({"enable_thinking": False}, 2),
        ({"enable_thinking": True}, 1),
    ]


# -- identity -------------------------------------------------------------------------------


def test_identity_names_checkpoint_dtype_context_length_and_chat_path(fake):
    ident = model("dtype=float16", "max_model_len=4096").identity()
    assert ident == "vllm|org/tiny-vlm|rev:main|dtype=float16|max_model_len=4096|text_first|llm.chat"


# -- a benchmark through vllm: --------------------------------------------------------------


def test_waypoint_task_runs_through_vllm_with_default_settings(fake, tmp_path):
    """The waypoint task sends 11 images a request: with default settings every request
    reaches the engine (whose image limit is enforced as vLLM's) and is answered."""
    import json

    from socialbench.cli import main

    out = tmp_path / "run"
    main(
        ["eval", "-b", "socialnav-waypoint", "-m", "vllm:org/tiny-vlm", "--limit", "2", "--out", str(out)]
        + ["--no-progress", "--no-cache", "--no-render-cache", "--max-side", "64"]
    )
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert fake.llms[0].kwargs["limit_mm_per_prompt"] == {"image": 11}
    sizes = [len(decoded_sizes(c)) for call in fake.engine.calls for c in call.conversations]
    assert sizes and set(sizes) == {11} and len(sizes) == len(records)  # one request an item asked
    assert all(r["error"] is None and r["raw"] for r in records)


def test_the_fake_engine_refuses_more_images_than_its_limit_as_vllm_does(fake):
    (err,) = ask(model("limit_mm_per_prompt=2"), Request(prompt="look", images=(png(1, 1),) * 3))
    assert isinstance(err, ModelError) and err.kind == "bad_request" and "At most 2 image(s)" in str(err)


def test_reasoning_effort_flag_reaches_the_template_and_the_record_keeps_the_reasoning(fake, tmp_path):
    """``eval --reasoning-effort high`` on a model whose template has the switch: the switch
    is on, the reply's <think> section is in samples.jsonl as "reasoning" and the answer
    parser read only what follows it."""
    import json

    from socialbench.cli import main

    fake.processor_template = THINKING_TEMPLATE
    out = tmp_path / "run"
    main(
        ["eval", "-b", "socialnav-waypoint", "-m", "vllm:org/tiny-vlm", "--limit", "1", "--out", str(out)]
        + ["--reasoning-effort", "high", "--no-progress", "--no-cache", "--no-render-cache", "--max-side", "64"]
    )
    (record,) = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert fake.engine.calls[0].chat_template_kwargs == {"enable_thinking": True}
    assert record["reasoning"].startswith("about ") and "<think>" not in record["raw"]
    assert record["usage"]["reasoning_tokens"] > 0


# -- vLLM 0.34: its errors, its defaults ---------------------------------------------------


def test_the_fakes_validation_error_is_not_a_value_error_as_in_vllm_0_34(fake):
    from vllm_fakes import VLLMClientError, VLLMValidationError

    assert issubclass(VLLMValidationError, VLLMClientError) and not issubclass(VLLMValidationError, ValueError)


def test_vllm_validation_error_is_a_bad_request():
    from vllm_fakes import VLLMValidationError

    err = vllm_results.map_error(VLLMValidationError("At most 1 image(s) may be provided in one prompt."))
    assert err.kind == "bad_request" and "VLLMValidationError: At most 1 image(s)" in err.message


def test_vllm_server_error_is_a_backend_error():
    from vllm_fakes import VLLMServerError

    assert vllm_results.map_error(VLLMServerError("engine dead")).kind == "backend_error"


def test_prompt_longer_than_the_model_length_is_a_bad_request(fake):
    fake.make_engine = lambda: FakeEngine(reject="LONG")
    (err,) = ask(model(), Request(prompt="LONG prompt"))
    assert isinstance(err, ModelError) and err.kind == "bad_request"
    assert "is longer than the maximum model length" in err.message


def test_gpu_memory_utilization_is_left_to_vllm_unless_set(fake):
    ask(model(), Request(prompt="hi"))
    assert "gpu_memory_utilization" not in fake.llms[0].kwargs


def test_unset_max_tokens_is_the_models_max_new_tokens_as_vllm_serve(fake):
    fake.diff = {"max_tokens": 512, "repetition_penalty": 1.05}
    ask(model(), Request(prompt="hi", config=GenerationConfig(max_tokens=None)))
    (params,) = fake.engine.calls[0].params
    assert (params.max_tokens, params.repetition_penalty) == (512, 1.05)


def test_a_set_max_tokens_is_sent_over_the_models_default(fake):
    fake.diff = {"max_tokens": 512}
    ask(model(), Request(prompt="hi", config=GenerationConfig(max_tokens=77)))
    assert fake.engine.calls[0].params[0].max_tokens == 77


def test_a_generation_config_without_settings_leaves_max_tokens_to_the_context_length(fake):
    # vLLM's get_default_sampling_params() is then plain SamplingParams(), max_tokens=16
    fake.diff = {}
    ask(model(), Request(prompt="hi", config=GenerationConfig(max_tokens=None)))
    assert fake.engine.calls[0].params[0].max_tokens is None


def test_the_models_defaults_it_applied_are_its_adaptations(fake):
    fake.diff = {"max_tokens": 512, "top_k": 20, "temperature": 0.7}
    m = model()
    ask(m, Request(prompt="hi", config=GenerationConfig(max_tokens=None, temperature=0.0)))
    adapted = m.adaptations()
    assert sorted(adapted) == ["max_tokens", "top_k"]
    assert adapted["max_tokens"] == "512 (the model's generation_config max_new_tokens, as vllm serve applies it)"


def test_run_json_records_the_models_sampling_defaults(fake, tmp_path):
    import json

    from socialbench.cli import main

    fake.diff = {"top_k": 20, "repetition_penalty": 1.05}
    out = tmp_path / "run"
    main(
        ["eval", "-b", "socialnav-waypoint", "-m", "vllm:org/tiny-vlm", "--limit", "1", "--out", str(out)]
        + ["--no-progress", "--no-cache", "--no-render-cache", "--max-side", "64"]
    )
    adapted = json.loads((out / "run.json").read_text())["generation_adapted"]
    assert sorted(adapted) == ["repetition_penalty", "top_k"] and adapted["top_k"].startswith("20 ")


def test_without_a_model_config_the_defaults_come_from_get_default_sampling_params_but_max_tokens():
    from socialbench.models.vllm_setup import model_sampling_defaults
    from vllm_fakes import FakeSampling

    class OldLLM:  # an engine that does not expose its model config
        def get_default_sampling_params(self) -> FakeSampling:
            return FakeSampling(temperature=0.6, top_k=20)  # max_tokens: SamplingParams' own 16

    defaults = model_sampling_defaults(OldLLM())
    assert "max_tokens" not in defaults and (defaults["temperature"], defaults["top_k"]) == (0.6, 20)
