"""A local OpenAI-images-API server for tests: ``/v1/images/generations`` and ``/v1/images/edits``.

A real ``aiohttp.web`` server on ``127.0.0.1`` in a background thread, in the wire format of
the official ``openai`` SDK (generations: a JSON body; edits: a multipart form). Replies
carry small PNGs drawn deterministically from the prompt (edits draw on the uploaded image)
as ``b64_json``, or as ``url`` entries served from ``/files/NAME`` with ``response="url"``.
``push_status`` and ``push_malformed`` script failures, consumed one per request. As a
subprocess, ``python -m socialbench.testing.images_server --port 0`` prints
``READY http://127.0.0.1:PORT/v1`` and serves until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import hashlib
import io
import json
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from aiohttp import web
from PIL import Image, ImageDraw

from socialbench.testing.app_thread import AppThread

__all__ = ["ScriptedImagesServer", "draw_image", "edit_image", "main"]

DEFAULT_SIZE = (64, 48)


def _colour(text: str, salt: str = "") -> tuple[int, int, int]:
    h = hashlib.sha256((salt + text).encode()).digest()
    return h[0], h[1], h[2]


def _size(value: object) -> tuple[int, int]:
    if isinstance(value, str) and "x" in value:
        try:
            w, h = (int(v) for v in value.lower().split("x", 1))
            if 0 < w <= 4096 and 0 < h <= 4096:
                return w, h
        except ValueError:
            pass
    return DEFAULT_SIZE


def draw_image(prompt: str, size: tuple[int, int] = DEFAULT_SIZE) -> bytes:
    """A PNG whose colours depend on the prompt (different prompts, different images)."""
    img = Image.new("RGB", size, _colour(prompt, "bg"))
    d = ImageDraw.Draw(img)
    w, h = size
    d.ellipse([w // 4, h // 4, 3 * w // 4, 3 * h // 4], fill=_colour(prompt, "fg"))
    d.rectangle([0, h - max(2, h // 8), w, h], fill=_colour(prompt, "floor"))
    return _png(img)


def edit_image(image: bytes, prompt: str) -> bytes:
    """The uploaded image with a prompt-coloured band drawn over its top part."""
    img = Image.open(io.BytesIO(image)).convert("RGB")
    d = ImageDraw.Draw(img)
    w, h = img.size
    d.rectangle([0, 0, w, max(2, h // 6)], fill=_colour(prompt, "edit"))
    return _png(img)


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


@dataclass
class _Scripted:
    kind: Literal["status", "malformed"]
    code: int = 200
    headers: dict[str, str] = field(default_factory=dict)


class ScriptedImagesServer:
    """OpenAI images API on 127.0.0.1 (see the module docstring). ``base_url`` ends in ``/v1``."""

    def __init__(
        self,
        *,
        response: Literal["b64_json", "url"] = "b64_json",
        delay_s: float = 0.0,
        generator: Callable[[str, tuple[int, int]], bytes] | None = None,
        editor: Callable[[bytes, str], bytes] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ):
        self.host = host
        self.response = response
        self.delay_s = delay_s
        self.generator = generator or draw_image
        self.editor = editor or edit_image
        self._lock = threading.Lock()
        self._script: collections.deque[_Scripted] = collections.deque()
        self._requests: list[dict[str, object]] = []
        self._files: dict[str, bytes] = {}
        self._served = AppThread(
            self._make_app, name="scripted-images-server", label="ScriptedImagesServer", host=host, port=port
        )
        self._port = 0
        self._serial = 0

    # -- scripting and records
    def push_status(self, code: int, retry_after: float | None = None) -> None:
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        with self._lock:
            self._script.append(_Scripted("status", code=code, headers=headers))

    def push_malformed(self) -> None:
        with self._lock:
            self._script.append(_Scripted("malformed"))

    @property
    def requests(self) -> list[dict[str, object]]:
        with self._lock:
            return list(self._requests)

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._requests)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self._port}/v1"

    # -- handlers
    async def _reply(self, record: dict[str, object], make: Callable[[], bytes]) -> web.Response:
        with self._lock:
            self._requests.append(record)
            self._serial += 1
            serial = self._serial
            action = self._script.popleft() if self._script else None
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if action is not None:
            if action.kind == "status":
                body = {
                    "error": {"message": f"scripted error {action.code}", "type": "server_error", "code": action.code}
                }
                return web.json_response(body, status=action.code, headers=action.headers)
            if action.kind == "malformed":
                return web.Response(status=200, text="<html>not json", content_type="application/json")
        png = make()
        item: dict[str, object] = {"revised_prompt": record.get("prompt")}
        if self.response == "url":
            name = f"img{serial:06d}.png"
            with self._lock:
                self._files[name] = png
            item["url"] = f"http://{self.host}:{self._port}/files/{name}"
        else:
            item["b64_json"] = base64.b64encode(png).decode("ascii")
        prompt_tokens = max(1, len(str(record.get("prompt") or "")) // 4)
        return web.json_response(
            {
                "created": int(time.time()),
                "data": [item],
                "usage": {"input_tokens": prompt_tokens, "output_tokens": 100, "total_tokens": prompt_tokens + 100},
            }
        )

    async def _generations(self, request: web.Request) -> web.Response:
        try:
            body = json.loads(await request.read())
        except ValueError:
            return web.json_response({"error": {"message": "body is not JSON"}}, status=400)
        if not isinstance(body, dict) or not isinstance(body.get("prompt"), str):
            return web.json_response({"error": {"message": "prompt is required"}}, status=400)
        record: dict[str, object] = {
            "endpoint": "generations",
            **{k: body.get(k) for k in ("prompt", "model", "size", "n", "response_format", "quality")},
        }
        size = _size(body.get("size"))
        return await self._reply(record, lambda: self.generator(body["prompt"], size))

    async def _edits(self, request: web.Request) -> web.Response:
        form = await request.post()
        images = [v for k, v in form.items() if k in ("image", "image[]") and hasattr(v, "file")]
        prompt = form.get("prompt")
        if not images or not isinstance(prompt, str):
            return web.json_response({"error": {"message": "image and prompt are required"}}, status=400)
        data = images[0].file.read()
        try:
            Image.open(io.BytesIO(data)).verify()
        except Exception:
            return web.json_response({"error": {"message": "image is not a valid image file"}}, status=400)
        record: dict[str, object] = {
            "endpoint": "edits",
            "prompt": prompt,
            "model": form.get("model"),
            "size": form.get("size"),
            "n": form.get("n"),
            "image_sha256": hashlib.sha256(data).hexdigest(),
            "has_mask": "mask" in form,
        }
        return await self._reply(record, lambda: self.editor(data, prompt))

    async def _file(self, request: web.Request) -> web.Response:
        with self._lock:
            data = self._files.get(request.match_info["name"])
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, content_type="image/png")

    # -- lifecycle
    def start(self) -> ScriptedImagesServer:
        self._port = self._served.start()
        return self

    def _make_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/images/generations", self._generations)
        app.router.add_post("/v1/images/edits", self._edits)
        app.router.add_get("/files/{name}", self._file)
        return app

    def stop(self) -> None:
        self._served.stop()

    def __enter__(self) -> ScriptedImagesServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the images API until killed; prints ``READY <base_url>`` first."""
    p = argparse.ArgumentParser(
        prog="python -m socialbench.testing.images_server",
        description="Scripted local OpenAI images API (generations and edits).",
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    p.add_argument("--delay-ms", type=float, default=0.0, help="sleep before each answer")
    p.add_argument(
        "--response",
        choices=["b64_json", "url"],
        default="b64_json",
        help="return images inline (default) or as URLs served from /files/NAME",
    )
    args = p.parse_args(argv)
    if args.delay_ms < 0:
        p.error("--delay-ms must not be negative")
    server = ScriptedImagesServer(
        response=args.response, delay_s=args.delay_ms / 1000.0, host=args.host, port=args.port
    ).start()
    print(f"READY {server.base_url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
