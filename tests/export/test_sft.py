"""``socialbench export sft``: the eval prompts paired with gold answers, in the formats
people train with, each loaded back by ``datasets``; a tiny VLM trains on them on the CPU."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from socialbench.benchmarks.roboteq.prompts import parse_judgments, scene_prompt
from socialbench.errors import UsageError
from socialbench.export.sft import write_sft

datasets = pytest.importorskip("datasets")

_FIXTURES = Path(__file__).resolve().parents[1] / "benchmarks" / "roboteq" / "roboteq_fixtures.py"


def _fixtures():
    spec = importlib.util.spec_from_file_location("roboteq_fixtures_for_sft", _FIXTURES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def release(tmp_path: Path) -> Path:
    return _fixtures().build_release(tmp_path / "release")


def _load(path: Path):
    return datasets.load_dataset("json", data_files=str(path), split="train")


def test_messages_rows_carry_the_eval_prompt_and_the_gold_reply(release: Path, tmp_path: Path) -> None:
    res = write_sft(release, tmp_path / "sft", fmt="messages", task="bj")
    row = next(r for r in _load(res.files["train"]) if r["id"] == "s1")
    fx = _fixtures()
    s1 = fx.JUDGMENT_ROWS[0]
    user, assistant = row["messages"]
    assert user["content"][1]["text"] == scene_prompt(fx.ROLE, list(enumerate(s1["option_texts"], start=1)), "standard")
    assert parse_judgments(assistant["content"][0]["text"], [1, 2]).values == {1: "proper", 2: "improper"}


def test_messages_images_are_copied_next_to_the_files(release: Path, tmp_path: Path) -> None:
    res = write_sft(release, tmp_path / "sft", fmt="messages")
    for row in _load(res.files["train"]):
        assert (tmp_path / "sft" / row["images"][0]).is_file()


def test_split_is_synthetic_for_training_and_real_for_evaluation(release: Path, tmp_path: Path) -> None:
    res = write_sft(release, tmp_path / "sft", fmt="messages")
    assert set(_load(res.files["train"])["subset"]) == {"synthetic"}
    assert set(_load(res.files["eval"])["subset"]) == {"real"}
    split = json.loads((tmp_path / "sft" / "split.json").read_text())
    assert not set(split["train"]["ids"]) & set(split["eval"]["ids"])


def test_sharegpt_loads_and_is_registered_for_llama_factory(release: Path, tmp_path: Path) -> None:
    res = write_sft(release, tmp_path / "sft", fmt="sharegpt", task="sg")
    row = _load(res.files["train"])[0]
    assert row["messages"][0]["content"].startswith("<image>") and json.loads(row["messages"][1]["content"])["answer"]
    info = json.loads((tmp_path / "sft" / "dataset_info.json").read_text())
    assert info["socialbench_train"]["file_name"] == "train.jsonl"
    assert info["socialbench_train"]["columns"] == {"messages": "messages", "images": "images"}


def test_llava_json_loads_with_datasets(release: Path, tmp_path: Path) -> None:
    res = write_sft(release, tmp_path / "sft", fmt="llava")
    row = _load(res.files["train"])[0]
    assert [t["from"] for t in row["conversations"]] == ["human", "gpt"]
    assert row["conversations"][0]["value"].startswith("<image>\n") and (tmp_path / "sft" / row["image"]).is_file()


def test_grounding_reply_is_the_gold_letter_set(release: Path, tmp_path: Path) -> None:
    res = write_sft(release, tmp_path / "sft", fmt="sharegpt", task="sg")
    row = next(r for r in _load(res.files["train"]) if r["id"] == "g1")
    assert json.loads(row["messages"][1]["content"]) == {"answer": ["A", "C"]}


def test_refuses_a_non_empty_output_folder(release: Path, tmp_path: Path) -> None:
    (tmp_path / "sft").mkdir()
    (tmp_path / "sft" / "keep.txt").write_text("mine")
    with pytest.raises(UsageError, match="--overwrite"):
        write_sft(release, tmp_path / "sft")
    assert (tmp_path / "sft" / "keep.txt").read_text() == "mine"


def test_unknown_format_is_a_usage_error(release: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--format must be one of"):
        write_sft(release, tmp_path / "sft", fmt="alpaca")


def test_cli_writes_the_files(release: Path, tmp_path: Path) -> None:
    from socialbench.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["export", "sft", "--data", str(release), "--out", str(tmp_path / "sft"), "--format", "llava"])
        raise SystemExit(0)
    assert exc.value.code in (0, None)
    assert {p.name for p in (tmp_path / "sft").iterdir()} >= {"train.json", "eval.json", "split.json", "README.md", "images"}


def test_tiny_vlm_trains_a_few_steps_on_the_messages_files(release: Path, tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from PIL import Image

    from socialbench.testing.tiny_vlm import build_tiny_vlm

    res = write_sft(release, tmp_path / "sft", fmt="messages")
    path = build_tiny_vlm("llava", tmp_path / "tiny", seed=0)
    processor = transformers.AutoProcessor.from_pretrained(path)
    model = transformers.AutoModelForImageTextToText.from_pretrained(path)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = [p.detach().clone() for p in model.parameters()]
    losses = []
    for row in _load(res.files["train"]):
        text = processor.apply_chat_template(row["messages"], tokenize=False)
        image = Image.open(tmp_path / "sft" / row["images"][0]).convert("RGB")
        batch = processor(text=text, images=[image], return_tensors="pt")
        loss = model(**batch, labels=batch["input_ids"].clone()).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    assert len(losses) == 3 and all(torch.isfinite(torch.tensor(losses)))
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters()))
