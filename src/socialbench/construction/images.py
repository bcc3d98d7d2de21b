"""Image generation and editing through any endpoint that speaks the OpenAI images API
(``MODEL[@BASE_URL]``; key from ``api_key_env``, ``EMPTY`` for a local ``BASE_URL``, never in
records). 429, 5xx, timeouts, dropped connections, malformed bodies and replies without an
image are retried with the engine's backoff (``Retry-After`` honoured); other 4xx fail at once.
An image file is written (atomically) before its record, so a killed run never leaves a record
without its image."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import json
import os
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from socialbench.construction.file_names import unique_name
from socialbench.construction.record_fields import text
from socialbench.construction.stage_output import StageOutput
from socialbench.errors import UsageError
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.progress import RunProgress

__all__ = [
    "ImageSettings",
    "ImageError",
    "ImageResult",
    "ImageClient",
    "IMAGE_EXT",
    "write_atomic",
    "sniff_mime",
    "save_image",
    "generate_images",
]

#: File extension by image MIME type.
IMAGE_EXT = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp"}


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``path`` through a ``.tmp`` sibling and a rename (never half-written)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def sniff_mime(data: bytes) -> str | None:
    """``image/png``, ``image/jpeg`` or ``image/webp`` from the magic bytes, else None."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


@dataclass(frozen=True)
class ImageSettings:
    """Where and how to call the images API."""

    model: str  # MODEL[@BASE_URL]
    size: str | None = None  # e.g. "1536x1024"; None lets the server choose
    quality: str | None = None
    response_format: str | None = "b64_json"  # None: do not send the parameter (gpt-image-*)
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 300.0
    max_attempts: int = 4
    base_delay_s: float = 2.0
    concurrency: int = 4
    price_per_image: float | None = None  # USD, for the cost report
    progress: bool = False

    def split(self) -> tuple[str, str | None]:
        from socialbench.models.openai_compat import parse_spec

        return parse_spec(self.model)


class ImageError(Exception):
    def __init__(self, kind: str, message: str = "", retryable: bool = False, retry_after: float | None = None):
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind = kind
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after


@dataclass
class ImageResult:
    data: bytes
    mime: str
    width: int
    height: int
    revised_prompt: str | None = None
    usage: dict[str, object] = field(default_factory=dict)
    attempts: int = 1
    latency_s: float = 0.0
    created: int | None = None


class ImageClient:
    """Generation and edit calls with retries (see the module docstring)."""

    def __init__(self, settings: ImageSettings):
        import openai

        self.settings = settings
        self.model, self.base_url = settings.split()
        key = os.environ.get(settings.api_key_env)
        if not key:
            if self.base_url is None:
                raise UsageError(
                    f"image model {settings.model!r} needs an API key: export {settings.api_key_env}=... "
                    "(or give a local server, e.g. MODEL@http://127.0.0.1:9000/v1)"
                )
            key = "EMPTY"
        self._key = key
        self._client = openai.AsyncOpenAI(
            api_key=key, base_url=self.base_url, timeout=settings.timeout_s, max_retries=0
        )
        self._policy = RetryPolicy(
            max_attempts=settings.max_attempts,
            base_delay_s=settings.base_delay_s,
            max_delay_s=max(60.0, settings.base_delay_s),
            timeout_s=settings.timeout_s,
        )
        self._rng = random.Random(0)
        self._sem = asyncio.Semaphore(max(1, settings.concurrency))
        self.calls = 0
        self.retries = 0

    @property
    def endpoint(self) -> str:
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or "default"

    def describe(self) -> dict[str, object]:
        return {
            "model": self.model,
            "endpoint": self.endpoint,
            "size": self.settings.size,
            "quality": self.settings.quality,
        }

    def _redact(self, text: str) -> str:
        if self._key and self._key != "EMPTY" and len(self._key) >= 4:
            text = text.replace(self._key, "***")
        return text[:500]

    def _common(self) -> dict[str, Any]:  # keyword arguments of the openai client's typed overloads
        params: dict[str, Any] = {"model": self.model, "n": 1}
        if self.settings.size:
            params["size"] = self.settings.size
        if self.settings.quality:
            params["quality"] = self.settings.quality
        if self.settings.response_format:
            params["response_format"] = self.settings.response_format
        return params

    async def _decode(self, resp: object) -> ImageResult:  # read with getattr: any SDK reply shape
        data_list = getattr(resp, "data", None) or []
        if not data_list:
            raise ImageError("no_image", "the reply holds no image", retryable=True)
        item = data_list[0]
        raw: bytes | None = None
        if getattr(item, "b64_json", None):
            try:
                raw = base64.b64decode(item.b64_json, validate=False)
            except ValueError as exc:
                raise ImageError("invalid_image", f"b64_json does not decode: {exc}", retryable=True) from None
        elif getattr(item, "url", None):
            import httpx

            async with httpx.AsyncClient(timeout=self.settings.timeout_s) as http:
                r = await http.get(item.url)
            if r.status_code != 200:
                raise ImageError("download_failed", f"GET image url answered {r.status_code}", retryable=True)
            raw = r.content
        if not raw:
            raise ImageError("no_image", "the reply has neither b64_json nor url", retryable=True)
        mime = sniff_mime(raw)
        try:
            with Image.open(io.BytesIO(raw)) as img:
                img.load()
                width, height = img.size
        except Exception as exc:
            raise ImageError(
                "invalid_image", f"the returned bytes are not an image ({type(exc).__name__})", retryable=True
            ) from None
        if mime is None:  # decodable but not PNG/JPEG/WebP (e.g. GIF): store as PNG
            buf = io.BytesIO()
            Image.open(io.BytesIO(raw)).convert("RGB").save(buf, format="PNG")
            raw, mime = buf.getvalue(), "image/png"
        usage = getattr(resp, "usage", None)
        usage_d = (
            usage.model_dump()
            if usage is not None and hasattr(usage, "model_dump")
            else (dict(usage) if isinstance(usage, dict) else {})
        )
        return ImageResult(
            raw,
            mime,
            width,
            height,
            getattr(item, "revised_prompt", None),
            usage_d,
            created=getattr(resp, "created", None),
        )

    async def _call(self, fn: Callable[[], Awaitable[object]]) -> ImageResult:
        import openai

        attempt = 0
        t0 = time.perf_counter()
        while True:
            attempt += 1
            self.calls += 1
            try:
                async with self._sem:
                    resp = await asyncio.wait_for(fn(), self._policy.timeout_s)
                    result = await self._decode(resp)
                result.attempts = attempt
                result.latency_s = time.perf_counter() - t0
                return result
            except ImageError as exc:
                err = exc
            except asyncio.TimeoutError:
                err = ImageError("timeout", f"no answer within {self._policy.timeout_s:g} s", retryable=True)
            except openai.APIStatusError as exc:
                code = exc.status_code
                ra = None
                try:
                    retry_after = exc.response.headers.get("retry-after")
                    ra = float(retry_after) if retry_after else None
                except ValueError:
                    ra = None
                kind = {429: "rate_limit", 401: "auth", 403: "auth", 404: "not_found", 400: "bad_request"}.get(
                    code, "server_error" if code >= 500 else "bad_request"
                )
                err = ImageError(
                    kind,
                    self._redact(f"HTTP {code}: {exc.message}"),
                    retryable=code == 429 or code >= 500,
                    retry_after=ra,
                )
            except openai.APITimeoutError:
                err = ImageError("timeout", "the request timed out", retryable=True)
            except openai.APIConnectionError as exc:
                err = ImageError("connection", self._redact(str(exc.__cause__ or exc)), retryable=True)
            except (openai.APIResponseValidationError, ValueError) as exc:
                err = ImageError("malformed_response", self._redact(f"{type(exc).__name__}: {exc}"), retryable=True)
            if not err.retryable or attempt >= self._policy.max_attempts:
                err.message = f"{err.message} (after {attempt} attempt(s))"
                raise err
            self.retries += 1
            await asyncio.sleep(self._policy.delay(attempt, err.retry_after, self._rng))

    async def generate(self, prompt: str) -> ImageResult:
        params = {**self._common(), "prompt": prompt}
        return await self._call(lambda: self._client.images.generate(**params))

    async def edit(self, image: bytes, prompt: str) -> ImageResult:
        mime = sniff_mime(image) or "image/png"
        params = {**self._common(), "prompt": prompt, "image": ("image" + IMAGE_EXT.get(mime, ".png"), image, mime)}
        return await self._call(lambda: self._client.images.edit(**params))

    async def aclose(self) -> None:
        await self._client.close()


def save_image(
    work: Path, record_id: str, round_no: int, result: ImageResult, provenance: Mapping[str, object]
) -> dict[str, object]:
    """Write ``images/<id>/round<r>.<ext>`` and its provenance JSON (atomically); return the
    fields for the stage record (paths relative to ``work``). The folder is the id's
    :func:`~socialbench.construction.file_names.unique_name` (``g1`` -> ``images/g1``,
    ``restaurant/b00-2`` -> ``images/restaurant__b00-2-<8 hex>``), so two ids never share one."""
    folder = work / "images" / unique_name(record_id)
    folder.mkdir(parents=True, exist_ok=True)
    ext = IMAGE_EXT.get(result.mime, ".png")
    path = folder / f"round{round_no}{ext}"
    sha = hashlib.sha256(result.data).hexdigest()
    write_atomic(path, result.data)
    prov = {
        **provenance,
        "id": record_id,
        "round": round_no,
        "file": path.name,
        "sha256": sha,
        "bytes": len(result.data),
        "mime": result.mime,
        "width": result.width,
        "height": result.height,
        "revised_prompt": result.revised_prompt,
        "usage": result.usage,
        "attempts": result.attempts,
        "latency_s": round(result.latency_s, 3),
        "server_created": result.created,
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    prov_path = folder / f"round{round_no}.json"
    write_atomic(prov_path, (json.dumps(prov, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    rel = path.relative_to(work).as_posix()
    return {
        "image": rel,
        "provenance": prov_path.relative_to(work).as_posix(),
        "sha256": sha,
        "width": result.width,
        "height": result.height,
        "mime": result.mime,
    }


async def generate_images(
    records: Sequence[Mapping[str, object]],
    work: Path,
    output: StageOutput,
    client: ImageClient,
    *,
    progress: bool = False,
) -> dict[str, int]:
    """One candidate per ``image_prompts.jsonl`` record not yet in ``output``."""
    pending = [r for r in records if r["id"] not in output.done]
    counts = {"generated": 0, "failed": 0}
    with RunProgress(len(pending), enabled=progress, label="images") as bar:

        async def one(rec: Mapping[str, object]) -> None:
            rid, prompt = str(rec["id"]), text(rec, "image_prompt")  # the stage JSONL reader checked the id
            try:
                result = await client.generate(prompt)
            except ImageError as exc:
                output.fail(rid, exc.kind, exc.message)
                counts["failed"] += 1
            else:
                fields = save_image(work, rid, 0, result, {"kind": "generation", **client.describe(), "prompt": prompt})
                output.write({"id": rid, "round": 0, **fields, "image_prompt": prompt, "scenario": rec.get("scenario")})
                counts["generated"] += 1
            bar.advance()

        await asyncio.gather(*(one(r) for r in pending))
    return counts
