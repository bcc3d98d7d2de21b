"""Where an ``hf:`` checkpoint comes from and how it is loaded: ``hf:BASE+ADAPTER`` specs,
the fingerprints of a local checkpoint and of a LoRA adapter folder (part of the run
identity), and :func:`load_checkpoint` (processor, weights with the adapter merged, the
tokenizer set up for left-padded batches, the chat template).

torch, transformers and peft are imported only here, only when a checkpoint is loaded.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from socialbench.errors import UsageError
from socialbench.models.reasoning import THINK_END, single_token_id

#: How to install what ``hf:`` models need, in the README's order (torch first: left to pip,
#: the extra's torch requirement pulls a CUDA build of several GB, even on a CPU-only machine).
HF_INSTALL = (
    "install torch first (the README's Install: on a CPU-only machine its CPU build, "
    "pip install torch==2.13.0), then pip install 'socialbench[hf]'"
)

log = logging.getLogger(__name__)


def split_adapter_spec(source: str) -> tuple[str, str | None]:
    """``BASE+ADAPTER`` -> ``(BASE, ADAPTER)``; a spec without ``+`` (or naming an existing
    path that contains one) -> ``(source, None)``. The split is at the last ``+``.

    >>> split_adapter_spec("Qwen/Qwen2.5-VL-7B-Instruct+lora-roboteq")
    ('Qwen/Qwen2.5-VL-7B-Instruct', 'lora-roboteq')
    """
    if "+" not in source or Path(source).expanduser().exists():
        return source, None
    base, _, adapter = source.rpartition("+")
    base, adapter = base.strip(), adapter.strip()
    if not base or not adapter:
        raise UsageError(f"hf:{source}: write hf:BASE+ADAPTER with both parts (a checkpoint and an adapter folder)")
    return base, adapter


def adapter_folder(spec_text: str, adapter: str) -> Path:
    """The resolved adapter folder of ``hf:BASE+ADAPTER``; a usage error unless it holds a
    PEFT adapter (``adapter_config.json``)."""
    folder = Path(adapter).expanduser()
    if not (folder / "adapter_config.json").is_file():
        raise UsageError(
            f"hf:{spec_text}: the adapter {adapter!r} is not a folder with adapter_config.json; give the "
            "folder written by PeftModel.save_pretrained / SFTTrainer.save_model (hub adapters: download "
            "them first)"
        )
    return folder.resolve()


def adapter_fingerprint(folder: Path) -> str:
    """A content hash of a PEFT adapter folder: adapter_config.json and every weight file's bytes."""
    h = hashlib.sha256()
    h.update((folder / "adapter_config.json").read_bytes())
    for f in sorted(folder.iterdir()):
        if f.suffix in (".safetensors", ".bin", ".pt") and f.is_file():
            h.update(f"\0{f.name}\0".encode())
            with f.open("rb") as stream:
                for chunk in iter(lambda: stream.read(1 << 20), b""):
                    h.update(chunk)
    return h.hexdigest()[:16]


def checkpoint_folder(name: str, source: str, fix: str) -> Path | None:
    """The resolved local checkpoint folder ``source`` names, or None for a hub id. A usage
    error (prefixed ``name``, the model spec) for a folder without ``config.json`` (``fix``
    says what to point at instead) or a path that does not exist."""
    local = Path(source).expanduser()
    if local.exists():
        if not (local / "config.json").is_file():
            raise UsageError(f"{name}: {local} has no config.json; {fix}")
        return local.resolve()
    if source.startswith(("/", ".", "~")):
        raise UsageError(f"{name}: no such folder; give an existing checkpoint folder or a hub id")
    return None


def checkpoint_where(folder: Path | None, revision: str | None) -> str:
    """The checkpoint part of a run identity: ``local:FINGERPRINT`` of a local folder
    (:func:`checkpoint_fingerprint`), else ``rev:REVISION`` of the hub id (``main`` by default)."""
    return f"local:{checkpoint_fingerprint(folder)}" if folder is not None else f"rev:{revision or 'main'}"


def checkpoint_fingerprint(folder: Path) -> str:
    """A cheap fingerprint of a local checkpoint: config.json text plus weight file names and sizes."""
    h = hashlib.sha256()
    config = folder / "config.json"
    if config.is_file():
        h.update(config.read_bytes())
    for f in sorted(folder.iterdir()):
        if f.suffix in (".safetensors", ".bin", ".pt", ".gguf") and f.is_file():
            h.update(f"\0{f.name}\0{f.stat().st_size}".encode())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class LoadedCheckpoint:
    """A loaded ``hf:`` checkpoint. ``processor`` and ``model`` are Transformers objects:
    transformers is an optional dependency (``socialbench[hf]``) whose Auto classes mypy
    sees untyped, so they are typed Any."""

    processor: Any
    model: Any
    #: The chat template (the processor's, else the tokenizer's), None when not a string.
    template: str | None
    #: The id of the ``</think>`` token when the vocabulary has it as one token.
    think_end: int | None


def load_checkpoint(
    source: str, spec: str, device: str, dtype_name: str, options: dict[str, str | bool], adapter: Path | None
) -> LoadedCheckpoint:
    """Load processor and weights of ``source`` (a folder or hub id) onto ``device`` as
    ``dtype_name``, merge the LoRA ``adapter`` when given, and set the tokenizer up for
    left-padded batches. ``options``: ``from_pretrained`` keyword arguments (revision,
    trust_remote_code). A usage error when torch/transformers are missing; ValueError for
    a checkpoint without a tokenizer or chat template."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise UsageError(f"hf: models need torch and transformers ({exc}): {HF_INSTALL}") from None
    processor = transformers.AutoProcessor.from_pretrained(source, **options)
    dtype = getattr(torch, dtype_name)
    dtype_kw = "dtype" if _transformers_major_minor(transformers.__version__) >= (4, 56) else "torch_dtype"
    try:
        model = transformers.AutoModelForImageTextToText.from_pretrained(source, **{dtype_kw: dtype}, **options)
    except ValueError as auto_error:  # the auto class does not map this config
        config = transformers.AutoConfig.from_pretrained(source, **options)
        names = list(getattr(config, "architectures", None) or [])
        cls = next((getattr(transformers, n) for n in names if hasattr(transformers, n)), None)
        if cls is None:
            raise ValueError(
                f"{auto_error}; config.json architectures {names} name no class in transformers "
                f"{transformers.__version__}"
            ) from None
        model = cls.from_pretrained(source, **{dtype_kw: dtype}, **options)
    if adapter is not None:
        # merge_and_unload: the answers are those of the merged checkpoint folder
        try:
            from peft import PeftModel
        except ImportError:
            raise UsageError(f"{spec} loads a LoRA adapter and needs peft: {HF_INSTALL}") from None
        model = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
    # transformers wraps PreTrainedModel.to in functools.wraps; typeshed's functools._Wrapped
    # has no __get__, so mypy does not bind ``self`` and takes ``device`` for it (stub bug).
    model.to(device)  # type: ignore[arg-type]
    model.eval()
    tokenizer = getattr(processor, "tokenizer", None)
    if tokenizer is None:
        raise ValueError("the processor has no tokenizer")
    tokenizer.padding_side = "left"
    if tokenizer.pad_token_id is None and tokenizer.eos_token_id is not None:
        tokenizer.pad_token = tokenizer.eos_token
    if getattr(processor, "chat_template", None) is None and getattr(tokenizer, "chat_template", None) is None:
        raise ValueError(
            "the checkpoint has no chat template; add chat_template.jinja (or chat_template in "
            "processor_config.json) to the folder"
        )
    template = getattr(processor, "chat_template", None) or getattr(tokenizer, "chat_template", None)
    log.info("loaded %s on %s as %s", spec, device, dtype_name)
    return LoadedCheckpoint(
        processor, model, template if isinstance(template, str) else None, single_token_id(tokenizer, THINK_END)
    )


def _transformers_major_minor(version: str) -> tuple[int, int]:
    parts = version.split(".")
    try:
        return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)
    except (IndexError, ValueError):
        return (0, 0)
