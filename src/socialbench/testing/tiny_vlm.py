"""Tiny, randomly initialised vision-language checkpoints for offline tests and benchmarks.

Each builder trains a word-level tokenizer on :data:`VOCABULARY`, builds a processor and a
config a few dozen parameters wide (``llava``: CLIP tower + Llama; ``idefics3``:
SigLIP-style tower with pixel shuffle + Llama; neither needs torchvision) and saves them with
``save_pretrained``, loadable as ``hf:<folder>``. Nothing is downloaded; the seeded output
is gibberish, but deterministic and dependent on the prompt and the images.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # transformers is imported lazily, where a model is built
    from transformers import LlamaConfig, PreTrainedModel, PreTrainedTokenizerFast, ProcessorMixin

#: Words the tiny tokenizers know; anything else becomes ``<unk>``.
VOCABULARY = (
    "which way should the robot go possible answers left right ahead stop person is moving "
    "towards away from answer yes no not sure turning behind in front of respond as json "
    '{ } " : , ? . [ ]'
).split()

#: A chat template in the processor style: content is a string or a list of text / image parts.
CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: "
    "{% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for p in m['content'] %}"
    "{% if p['type'] == 'image' %}<image>{% else %}{{ p['text'] }}{% endif %}"
    "{% endfor %}{% endif %} {% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)

BASE_SPECIALS = ("<pad>", "<s>", "</s>", "<unk>", "<image>")


def train_word_tokenizer(special_tokens: tuple[str, ...] = BASE_SPECIALS) -> PreTrainedTokenizerFast:
    """A word-level ``PreTrainedTokenizerFast`` trained on :data:`VOCABULARY`."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordLevelTrainer(special_tokens=list(special_tokens), show_progress=False)
    tok.train_from_iterator([" ".join(VOCABULARY)], trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
    )
    return fast


def _image_token_id(tokenizer: PreTrainedTokenizerFast) -> int:
    found = tokenizer.convert_tokens_to_ids("<image>")
    if not isinstance(found, int):
        raise RuntimeError(f"the tiny tokenizer maps <image> to {found!r}, not to one id")
    return found


def _text_config(vocab_size: int, width: int, layers: int) -> LlamaConfig:
    from transformers import LlamaConfig

    return LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=width,
        intermediate_size=2 * width,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=2048,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        initializer_range=0.5,  # large weights: outputs depend visibly on the input
        tie_word_embeddings=False,
    )


def _vision_kwargs(width: int, image_size: int) -> dict[str, Any]:
    """The tiny vision tower: one layer, two heads, patch 8."""
    return dict(
        hidden_size=width,
        intermediate_size=2 * width,
        num_hidden_layers=1,
        num_attention_heads=2,
        image_size=image_size,
        patch_size=8,
        initializer_range=0.5,
    )


def build_tiny_llava(path: str | Path, *, seed: int = 0, width: int = 16, layers: int = 1) -> Path:
    """Save a tiny LLaVA (CLIP 16x16 pixels, patch 8 -> 4 image tokens) to ``path``."""
    import torch
    from transformers import CLIPVisionConfig, LlavaConfig, LlavaForConditionalGeneration, LlavaProcessor
    from transformers.image_processing_utils import BaseImageProcessor

    image_processor_cls: type[BaseImageProcessor]
    try:  # transformers 5: the PIL image processor needs no torchvision
        from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

        image_processor_cls = CLIPImageProcessorPil
    except ImportError:  # transformers 4: the "slow" processor is PIL-based already
        from transformers import CLIPImageProcessor

        image_processor_cls = CLIPImageProcessor

    tokenizer = train_word_tokenizer()
    processor = LlavaProcessor(
        image_processor=image_processor_cls(size={"shortest_edge": 16}, crop_size={"height": 16, "width": 16}),
        tokenizer=tokenizer,
        patch_size=8,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=CHAT_TEMPLATE,
    )
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(projection_dim=width, **_vision_kwargs(width, 16)),
        text_config=_text_config(len(tokenizer), width, layers),
        image_token_index=_image_token_id(tokenizer),  # the name in transformers 4 and 5
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config).eval()
    return _save(model, processor, path)


def build_tiny_idefics3(path: str | Path, *, seed: int = 0, width: int = 16, layers: int = 1) -> Path:
    """Save a tiny Idefics3 (32x32 pixels, patch 8, scale factor 2 -> 4 image tokens) to ``path``."""
    import torch
    from transformers import (
        Idefics3Config,
        Idefics3ForConditionalGeneration,
        Idefics3Processor,
        Idefics3VisionConfig,
    )
    from transformers.image_processing_utils import BaseImageProcessor

    image_processor_cls: type[BaseImageProcessor]
    try:
        from transformers.models.idefics3.image_processing_pil_idefics3 import Idefics3ImageProcessorPil

        image_processor_cls = Idefics3ImageProcessorPil
    except ImportError:
        from transformers import Idefics3ImageProcessor

        image_processor_cls = Idefics3ImageProcessor

    tokenizer = train_word_tokenizer(
        BASE_SPECIALS + ("<fake_token_around_image>", "<global-img>", "<end_of_utterance>")
    )
    processor = Idefics3Processor(
        image_processor=image_processor_cls(
            do_image_splitting=False, size={"longest_edge": 32}, max_image_size={"longest_edge": 32}
        ),
        tokenizer=tokenizer,
        image_seq_len=4,
        chat_template=CHAT_TEMPLATE,
    )
    config = Idefics3Config(
        vision_config=Idefics3VisionConfig(**_vision_kwargs(width, 32)),
        text_config=_text_config(len(tokenizer), width, layers),
        image_token_id=_image_token_id(tokenizer),
        scale_factor=2,
        # transformers 5 declares its configs with dataclass_transform, so mypy sees only the
        # fields; the real __init__ passes further keywords (pad_token_id) to __post_init__.
        pad_token_id=0,  # type: ignore[call-arg]
    )
    torch.manual_seed(seed)
    model = Idefics3ForConditionalGeneration(config).eval()
    return _save(model, processor, path)


def _save(model: PreTrainedModel, processor: ProcessorMixin, path: str | Path) -> Path:
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


BUILDERS: dict[str, Callable[..., Path]] = {"llava": build_tiny_llava, "idefics3": build_tiny_idefics3}


def build_tiny_vlm(family: str, path: str | Path, **kwargs: object) -> Path:
    """Build and save a tiny checkpoint of ``family`` (one of :data:`BUILDERS`)."""
    try:
        builder = BUILDERS[family]
    except KeyError:
        raise ValueError(f"unknown tiny VLM family {family!r}; choose one of {', '.join(BUILDERS)}") from None
    return builder(path, **kwargs)
