"""The JSON body of an OpenAI-compatible chat-completions request, built fast.

:func:`build_messages` gives the messages as objects; :func:`encode_chat_body` gives the
whole body as UTF-8 bytes, spliced from fragments so that each image's base64 text is built
once per image and never walked by the JSON encoder (perf/throughput.py).
"""

from __future__ import annotations

import base64
import json
import re
import weakref
from collections.abc import Mapping

from socialbench.prompting.turns import user_content
from socialbench.types import EncodedImage, Request

__all__ = ["build_messages", "encode_chat_body", "image_data_url"]


def image_data_url(image: EncodedImage) -> str:
    """``data:<mime>;base64,<...>`` URL for an encoded image."""
    return f"data:{image.mime};base64,{image.b64}"


def build_messages(request: Request) -> list[dict[str, object]]:
    """Chat messages for a request: optional system message, then one user message.

    The user content is the text part first and then one ``image_url`` part per image (the
    official GPT-4o order; :func:`socialbench.prompting.turns.user_content`, the order
    ``export sft`` writes too). Without images the content is the plain prompt string,
    which text-only servers accept too.
    """
    messages: list[dict[str, object]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    if request.images:
        content: object = user_content(
            {"type": "text", "text": request.prompt},
            [{"type": "image_url", "image_url": {"url": image_data_url(img)}} for img in request.images],
        )
    else:
        content = request.prompt
    messages.append({"role": "user", "content": content})
    return messages


_COMPACT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _dumps(value: object) -> str:
    return _COMPACT_JSON.encode(value)


#: A MIME type that can be put between JSON quotes as it is.
_PLAIN_MIME = re.compile(r"[A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+")


def _image_part_bytes(image: EncodedImage) -> bytes:
    """The UTF-8 JSON text of one ``image_url`` content part. A data URL of a plain MIME
    type is base64 text, which JSON needs no escapes for, so the part is assembled from
    bytes without walking the ~15-100 KB string through the JSON encoder.

    Built once per image object and kept while the image is alive
    (:data:`_IMAGE_PARTS`): every question of a sample sends the same images, and the run
    drops a sample's images when its questions are done, so this holds the parts of the
    samples in flight only, however many there are (at a fast server, many)."""
    part = _IMAGE_PARTS.get(image)
    if part is not None:
        return part
    if not _PLAIN_MIME.fullmatch(image.mime):
        part = _dumps({"type": "image_url", "image_url": {"url": image_data_url(image)}}).encode("utf-8")
    else:
        part = b"".join(
            (
                b'{"type":"image_url","image_url":{"url":"data:',
                image.mime.encode("ascii"),
                b";base64,",
                base64.b64encode(image.data),
                b'"}}',
            )
        )
    _IMAGE_PARTS[image] = part
    return part


#: :func:`_image_part_bytes` of each live image (an entry goes with its image).
_IMAGE_PARTS: weakref.WeakKeyDictionary[EncodedImage, bytes] = weakref.WeakKeyDictionary()


def encode_chat_body(request: Request, params: Mapping[str, object]) -> bytes:
    """The UTF-8 JSON body of a chat-completions call: ``params`` plus
    ``"messages": build_messages(request)``, decoding to exactly that object.

    Spliced from fragments (the image parts of :func:`_image_part_bytes`, built once per
    image) in one join, so that the image bytes are neither walked by the JSON encoder nor
    copied more than once for every question (perf/throughput.py).
    """
    head = _dumps(dict(params))
    start = head[:-1] + ("," if len(head) > 2 else "") + '"messages":['
    if request.system:
        start += _dumps({"role": "system", "content": request.system}) + ","
    start += '{"role":"user","content":'
    if request.images:
        text = _dumps({"type": "text", "text": request.prompt}).encode("utf-8")
        parts = user_content(text, [_image_part_bytes(img) for img in request.images])
        return b"".join((start.encode("utf-8"), b"[", b",".join(parts), b"]}]}"))
    return (start + _dumps(request.prompt) + "}]}").encode("utf-8")
