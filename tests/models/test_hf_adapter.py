"""``hf:BASE+ADAPTER``: a LoRA adapter (PEFT) merged into a local checkpoint at load, on a tiny
random LLaVA and a tiny LoRA adapter built and saved here, offline.

Tests that need torch, transformers and peft skip where they are absent; the spec parsing is
tested everywhere.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from socialbench.errors import UsageError
from socialbench.models.hf_checkpoint import split_adapter_spec
from socialbench.models.hf_local import HFLocalModel
from socialbench.models.registry import ModelOptions, create_model
from socialbench.types import EncodedImage, Generation, GenerationConfig, Request

PROMPT = "which way should the robot go ? possible answers left right ahead"


def _png(seed: int) -> EncodedImage:
    pixels = (np.random.RandomState(seed).rand(20, 30, 3) * 255).astype("uint8")
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG")
    return EncodedImage(buf.getvalue(), "image/png", 30, 20)


REQUESTS = [
    Request(prompt=PROMPT + " ahead" * i, images=(_png(i),), config=GenerationConfig(max_tokens=8)) for i in range(4)
]


def _model(spec: str) -> HFLocalModel:
    model = create_model(f"hf:{spec}", ModelOptions())
    assert isinstance(model, HFLocalModel)
    return model


def _texts(model: HFLocalModel) -> list[str]:
    async def go() -> list[Any]:
        try:
            return await asyncio.gather(*(model.generate(r) for r in REQUESTS), return_exceptions=True)
        finally:
            await model.aclose()

    results = asyncio.run(go())
    assert all(isinstance(r, Generation) for r in results), results
    return [r.text for r in results]


def _save_lora(base: Path, out: Path, seed: int) -> Path:
    """A LoRA adapter with random (non-zero) A and B on the language model's attention."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForImageTextToText

    torch.manual_seed(seed)
    model = AutoModelForImageTextToText.from_pretrained(base)
    config = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "o_proj"], init_lora_weights=False)
    get_peft_model(model, config).save_pretrained(out)
    return out


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tiny base checkpoint, a LoRA adapter for it, and the merged checkpoint written the
    way docs/training.md merges (PeftModel.from_pretrained(...).merge_and_unload())."""
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    peft = pytest.importorskip("peft", reason="peft (optional extra hf) is not installed")
    from socialbench.testing.tiny_vlm import build_tiny_vlm

    root = tmp_path_factory.mktemp("adapter")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        base = build_tiny_vlm("llava", root / "base", seed=0)
        adapter = _save_lora(base, root / "lora", seed=1)
        merged = root / "merged"
        reloaded = transformers.AutoModelForImageTextToText.from_pretrained(base)
        peft.PeftModel.from_pretrained(reloaded, adapter).merge_and_unload().save_pretrained(merged)
        transformers.AutoProcessor.from_pretrained(base).save_pretrained(merged)
    return {"base": base, "adapter": adapter, "merged": merged}


# --------------------------------------------------------------------------- spec parsing


def test_plus_splits_base_and_adapter_at_the_last_plus() -> None:
    assert split_adapter_spec("org/model+runs/lora+v2") == ("org/model+runs/lora", "v2")


def test_spec_without_plus_has_no_adapter() -> None:
    assert split_adapter_spec("org/model") == ("org/model", None)


def test_existing_path_with_a_plus_is_a_plain_checkpoint(tmp_path: Path) -> None:
    folder = tmp_path / "a+b"
    folder.mkdir()
    assert split_adapter_spec(str(folder)) == (str(folder), None)


def test_empty_adapter_part_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="BASE\\+ADAPTER"):
        split_adapter_spec("org/model+")


def test_adapter_folder_without_adapter_config_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "not-an-adapter").mkdir()
    with pytest.raises(UsageError, match="adapter_config.json"):
        HFLocalModel(f"org/model+{tmp_path / 'not-an-adapter'}")


# --------------------------------------------------------------------------- tiny models


def test_adapter_changes_the_answers(folders: dict[str, Path]) -> None:
    base = _texts(_model(str(folders["base"])))
    adapted = _texts(_model(f"{folders['base']}+{folders['adapter']}"))
    assert adapted != base


def test_adapter_answers_equal_the_merged_folder_answers(folders: dict[str, Path]) -> None:
    adapted = _texts(_model(f"{folders['base']}+{folders['adapter']}"))
    merged = _texts(_model(str(folders["merged"])))
    assert adapted == merged
    assert len(set(merged)) > 1  # the answers depend on the request, so the check means something


def test_identity_names_the_adapter_path_and_differs_from_the_base(folders: dict[str, Path]) -> None:
    adapted = _model(f"{folders['base']}+{folders['adapter']}").identity()
    assert str(folders["adapter"].resolve()) in adapted
    assert adapted != _model(str(folders["base"])).identity()


def test_identity_changes_when_the_adapter_weights_change(folders: dict[str, Path], tmp_path: Path) -> None:
    first = _model(f"{folders['base']}+{_save_lora(folders['base'], tmp_path / 'lora', seed=1)}").identity()
    second = _model(f"{folders['base']}+{_save_lora(folders['base'], tmp_path / 'lora', seed=2)}").identity()
    assert first != second
