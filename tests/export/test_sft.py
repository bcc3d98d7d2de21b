"""``socialbench export sft``: the eval prompts paired with gold answers, in the formats
people train with, each loaded back by ``datasets``; a tiny VLM trains on them on the CPU."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pytest

from socialbench.benchmarks.roboteq.judgment_replies import parse_judgments
from socialbench.benchmarks.roboteq.prompts import scene_prompt
from socialbench.errors import UsageError
from socialbench.export.sft import write_sft


def _datasets() -> Any:
    """The ``datasets`` library (extra hub/train), or a skip with the allowed reason."""
    if importlib.util.find_spec("datasets") is None:
        pytest.skip("datasets is not installed")
    import datasets

    return datasets


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
    return _datasets().load_dataset("json", data_files=str(path), split="train")


def test_messages_rows_carry_the_eval_prompt_and_the_gold_reply(release: Path, tmp_path: Path) -> None:
    res = write_sft(release, tmp_path / "sft", fmt="messages", task="bj")
    row = next(r for r in _load(res.files["train"]) if r["id"] == "s1")
    fx = _fixtures()
    s1 = fx.JUDGMENT_ROWS[0]
    user, assistant = row["messages"]
    assert user["content"][0]["text"] == scene_prompt(fx.ROLE, list(enumerate(s1["option_texts"], start=1)), "standard")
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
    assert row["messages"][0]["content"].endswith("<image>") and json.loads(row["messages"][1]["content"])["answer"]
    info = json.loads((tmp_path / "sft" / "dataset_info.json").read_text())
    assert info["socialbench_train"]["file_name"] == "train.jsonl"
    assert info["socialbench_train"]["columns"] == {"messages": "messages", "images": "images"}


def test_llava_json_loads_with_datasets(release: Path, tmp_path: Path) -> None:
    res = write_sft(release, tmp_path / "sft", fmt="llava")
    row = _load(res.files["train"])[0]
    assert [t["from"] for t in row["conversations"]] == ["human", "gpt"]
    assert row["conversations"][0]["value"].endswith("\n<image>") and (tmp_path / "sft" / row["image"]).is_file()


def test_messages_user_turn_puts_the_text_before_the_image_as_eval_does(release: Path, tmp_path: Path) -> None:
    res = write_sft(release, tmp_path / "sft", fmt="messages")
    assert [p["type"] for p in _load(res.files["train"])[0]["messages"][0]["content"]] == ["text", "image"]


def test_images_first_puts_the_image_before_the_text_in_every_format(release: Path, tmp_path: Path) -> None:
    messages = write_sft(release, tmp_path / "m", fmt="messages", images_first=True)
    sharegpt = write_sft(release, tmp_path / "s", fmt="sharegpt", images_first=True)
    llava = write_sft(release, tmp_path / "l", fmt="llava", images_first=True)
    assert [p["type"] for p in _load(messages.files["train"])[0]["messages"][0]["content"]] == ["image", "text"]
    assert _load(sharegpt.files["train"])[0]["messages"][0]["content"].startswith("<image>")
    assert _load(llava.files["train"])[0]["conversations"][0]["value"].startswith("<image>\n")


@pytest.mark.parametrize(("task", "benchmark"), [("bj", "roboteq-bj"), ("sg", "roboteq-sg")])
def test_chat_template_renders_an_exported_example_as_eval_sends_it(
    release: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str, benchmark: str
) -> None:
    """The tiny LLaVA's chat template applied to an exported user turn gives exactly the text
    ``eval`` renders for the same item with the same model (``hf:``, default layout)."""
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from socialbench.benchmarks.base import get_benchmark
    from socialbench.benchmarks.options import EvalOptions
    from socialbench.models.hf_local import HFLocalModel
    from socialbench.models.registry import ModelOptions, create_model
    from socialbench.runner.run import RunRequest, run_eval
    from socialbench.testing.tiny_vlm import build_tiny_vlm

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    tiny = build_tiny_vlm("llava", tmp_path / "tiny", seed=0)
    sent: dict[str, str] = {}
    render = HFLocalModel._render

    def spy(self: HFLocalModel, request: Any) -> str:
        text = render(self, request)
        sent[request.item.item_id] = text
        return text

    monkeypatch.setattr(HFLocalModel, "_render", spy)
    bench, _ = get_benchmark(benchmark)
    monkeypatch.setattr(type(bench), "max_tokens", lambda self, options: 2)  # what is sent is all this test reads
    model = create_model(f"hf:{tiny}", ModelOptions())
    run_eval(
        RunRequest(benchmark, release, model.spec, tmp_path / "run", EvalOptions(), show_progress=False), bench, model
    )
    res = write_sft(release, tmp_path / "sft", fmt="messages", task=task, train_subset="all", eval_subset="none")
    processor = transformers.AutoProcessor.from_pretrained(tiny)
    rows = list(_load(res.files["train"]))
    assert sorted(sent) == sorted(r["id"] for r in rows)
    for row in rows:
        exported = processor.apply_chat_template([row["messages"][0]], tokenize=False, add_generation_prompt=True)
        assert exported == sent[row["id"]]
        assert exported.count("<image>") == 1


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


@pytest.mark.parametrize("name", ["train.jsonl", "README.md", "images"])
def test_overwrite_never_writes_through_a_link_in_the_output_folder(release: Path, tmp_path: Path, name: str) -> None:
    from socialbench.files.atomic_write import LinkRefused

    out = tmp_path / "sft"
    write_sft(release, out, fmt="messages")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine")
    target = elsewhere if name == "images" else elsewhere / "keep.txt"
    moved = out / name
    moved.rename(tmp_path / "old")  # the file or folder socialbench wrote, swapped for a link
    moved.symlink_to(target)
    with pytest.raises(LinkRefused) as e:
        write_sft(release, out, fmt="messages", overwrite=True)
    assert str(moved) in str(e.value)
    assert (
        sorted(p.name for p in elsewhere.iterdir()) == ["keep.txt"] and (elsewhere / "keep.txt").read_text() == "mine"
    )


def test_unknown_format_is_a_usage_error(release: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--format must be one of"):
        write_sft(release, tmp_path / "sft", fmt="alpaca")


def test_cli_writes_the_files(release: Path, tmp_path: Path) -> None:
    from socialbench.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["export", "sft", "--data", str(release), "--out", str(tmp_path / "sft"), "--format", "llava"])
        raise SystemExit(0)
    assert exc.value.code in (0, None)
    assert {p.name for p in (tmp_path / "sft").iterdir()} >= {
        "train.json",
        "eval.json",
        "split.json",
        "README.md",
        "images",
    }


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


@pytest.fixture(scope="module")
def trl_lora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """docs/training.md §2 on the CPU: TRL's SFTTrainer reads the ``messages`` files (loaded and
    cast with ``datasets`` as the recipe does) and trains a LoRA on a tiny LLaVA for two steps."""
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    trl = pytest.importorskip("trl", reason="trl (optional extra train) is not installed")
    peft = pytest.importorskip("peft", reason="peft (optional extra train) is not installed")
    from socialbench.testing.tiny_vlm import build_tiny_vlm

    tmp = tmp_path_factory.mktemp("trl")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        sft = tmp / "sft"
        res = write_sft(_fixtures().build_release(tmp / "release"), sft, fmt="messages")
        datasets = _datasets()
        ds = datasets.load_dataset("json", data_files={"train": str(res.files["train"])})["train"]
        ds = ds.map(lambda r: {"images": [str(sft / p) for p in r["images"]]})
        sequence = getattr(datasets, "List", None) or datasets.Sequence  # datasets < 4 has no List
        ds = ds.cast_column("images", sequence(datasets.Image()))
        base = build_tiny_vlm("llava", tmp / "base", seed=0)
        trainer = trl.SFTTrainer(
            model=transformers.AutoModelForImageTextToText.from_pretrained(base),
            processing_class=transformers.AutoProcessor.from_pretrained(base),
            train_dataset=ds,
            args=trl.SFTConfig(
                output_dir=str(tmp / "out"),
                per_device_train_batch_size=2,
                max_steps=2,
                learning_rate=1e-2,
                remove_unused_columns=False,
                max_length=None,
                use_cpu=True,
                save_strategy="no",
                logging_steps=1,
                report_to=[],
            ),
            peft_config=peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]),
        )
        trainer.train()
        trainer.save_model(str(tmp / "lora"))
    return {
        "base": base,
        "adapter": tmp / "lora",
        "losses": [h["loss"] for h in trainer.state.log_history if "loss" in h],
        "lora_b": [p.detach() for name, p in trainer.model.named_parameters() if "lora_B" in name],
    }


def test_trl_sft_trainer_trains_a_lora_on_the_messages_files(trl_lora: dict[str, Any]) -> None:
    assert len(trl_lora["losses"]) == 2 and all(math.isfinite(x) for x in trl_lora["losses"])
    lora_b = trl_lora["lora_b"]
    assert lora_b and any(bool(t.abs().sum() > 0) for t in lora_b)  # B starts at zero: training moved it
    assert (trl_lora["adapter"] / "adapter_config.json").is_file()


def test_trl_adapter_evaluates_as_hf_base_plus_adapter(trl_lora: dict[str, Any]) -> None:
    from socialbench.models.hf_local import HFLocalModel
    from socialbench.models.registry import ModelOptions, create_model
    from socialbench.types import Generation, GenerationConfig, Request

    model = create_model(f"hf:{trl_lora['base']}+{trl_lora['adapter']}", ModelOptions())
    assert isinstance(model, HFLocalModel)

    async def answer() -> object:
        try:
            return await model.generate(Request(prompt="which way ?", config=GenerationConfig(max_tokens=4)))
        finally:
            await model.aclose()

    assert isinstance(asyncio.run(answer()), Generation)


def test_empty_eval_split_is_a_warning_and_not_registered(tmp_path: Path) -> None:
    fx = _fixtures()
    synthetic_only = fx.build_release(tmp_path / "release", judgment=fx.JUDGMENT_ROWS[:2], grounding=[])
    res = write_sft(synthetic_only, tmp_path / "sft", fmt="sharegpt", task="bj")
    info = json.loads((tmp_path / "sft" / "dataset_info.json").read_text())
    assert sorted(info) == ["socialbench_train"] and sorted(res.files) == ["train"]
    assert not (tmp_path / "sft" / "eval.jsonl").exists()
    assert any("no real examples" in w and "--eval-subset" in w for w in res.warnings)


def test_cli_prints_the_empty_eval_split_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from socialbench.cli import main

    fx = _fixtures()
    synthetic_only = fx.build_release(tmp_path / "release", judgment=fx.JUDGMENT_ROWS[:2], grounding=[])
    with pytest.raises(SystemExit) as exc:
        main(["export", "sft", "--data", str(synthetic_only), "--out", str(tmp_path / "sft"), "--task", "bj"])
        raise SystemExit(0)
    assert exc.value.code in (0, None)
    assert "warning: no real examples" in capsys.readouterr().err


@pytest.mark.parametrize(("first", "second"), [("llava", "messages"), ("sharegpt", "llava"), ("sharegpt", "messages")])
def test_overwrite_with_another_format_removes_the_old_formats_files(
    release: Path, tmp_path: Path, first: str, second: str
) -> None:
    out = tmp_path / "sft"
    write_sft(release, out, fmt=first)
    (out / "notes.txt").write_text("mine")
    res = write_sft(release, out, fmt=second, overwrite=True)
    expected = {p.name for p in res.files.values()} | {"split.json", "README.md", "images", "notes.txt"}
    if second == "sharegpt":
        expected.add("dataset_info.json")
    assert {p.name for p in out.iterdir()} == expected
    assert (out / "notes.txt").read_text() == "mine"


def test_overwrite_removes_images_of_the_earlier_export(release: Path, tmp_path: Path) -> None:
    out = tmp_path / "sft"
    write_sft(release, out, task="both")
    res = write_sft(release, out, task="sg", overwrite=True)
    kept = sorted(str(p.relative_to(out)) for p in (out / "images").rglob("*") if p.is_file())
    rows = [json.loads(line) for split in res.files.values() for line in split.read_text().splitlines()]
    assert kept == sorted({r["images"][0] for r in rows}) and len(kept) == 3


def _canonical_release(root: Path) -> Path:
    fx = _fixtures()
    rows = [
        {
            "id": "syn-0001",
            "task": "behavior_judgment",
            "image": "images/synthetic/syn-0001.png",
            "question": fx.ROLE,
            "subset": "synthetic",
            "behaviors": [{"k": 1, "text": "Approach the table.", "label": "proper"}],
        },
        {
            "id": "real-0001",
            "task": "behavior_judgment",
            "image": "images/real/real-0001.png",
            "question": fx.ROLE,
            "subset": "real",
            "behaviors": [{"k": 1, "text": "Shout the bill.", "label": "improper"}],
        },
    ]
    fx.write_jsonl(root / "roboteq.jsonl", rows)
    for i, row in enumerate(rows):
        fx.draw_image(root / row["image"], i)
    return root


@pytest.mark.parametrize("fmt", ["messages", "sharegpt", "llava"])
def test_image_paths_keep_the_dataset_relative_path_without_a_second_images_folder(tmp_path: Path, fmt: str) -> None:
    """A build export / canonical folder keeps its images under ``images/``: the export's
    path is the dataset's own (``images/synthetic/syn-0001.png``), not ``images/images/...``;
    LLaMA-Factory and the other loaders resolve it against the export folder."""
    root = _canonical_release(tmp_path / "canonical")
    res = write_sft(root, tmp_path / "sft", fmt=fmt, task="bj")
    row = _load(res.files["train"])[0]
    path = row["image"] if fmt == "llava" else row["images"][0]
    assert path == "images/synthetic/syn-0001.png"
    assert (tmp_path / "sft" / path).read_bytes() == (root / "images/synthetic/syn-0001.png").read_bytes()


def test_image_paths_of_the_published_layout_go_under_images(release: Path, tmp_path: Path) -> None:
    res = write_sft(release, tmp_path / "sft", fmt="messages", task="bj")
    row = next(r for r in _load(res.files["train"]) if r["id"] == "s1")
    assert row["images"] == ["images/behavior_judgment/images/s1.png"]


def test_two_dataset_images_written_to_one_export_path_are_refused(tmp_path: Path) -> None:
    fx = _fixtures()
    root = tmp_path / "canonical"
    rows = [
        {
            "id": f"syn-{i}",
            "task": "behavior_judgment",
            "image": image,
            "question": fx.ROLE,
            "subset": "synthetic",
            "behaviors": [{"k": 1, "text": "Wait.", "label": "proper"}],
        }
        for i, image in enumerate(["images/a.png", "a.png"])
    ]
    fx.write_jsonl(root / "roboteq.jsonl", rows)
    for i, row in enumerate(rows):
        fx.draw_image(root / row["image"], i)
    with pytest.raises(UsageError, match=r"images/a\.png.*a\.png|a\.png.*images/a\.png"):
        write_sft(root, tmp_path / "sft", task="bj", eval_subset="none")
    assert not (tmp_path / "sft").exists()


def _hub_forms(text: str) -> list[str]:
    """The hub id examples a help or doc text names (``OWNER/NAME`` forms with or without ``hf:``)."""
    import re

    return re.findall(r"(?:hf:(?://)?)?[A-Za-z][\w.-]*/[\w.-]*[A-Za-z]", text)


def _sft_data_help() -> str:
    import typer

    from socialbench.export.commands import export_app

    command = typer.main.get_command(export_app)
    if hasattr(command, "get_command"):  # a group when export has more than one command
        command = command.get_command(None, "sft")
    return next(str(getattr(p, "help", "")) for p in command.params if p.name == "data")


def test_data_help_names_only_hub_ids_that_are_fetched_from_the_hub(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every hub id form ``export sft --help`` shows is one :func:`resolve_data` downloads,
    and each downloads the repository the help says (OWNER/NAME without the prefix)."""
    import sys
    import types

    from socialbench.benchmarks.roboteq.hub import resolve_data

    asked: list[str] = []

    def snapshot_download(repo_id: str, repo_type: str) -> str:
        asked.append(repo_id)
        return str(tmp_path)

    fake = types.ModuleType("huggingface_hub")
    fake.snapshot_download = snapshot_download  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "huggingface_hub", fake)
    monkeypatch.chdir(tmp_path)  # no local folder of these names
    forms = _hub_forms(_sft_data_help())
    assert len(forms) >= 2 and any(f.startswith("hf:") for f in forms)
    for form in forms:
        assert resolve_data(form) == tmp_path
    assert asked == [f.removeprefix("hf:").lstrip("/") for f in forms]


_DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_training_doc_names_the_hub_id_forms_of_the_help() -> None:
    doc = (_DOCS / "training.md").read_text(encoding="utf-8")
    section = doc.split("## 1. Write the SFT files", 1)[1].split("\n## ", 1)[0]
    paragraph = next(p for p in section.split("\n\n") if p.startswith("`--data`"))
    assert set(_hub_forms(paragraph)) == set(_hub_forms(_sft_data_help()))


def test_dataset_format_doc_names_the_hub_id_forms_of_the_help() -> None:
    doc = (_DOCS / "roboteq-format.md").read_text(encoding="utf-8")
    row = next(line for line in doc.splitlines() if "the hub id" in line)
    assert set(_hub_forms(row)) == set(_hub_forms(_sft_data_help()))
