"""The in-process Transformers backend, end to end on tiny random VLMs built offline here.

Tests that need torch and transformers skip where they are absent (through the ``torch``
fixture); the pure helpers are tested everywhere.
"""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError, ModelError
from socialbench.models.hf_inputs import (
    build_chat,
    fit_max_pixels,
    group_same_shape,
    resolve_device,
    resolve_dtype,
    sampling_args,
    tokens_until_stop,
)
from socialbench.models.hf_local import HFLocalModel
from socialbench.models.registry import ModelOptions, create_model
from socialbench.types import EncodedImage, Generation, GenerationConfig, Request

FAMILIES = ("llava", "idefics3")
PROMPT = "which way should the robot go ? possible answers left right ahead"


def _png(seed: int, width: int = 30, height: int = 20) -> EncodedImage:
    pixels = (np.random.RandomState(seed).rand(height, width, 3) * 255).astype("uint8")
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG")
    return EncodedImage(buf.getvalue(), "image/png", width, height)


def _request(i: int, n_images: int = 2, max_tokens: int = 8, system: str | None = None) -> Request:
    return Request(
        prompt=PROMPT + " ahead" * i,
        images=tuple(_png(i + k) for k in range(n_images)),
        config=GenerationConfig(max_tokens=max_tokens),
        system=system,
    )


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def torch() -> Any:
    mod = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return mod


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="module")
def checkpoints(torch: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from socialbench.testing.tiny_vlm import build_tiny_vlm

    root = tmp_path_factory.mktemp("tiny-vlms")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        return {family: build_tiny_vlm(family, root / family, seed=0) for family in FAMILIES}


def _model(path: Path, **extra: str) -> HFLocalModel:
    model = create_model(f"hf:{path}", ModelOptions(extra=tuple(extra.items())))
    assert isinstance(model, HFLocalModel)
    return model


def _answers(model: HFLocalModel, requests: list[Request]) -> list[Generation | ModelError]:
    async def go() -> list[Any]:
        try:
            return await asyncio.gather(*(model.generate(r) for r in requests), return_exceptions=True)
        finally:
            await model.aclose()

    return asyncio.run(go())


def _texts(results: list[Any]) -> list[str]:
    assert all(isinstance(r, Generation) for r in results), results
    return [r.text for r in results]


# --------------------------------------------------------------------------- pure helpers


def test_fit_max_pixels_keeps_aspect_and_bound() -> None:
    w, h = fit_max_pixels(1280, 720, 100_000)
    assert w * h <= 100_000 and abs(w / h - 1280 / 720) < 0.02
    assert fit_max_pixels(64, 48, 100_000) == (64, 48)


def test_build_chat_puts_text_then_images_and_a_system_turn() -> None:
    chat = build_chat(_request(0, n_images=2, system="be brief"))
    assert [m["role"] for m in chat] == ["system", "user"]
    assert [p["type"] for p in chat[1]["content"]] == ["text", "image", "image"]


def test_build_chat_without_system_role_prefixes_the_prompt() -> None:
    chat = build_chat(_request(0, n_images=1, system="be brief"), images_first=True, system_role=False)
    assert [m["role"] for m in chat] == ["user"]
    assert chat[0]["content"][0] == {"type": "image"}
    assert chat[0]["content"][1]["text"].startswith("be brief\n\n")


def test_device_and_dtype_auto_choices() -> None:
    assert (resolve_device("auto", True), resolve_device("auto", False)) == ("cuda", "cpu")
    assert resolve_dtype("auto", "cuda", True) == "bfloat16"
    assert resolve_dtype("auto", "cuda:1", False) == "float16"
    assert resolve_dtype("auto", "cpu", True) == "float32"
    assert resolve_dtype("bf16", "cpu", False) == "bfloat16"


def test_bad_dtype_option_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(UsageError, match="dtype='int3'"):
        create_model(f"hf:{tmp_path}", ModelOptions(extra=(("dtype", "int3"),)))


def test_group_same_shape_takes_first_shape_up_to_batch_size() -> None:
    batch, rest = group_same_shape([1, 2, 1, 1, 2, 1], 3, key=lambda x: x)
    assert (batch, rest) == ([1, 1, 1], [2, 2, 1])


def test_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such folder"):
        create_model(f"hf:{tmp_path / 'nope'}")


def test_folder_without_config_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="has no config.json"):
        create_model(f"hf:{tmp_path}")


# --------------------------------------------------------------------------- tiny models


@pytest.mark.parametrize("family", FAMILIES)
def test_greedy_answer_is_the_same_from_a_fresh_load(family: str, checkpoints: dict[str, Path], torch: Any) -> None:
    # The exact tokens of a random tiny model change with torch/transformers versions, so the
    # answer is compared with a second load of the same checkpoint, not with recorded text
    # (test_answer_matches_plain_transformers_generate checks it is the right answer).
    request = _request(4)
    [first] = _answers(_model(checkpoints[family]), [request])
    [second] = _answers(_model(checkpoints[family]), [request])
    assert isinstance(first, Generation) and first.text.strip()
    assert isinstance(second, Generation) and second.text == first.text


@pytest.mark.parametrize("family", FAMILIES)
def test_answer_matches_plain_transformers_generate(family: str, checkpoints: dict[str, Path], torch: Any) -> None:
    from transformers import AutoModelForImageTextToText, AutoProcessor

    path = checkpoints[family]
    request = _request(2)
    processor = AutoProcessor.from_pretrained(path)
    reference_model = AutoModelForImageTextToText.from_pretrained(path).eval()
    messages = [
        {"role": "user", "content": [{"type": "text", "text": request.prompt}, {"type": "image"}, {"type": "image"}]}
    ]
    text = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    images = [Image.open(io.BytesIO(img.data)).convert("RGB") for img in request.images]
    inputs = processor(text=[text], images=[images], return_tensors="pt")
    out = reference_model.generate(**inputs, max_new_tokens=8, do_sample=False)
    expected = processor.tokenizer.decode(out[0, inputs["input_ids"].shape[1] :], skip_special_tokens=True)
    [result] = _answers(_model(path), [request])
    assert isinstance(result, Generation) and result.text == expected


@pytest.mark.parametrize("family", FAMILIES)
def test_batched_and_unbatched_answers_are_identical(family: str, checkpoints: dict[str, Path], torch: Any) -> None:
    requests = [_request(i) for i in range(6)]
    single = _model(checkpoints[family], batch_size="1")
    batched = _model(checkpoints[family], batch_size="16", batch_wait_ms="50")
    alone, together = _texts(_answers(single, requests)), _texts(_answers(batched, requests))
    assert (single.batch_sizes, batched.batch_sizes) == ([1] * 6, [6])
    assert together == alone
    assert len(set(alone)) > 1  # the answers depend on the request, so the check means something


def test_answer_depends_on_the_images(checkpoints: dict[str, Path], torch: Any) -> None:
    same_prompt = [
        Request(prompt=PROMPT, images=(_png(seed),), config=GenerationConfig(max_tokens=8)) for seed in (10, 11, 12)
    ]
    assert len(set(_texts(_answers(_model(checkpoints["llava"]), same_prompt)))) > 1


def test_requests_with_different_image_counts_are_batched_apart(checkpoints: dict[str, Path], torch: Any) -> None:
    requests = [_request(0, 1), _request(1, 2), _request(2, 1), _request(3, 2)]
    model = _model(checkpoints["idefics3"], batch_wait_ms="50")
    results = _answers(model, requests)
    assert all(isinstance(r, Generation) for r in results)
    assert sorted(model.batch_sizes) == [2, 2]


def test_mixed_max_tokens_in_one_batch_match_separate_runs(checkpoints: dict[str, Path], torch: Any) -> None:
    requests = [_request(0, max_tokens=3), _request(1, max_tokens=8), _request(2, max_tokens=5)]
    together = _answers(_model(checkpoints["llava"], batch_wait_ms="50"), requests)
    alone = _answers(_model(checkpoints["llava"], batch_size="1"), requests)
    assert _texts(together) == _texts(alone)
    assert [g.usage.completion_tokens <= r.config.max_tokens for g, r in zip(together, requests)] == [True] * 3  # type: ignore[union-attr]


def test_usage_counts_prompt_and_generated_tokens(checkpoints: dict[str, Path], torch: Any) -> None:
    short, long = _answers(_model(checkpoints["llava"]), [_request(0), _request(3)])
    assert isinstance(short, Generation) and isinstance(long, Generation)
    assert long.usage.prompt_tokens - short.usage.prompt_tokens == 3  # three more words
    assert 1 <= short.usage.completion_tokens <= 8


def test_undecodable_image_fails_only_its_request(checkpoints: dict[str, Path], torch: Any) -> None:
    broken = Request(prompt=PROMPT, images=(EncodedImage(b"not an image", "image/png", 1, 1), _png(1)))
    results = _answers(_model(checkpoints["llava"], batch_wait_ms="50"), [_request(0), broken, _request(1)])
    assert isinstance(results[1], FatalModelError) and results[1].kind == "bad_request"
    assert isinstance(results[0], Generation) and isinstance(results[2], Generation)


def test_max_pixels_changes_identity_not_validity(checkpoints: dict[str, Path], torch: Any) -> None:
    bounded = _model(checkpoints["llava"], max_pixels="64")
    [result] = _answers(bounded, [_request(0)])
    assert isinstance(result, Generation)
    assert bounded.identity() != _model(checkpoints["llava"]).identity()
    assert _model(checkpoints["llava"]).identity() == _model(checkpoints["llava"], batch_size="2").identity()


def test_system_text_reaches_the_prompt(checkpoints: dict[str, Path], torch: Any) -> None:
    model = _model(checkpoints["llava"])
    model.load()
    rendered = model._render(_request(0, system="answer in json"))
    assert rendered.startswith("system: answer in json user: " + PROMPT)


def test_model_is_loaded_once_and_lazily(
    checkpoints: dict[str, Path], torch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import transformers

    calls: list[str] = []
    original = transformers.AutoModelForImageTextToText.from_pretrained.__func__  # type: ignore[attr-defined]

    def spy(cls: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(str(args[0]))
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(transformers.AutoModelForImageTextToText, "from_pretrained", classmethod(spy))
    model = _model(checkpoints["llava"], batch_size="2")
    model.identity()
    assert calls == []

    async def go() -> None:
        for i in range(4):
            await model.generate(_request(i))

    asyncio.run(go())
    asyncio.run(go())  # a second event loop reuses the loaded model
    asyncio.run(model.aclose())
    assert len(calls) == 1


def test_family_class_is_used_when_the_auto_class_declines(
    checkpoints: dict[str, Path], torch: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import transformers

    def decline(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("Unrecognized configuration class for this kind of AutoModel")

    monkeypatch.setattr(transformers.AutoModelForImageTextToText, "from_pretrained", decline)
    model = _model(checkpoints["idefics3"])
    model.load()
    assert type(model._model).__name__ == "Idefics3ForConditionalGeneration"
    asyncio.run(model.aclose())


def test_unloadable_checkpoint_fails_each_request_with_load_error(tmp_path: Path, torch: Any) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "no-such-family"}))
    results = _answers(_model(tmp_path), [_request(0), _request(1)])
    assert [getattr(r, "kind", None) for r in results] == ["load_error", "load_error"]


def test_engine_concurrency_fills_batches(checkpoints: dict[str, Path], torch: Any) -> None:
    from socialbench.runner.engine import Engine, RetryPolicy

    model = _model(checkpoints["llava"], batch_size="8", batch_wait_ms="50")

    async def go() -> list[Any]:
        engine = Engine(model, concurrency=8, retry=RetryPolicy(max_attempts=1, timeout_s=60))
        try:
            return await asyncio.gather(*(engine.run(_request(i)) for i in range(16)))
        finally:
            await model.aclose()

    outcomes = asyncio.run(go())
    assert [o.error for o in outcomes] == [None] * 16
    assert max(model.batch_sizes) == 8 and sum(model.batch_sizes) == 16


# --------------------------------------------------------------------------- sampling


def test_temperature_zero_is_greedy() -> None:
    assert sampling_args(GenerationConfig(temperature=0.0)) == {"do_sample": False}


def test_a_positive_temperature_samples_at_it_with_top_p() -> None:
    assert sampling_args(GenerationConfig(temperature=0.7, top_p=0.9)) == {
        "do_sample": True,
        "temperature": 0.7,
        "top_p": 0.9,
    }


def test_unset_sampling_leaves_the_checkpoints_generation_config() -> None:
    assert sampling_args(GenerationConfig(temperature=None)) == {}


def test_sampled_answers_follow_the_seed(checkpoints: dict[str, Path], torch: Any) -> None:
    def sampled(seed: int) -> Request:
        return Request(
            prompt=PROMPT,
            images=(_png(1), _png(2)),
            config=GenerationConfig(max_tokens=12, temperature=5.0, seed=seed),
        )

    first = _texts(_answers(_model(checkpoints["llava"]), [sampled(s) for s in range(4)]))
    again = _texts(_answers(_model(checkpoints["llava"]), [sampled(s) for s in range(4)]))
    assert first == again and len(set(first)) > 1  # same seed, same answer; seeds differ


# --------------------------------------------------------------------------- token counts


def test_tokens_until_stop_keep_a_generated_pad_token_and_the_stop() -> None:
    assert tokens_until_stop([7, 0, 9, 2, 0, 0], {2}) == [7, 0, 9, 2]


def test_completion_tokens_are_what_transformers_serve_counts(checkpoints: dict[str, Path], torch: Any) -> None:
    """``transformers serve`` counts every token ``generate`` returns after the prompt. A
    token the model generates is made the pad token: it is a token of the reply and counts
    (it was dropped before, one token fewer than the server per occurrence)."""
    from transformers import AutoModelForImageTextToText, AutoProcessor

    path = checkpoints["llava"]
    processor = AutoProcessor.from_pretrained(path)
    reference_model = AutoModelForImageTextToText.from_pretrained(path).eval()
    eos = processor.tokenizer.eos_token_id

    def served(request: Request) -> list[int]:
        parts = [{"type": "text", "text": request.prompt}] + [{"type": "image"} for _ in request.images]
        text = processor.apply_chat_template(
            [{"role": "user", "content": parts}], add_generation_prompt=True, tokenize=False
        )
        images = [Image.open(io.BytesIO(img.data)).convert("RGB") for img in request.images]
        inputs = processor(text=[text], images=[images], return_tensors="pt")
        out = reference_model.generate(**inputs, max_new_tokens=8, do_sample=False)
        return [int(t) for t in out[0, inputs["input_ids"].shape[1] :]]  # transformers serve's slice

    candidates = [(r, served(r)) for r in (_request(i) for i in range(4))]
    request, generated = next((r, g) for r, g in candidates if any(t != eos for t in g))
    model = _model(path)
    model.load()
    tokenizer = model._processor.tokenizer
    tokenizer.pad_token = tokenizer.convert_ids_to_tokens(next(t for t in generated if t != eos))
    [result] = _answers(model, [request])
    assert isinstance(result, Generation) and result.usage.completion_tokens == len(generated)


# --------------------------------------------------------------------------- reasoning switch

THINKING_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: "
    "{% for p in m['content'] %}{% if p['type'] == 'image' %}<image>{% else %}{{ p['text'] }}{% endif %}"
    "{% endfor %} {% endfor %}"
    "{% if add_generation_prompt %}assistant:"
    "{% if enable_thinking is defined %}{{ ' thinking' if enable_thinking else ' no thinking' }}{% endif %}{% endif %}"
)


@pytest.fixture(scope="module")
def thinking_checkpoint(checkpoints: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny LLaVA with a chat template that takes the ``enable_thinking`` switch."""
    import shutil

    from transformers import AutoProcessor

    path = tmp_path_factory.mktemp("thinking") / "llava"
    shutil.copytree(checkpoints["llava"], path)
    processor = AutoProcessor.from_pretrained(path)
    processor.chat_template = THINKING_TEMPLATE
    processor.save_pretrained(path)
    return path


def _rendered(path: Path, effort: str | None) -> str:
    model = _model(path)
    model.load()
    return model._render(Request(prompt=PROMPT, config=GenerationConfig(reasoning_effort=effort)))


def test_reasoning_effort_none_switches_thinking_off(thinking_checkpoint: Path, torch: Any) -> None:
    assert _rendered(thinking_checkpoint, "none").endswith("assistant: no thinking")


def test_a_reasoning_effort_switches_thinking_on(thinking_checkpoint: Path, torch: Any) -> None:
    assert _rendered(thinking_checkpoint, "high").endswith("assistant: thinking")


def test_unset_reasoning_effort_renders_the_templates_default(thinking_checkpoint: Path, torch: Any) -> None:
    assert _rendered(thinking_checkpoint, None).endswith("assistant:")


def test_a_template_without_the_switch_is_rendered_as_it_is(
    checkpoints: dict[str, Path], torch: Any, caplog: pytest.LogCaptureFixture
) -> None:
    assert _rendered(checkpoints["llava"], "none") == _rendered(checkpoints["llava"], None)
    assert "no reasoning switch" in caplog.text
