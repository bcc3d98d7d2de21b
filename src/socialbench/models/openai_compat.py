"""OpenAI-compatible chat-completions backend: OpenAI, vLLM, SGLang, Ollama, LM Studio, ...

Spec: ``openai:MODEL[@BASE_URL]``. The model name may contain ``/`` and ``:``; the base URL
starts at the last ``@`` that is followed by ``http://`` or ``https://``::

    openai:gpt-4o
    openai:Qwen/Qwen2.5-VL-7B-Instruct@http://localhost:8000/v1
    openai:llama3.2-vision:11b@http://127.0.0.1:11434/v1
    openai:Qwen/Qwen2.5-VL-7B-Instruct@http://node1:8000/v1,http://node2:8000/v1

Several comma-separated URLs (or ``--model-opt endpoints_file=PATH``) build a
:class:`~socialbench.models.endpoints.MultiEndpointModel` that spreads requests over them.

The API key comes from the environment variable named by the model option ``api_key_env``
(default ``OPENAI_API_KEY``). A local server (a base URL is given) gets the placeholder
``EMPTY`` when that variable is unset. The key never appears in the spec, the identity,
``repr``, error messages or logs.

The model never retries: the SDK client is built with ``max_retries=0`` and every failure is
raised as a :class:`RetryableModelError` or :class:`FatalModelError` with a stable kind
(``rate_limit``, ``overloaded``, ``server_error``, ``timeout``, ``connection``,
``malformed_response``, ``bad_request``, ``auth``, ``not_found``, ``refusal``,
``empty_response``) for the engine to act on.
"""

from __future__ import annotations

import email.utils
import functools
import json
import logging
import os
import re
import time
from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import urlsplit, urlunsplit

from socialbench.errors import UsageError
from socialbench.models.base import (
    FatalModelError,
    LoopBoundClient,
    ModelError,
    RetryableModelError,
    warm_platform_probe,
)
from socialbench.models.registry import ModelOptions, register
from socialbench.types import EncodedImage, Generation, Request, Usage

if TYPE_CHECKING:  # pragma: no cover
    import openai

    from socialbench.models.endpoints import MultiEndpointModel

log = logging.getLogger(__name__)

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
LOCAL_PLACEHOLDER_KEY = "EMPTY"
_BASE_URL_AT = re.compile(r"@(?=https?://)")
_MAX_MESSAGE_CHARS = 300


# --------------------------------------------------------------------------- pure helpers


def parse_spec(rest: str) -> tuple[str, str | None]:
    """Split ``MODEL[@BASE_URL]`` at the last ``@`` followed by ``http://`` or ``https://``.

    >>> parse_spec("llama3.2-vision:11b@http://127.0.0.1:11434/v1")
    ('llama3.2-vision:11b', 'http://127.0.0.1:11434/v1')
    """
    matches = list(_BASE_URL_AT.finditer(rest))
    if matches:
        at = matches[-1].start()
        model, base_url = rest[:at], rest[at + 1 :].rstrip("/")
    else:
        model, base_url = rest, None
    if not model.strip():
        raise UsageError(
            f"model spec 'openai:{rest}' has no model name; "
            "use openai:MODEL or openai:MODEL@http://HOST:PORT/v1 "
            "(e.g. openai:gpt-4o, openai:Qwen/Qwen2.5-VL-7B-Instruct@http://localhost:8000/v1)"
        )
    return model.strip(), base_url


def public_url(url: str) -> str:
    """``url`` without user info or query string, which may hold credentials
    (``https://user:key@host/v1?api-key=...``): what may be written to run records, folder
    names, caches and logs."""
    parts = urlsplit(url)
    if not parts.scheme:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def image_data_url(image: EncodedImage) -> str:
    """``data:<mime>;base64,<...>`` URL for an encoded image."""
    return f"data:{image.mime};base64,{image.b64}"


def build_messages(request: Request) -> list[dict[str, Any]]:
    """Chat messages for a request: optional system message, then one user message.

    The user content is the text part first and then one ``image_url`` part per image (the
    official GPT-4o order). Without images the content is the plain prompt string, which
    text-only servers accept too.
    """
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    if request.images:
        content: Any = [{"type": "text", "text": request.prompt}] + [
            {"type": "image_url", "image_url": {"url": image_data_url(img)}} for img in request.images
        ]
    else:
        content = request.prompt
    messages.append({"role": "user", "content": content})
    return messages


_COMPACT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _dumps(value: Any) -> str:
    return _COMPACT_JSON.encode(value)


@functools.lru_cache(maxsize=256)
def _image_part_json(image: EncodedImage) -> str:
    """The JSON text of one ``image_url`` content part. Every question of a sample sends the
    same images, so each ~15-100 KB part is serialised once, not once per question."""
    return _dumps({"type": "image_url", "image_url": {"url": image_data_url(image)}})


def encode_chat_body(request: Request, params: Mapping[str, Any]) -> bytes:
    """The UTF-8 JSON body of a chat-completions call: ``params`` plus
    ``"messages": build_messages(request)``, decoding to exactly that object.

    Built from cached per-image fragments (:func:`_image_part_json`) so that the image bytes
    are not walked by the JSON encoder for every question (benchmarks/throughput.py).
    """
    messages: list[str] = []
    if request.system:
        messages.append(_dumps({"role": "system", "content": request.system}))
    if request.images:
        parts = [_dumps({"type": "text", "text": request.prompt})]
        parts.extend(_image_part_json(img) for img in request.images)
        content = "[" + ",".join(parts) + "]"
    else:
        content = _dumps(request.prompt)
    messages.append('{"role":"user","content":' + content + "}")
    body = '"messages":[' + ",".join(messages) + "]"
    head = _dumps(dict(params))
    return (head[:-1] + ("," if len(head) > 2 else "") + body + "}").encode("utf-8")


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date)."""
    if not headers:
        return None
    lower = {str(k).lower(): str(v) for k, v in headers.items()}
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = lower.get(name)
        if value is None:
            continue
        try:
            seconds = float(value.strip()) / divisor
        except ValueError:
            if name == "retry-after-ms":
                continue
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError):
                continue
            seconds = when.timestamp() - (time.time() if now is None else now)
        if seconds == seconds and seconds >= 0:  # not NaN, not negative
            return seconds
        return 0.0
    return None


def _error_text(body: Any, fallback: str) -> tuple[str, str]:
    """(message, param) from an OpenAI-style error body, tolerant of odd shapes."""
    message, param = "", ""
    if isinstance(body, Mapping):
        err = body.get("error", body)
        if isinstance(err, Mapping):
            message = str(err.get("message") or "")
            param = str(err.get("param") or "")
        elif isinstance(err, str):
            message = err
    elif isinstance(body, str):
        message = body
    return (message or fallback), param


def classify_status(code: int, message: str, retry_after: float | None = None) -> ModelError:
    """Map an HTTP error status (and its message) to a socialbench model error."""
    text = f"HTTP {code}: {message}"[:_MAX_MESSAGE_CHARS]
    if code == 429:
        return RetryableModelError("rate_limit", text, retry_after=retry_after)
    if code == 529 or "overloaded" in message.lower():
        return RetryableModelError("overloaded", text, retry_after=retry_after)
    if code >= 500:
        return RetryableModelError("server_error", text, retry_after=retry_after)
    if code == 408:
        return RetryableModelError("timeout", text)
    if code in (401, 403):
        return FatalModelError("auth", text)
    if code == 404:
        return FatalModelError("not_found", text)
    return FatalModelError("bad_request", text)


def parse_completion(body: bytes | str) -> Generation:
    """Turn a chat-completions response body into a :class:`Generation` or raise."""
    try:
        data = json.loads(body)
        choice = data["choices"][0]
        message = choice["message"]
        if not isinstance(message, Mapping):
            raise TypeError("message is not an object")
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        snippet = text[:120].replace("\n", " ")
        raise RetryableModelError(
            "malformed_response", f"undecodable chat completion ({type(exc).__name__}): {snippet!r}"
        ) from None
    finish_reason = choice.get("finish_reason")
    refusal = message.get("refusal")
    if refusal or finish_reason == "content_filter":
        reason = str(refusal) if refusal else "finish_reason=content_filter"
        raise FatalModelError("refusal", reason[:_MAX_MESSAGE_CHARS])
    content = message.get("content")
    if isinstance(content, list):  # some servers return content parts
        content = "".join(
            str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text"
        )
    if content is None or not isinstance(content, str) or not content.strip():
        raise FatalModelError("empty_response", f"no content (finish_reason={finish_reason})")
    usage = data.get("usage") if isinstance(data, Mapping) else None
    usage = usage if isinstance(usage, Mapping) else {}
    return Generation(
        text=content,
        usage=Usage(
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
        ),
    )


class EndpointUnreachable(RetryableModelError):
    """A ``connection`` error raised before the request reached any server (the connection
    could not be opened), so sending it to another endpoint cannot answer it twice."""

    def __init__(self, message: str = "") -> None:
        super().__init__("connection", message)


class _ResponseFormatRejected(Exception):
    """Internal: the server answered 400 to ``response_format``."""


# --------------------------------------------------------------------------- the model


class OpenAICompatModel(LoopBoundClient):
    """A model served behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    cacheable = True
    needs_prompt = True

    def __init__(self, model: str, base_url: str | None = None, options: ModelOptions | None = None):
        options = options or ModelOptions()
        import openai  # noqa: F401  -- pay the SDK import here, not inside the first timed request

        warm_platform_probe()

        self.model = model
        self.base_url = base_url
        self.timeout_s = float(options.timeout_s)
        shown = public_url(base_url) if base_url else None
        self.spec = f"openai:{model}@{shown}" if shown else f"openai:{model}"
        key_env = options.get("api_key_env", DEFAULT_API_KEY_ENV) or DEFAULT_API_KEY_ENV
        key = os.environ.get(key_env)
        if not key:
            if base_url is None:
                raise UsageError(
                    f"model {self.spec!r} needs an API key: export {key_env}=... "
                    f"(or give a local server, e.g. openai:{model}@http://localhost:8000/v1, "
                    "or choose the variable with --model-opt api_key_env=NAME)"
                )
            key = LOCAL_PLACEHOLDER_KEY
        self._api_key = key
        self._endpoint = public_url(base_url or os.environ.get("OPENAI_BASE_URL") or "default")
        self._response_format_ok = True

    def __repr__(self) -> str:
        return f"OpenAICompatModel(model={self.model!r}, base_url={self.base_url!r})"

    def identity(self) -> str:
        return f"openai|{self.model}|{self._endpoint}"

    @property
    def response_format_supported(self) -> bool:
        """False once the server has rejected ``response_format`` for this instance."""
        return self._response_format_ok

    def _get_client(self) -> "openai.AsyncOpenAI":
        def make() -> "openai.AsyncOpenAI":
            import openai

            return openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self.base_url,
                timeout=self.timeout_s,
                max_retries=0,
                # The SDK's aiohttp transport: its connection pool does far less work per
                # request than the default one at high concurrency (benchmarks/throughput.py).
                http_client=openai.DefaultAioHttpClient(timeout=self.timeout_s),
            )

        return self._loop_client(make)

    def _redact(self, text: str) -> str:
        if self._api_key and self._api_key != LOCAL_PLACEHOLDER_KEY and len(self._api_key) >= 4:
            text = text.replace(self._api_key, "***")
        return text

    async def generate(self, request: Request) -> Generation:
        cfg = request.config
        params: dict[str, Any] = {
            "model": self.model,
            "temperature": cfg.temperature,
            "max_tokens": cfg.max_tokens,
        }
        if cfg.seed is not None:
            params["seed"] = cfg.seed
        if cfg.json_mode and self._response_format_ok:
            try:
                return await self._send(encode_chat_body(request, {**params, "response_format": {"type": "json_object"}}))
            except _ResponseFormatRejected:
                if self._response_format_ok:
                    self._response_format_ok = False
                    log.info(
                        "%s rejected response_format=json_object; sending requests without it",
                        self.spec,
                    )
        return await self._send(encode_chat_body(request, params), json_mode=False)

    async def _send(self, body: bytes, json_mode: bool = True) -> Generation:
        """Post a ready JSON ``body``; ``json_mode`` says it asks for ``response_format``."""
        import openai

        client = self._get_client()
        try:
            # The body is posted as ready bytes through the SDK's generic request path (its
            # auth, headers, timeout and error handling) instead of through
            # ``chat.completions.create``, which walks every content part against its
            # TypedDicts and JSON-encodes every image again for every question — most of the
            # client's CPU per request with ten images (benchmarks/throughput.py). The reply is
            # decoded from its bytes by ``parse_completion``.
            reply = await client.post("/chat/completions", cast_to=bytes, content=body)
        except openai.APIStatusError as exc:
            message, param = _error_text(exc.body, exc.message)
            message = self._redact(message)
            code = exc.status_code
            if (
                code == 400
                and json_mode
                and ("response_format" in message.lower() or param == "response_format")
            ):
                raise _ResponseFormatRejected() from None
            raise classify_status(code, message, parse_retry_after(exc.response.headers)) from None
        except openai.APITimeoutError as exc:
            cause = exc.__cause__
            if type(cause).__name__ == "ConnectTimeout":
                # Nothing was sent. The aiohttp transport also reports a refused connection
                # this way, so treat it as an unreachable endpoint, not a slow model.
                message = self._redact(f"{type(cause).__name__}: {cause}")[:_MAX_MESSAGE_CHARS]
                raise EndpointUnreachable(message) from None
            raise RetryableModelError("timeout", f"no answer within {self.timeout_s:g} s") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            message = self._redact(f"{type(cause).__name__}: {cause}")[:_MAX_MESSAGE_CHARS]
            if type(cause).__name__ == "ConnectError":  # httpx / httpx2: nothing was sent
                raise EndpointUnreachable(message) from None
            raise RetryableModelError("connection", message) from None
        except openai.APIResponseValidationError as exc:
            raise RetryableModelError(
                "malformed_response", self._redact(str(exc))[:_MAX_MESSAGE_CHARS]
            ) from None
        return parse_completion(reply)


@register(
    "openai",
    summary="Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, SGLang, Ollama, LM Studio); "
    "several URLs spread the load (options: api_key_env, endpoints_file, per_endpoint_concurrency, cooldown_s)",
    example="openai:Qwen/Qwen2.5-VL-7B-Instruct@http://localhost:8000/v1",
)
def create_openai_model(rest: str, options: ModelOptions) -> "OpenAICompatModel | MultiEndpointModel":
    """OpenAI-compatible chat-completions endpoint: ``openai:MODEL[@URL1[,URL2,...]]``.

    One URL and no pool options give an :class:`OpenAICompatModel`; several URLs,
    ``--model-opt endpoints_file=PATH`` or ``--model-opt per_endpoint_concurrency=N`` give a
    :class:`socialbench.models.endpoints.MultiEndpointModel`.
    """
    model, base_url = parse_spec(rest)
    pooled = options.get("endpoints_file") or options.get("per_endpoint_concurrency")
    if base_url is not None and ("," in base_url or pooled) or (base_url is None and pooled):
        from socialbench.models.endpoints import create_pool_model, split_urls

        return create_pool_model(model, split_urls(base_url or ""), options)
    return OpenAICompatModel(model, base_url, options)
