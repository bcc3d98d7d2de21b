"""OpenAI-compatible chat-completions backend: OpenAI, vLLM, SGLang, Ollama, LM Studio, ...

Spec: ``openai:MODEL[@BASE_URL]``; the model name may contain ``/`` and ``:``, and the base
URL starts at the last ``@`` followed by ``http://`` or ``https://`` (several comma-separated
URLs: :mod:`socialbench.models.openai_factory`). The key comes from ``api_key_env`` (default
``OPENAI_API_KEY``; a local server gets ``EMPTY`` when it is unset). A base URL's user info
is sent as HTTP Basic auth and its query with every request; neither is ever shown
(:mod:`socialbench.models.redact`). The model never retries: every failure is a
:class:`RetryableModelError` or :class:`FatalModelError` of a stable kind. See
docs/models.md, "OpenAI" and the rules all backends share.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from socialbench.errors import UsageError
from socialbench.models.base import (
    FatalModelError,
    LoopBoundClient,
    ModelError,
    RetryableModelError,
)
from socialbench.models.chat_stream import assemble_stream
from socialbench.models.error_body import ErrorInfo, error_info
from socialbench.models.openai_body import encode_chat_body
from socialbench.models.openai_images_check import ImagesCheck, not_known, probe_body, verdict
from socialbench.models.openai_refusals import (
    ADAPTABLE_FIELDS,
    REFUSAL_CODES,
    refuses_json_mode,
    rejected_field,
    stream_refusal,
)
from socialbench.models.redact import install_log_redaction, redact, redact_url, scrub, secret_digest, url_secrets
from socialbench.models.registry import ModelOptions
from socialbench.models.retry_after import (
    parse_retry_after as parse_retry_after,  # re-exported: anthropic_messages uses it
)
from socialbench.types import Generation, Request, Usage

log = logging.getLogger(__name__)

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
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
        model, base_url = rest[:at], rest[at + 1 :].strip().rstrip("/")
    else:
        model, base_url = rest, None
    if not model.strip():
        raise UsageError(
            f"model spec 'openai:{redact(rest)}' has no model name; "
            "use openai:MODEL or openai:MODEL@http://HOST:PORT/v1 "
            "(e.g. openai:gpt-4o, openai:Qwen/Qwen2.5-VL-7B-Instruct@http://localhost:8000/v1)"
        )
    if base_url is None:
        _refuse_unusable_at(model.strip(), rest)
    for url in (base_url or "").split(","):
        problem = url_problem(url.strip()) if url.strip() else None
        if problem is not None:
            raise UsageError(f"model spec 'openai:{redact(rest)}': {redact_url(url.strip())!r} {problem}")
    return model.strip(), base_url


def url_problem(url: str) -> str | None:
    """What is wrong with the base URL ``url`` as a place to send requests, with the fix, or
    None: no host (``http://``), a port that is no number from 1 to 65535 (``:99999``,
    ``:abc``, ``:0``), a space inside it, an unparseable one (an unclosed IPv6 bracket).
    Found before the first request: these fail every connection, never reaching a server.

    >>> url_problem("http://localhost:99999/v1")
    "has port 99999, which is no port (1-65535); write the server's port, e.g. http://localhost:8000/v1"
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname
        port_text = parts.netloc.rpartition("@")[2].rpartition("]")[2].partition(":")[2]
    except ValueError as exc:  # e.g. an unclosed IPv6 bracket
        return f"is not a URL ({exc}); write it as http://HOST:PORT/v1"
    shown_host = (f"[{host}]" if ":" in host else host) if host else "localhost"
    if any(c.isspace() for c in url.strip()):
        return f"holds a space; write the URL without it: {redact_url(''.join(url.split()))}"
    if not host:
        return "names no host; write the server's URL in full, e.g. http://localhost:8000/v1"
    if port_text:
        port = int(port_text) if port_text.isdigit() else None
        if port is None or not 1 <= port <= 65535:
            return (
                f"has port {port_text}, which is no port (1-65535); write the server's port, "
                f"e.g. {parts.scheme}://{shown_host}:8000{parts.path or '/v1'}"
            )
    return None


def _refuse_unusable_at(model: str, rest: str) -> None:
    """Refuse a spec whose part after ``@`` is meant as a URL but cannot be one: another scheme
    (``ftp://``) or a space before ``http://``. Such a spec has no base URL, so the whole of it
    would otherwise go to the default server (OpenAI's, with an API key) as the model's name."""
    name, at, word = model.rpartition("@")
    if not at or not name:
        return
    stripped = word.strip()
    if stripped != word and stripped.startswith(("http://", "https://")):
        raise UsageError(
            f"model spec 'openai:{redact(rest)}': a space stands between '@' and the URL; "
            f"write it without, e.g. openai:{name.strip()}@{redact_url(stripped)}"
        )
    scheme, sep, after = stripped.partition("://")
    if sep and scheme and scheme.lower() not in ("http", "https"):
        raise UsageError(
            f"model spec 'openai:{redact(rest)}': {scheme}:// is not a scheme socialbench speaks; "
            f"a base URL starts with http:// or https://, e.g. openai:{name.strip()}@http://{redact_url(after)}"
        )


def _not_a_url_hint(model: str) -> str:
    """For a model name ``NAME@WORD`` given without a base URL: the sentence that says ``WORD``
    was not read as a URL (a base URL starts with http:// or https://), else ''."""
    name, at, word = model.rpartition("@")
    if not at or not name or not word:
        return ""
    example = f"http://{word}" if (":" in word or "/" in word) else f"http://{word}:8000"
    if "/" not in word:
        example += "/v1"
    return (
        f"{word!r} after '@' is not a URL, so it was read as part of the model name"
        f" (a base URL starts with http:// or https://, e.g. openai:{name}@{example}); "
    )


@dataclass(frozen=True)
class BaseURL:
    """A base URL split into what an HTTP client sends where.

    ``url`` is ``scheme://host[:port]/path``; ``query`` holds the URL's query parameters
    (sent with every request, as Azure-style ``?api-version=`` or ``?api-key=`` endpoints
    expect); ``basic_auth`` is the ``Authorization`` header value (``Basic ...``) built from
    the URL's user info, or None. The fragment is dropped (clients never send it).
    """

    url: str
    query: dict[str, str]
    basic_auth: str | None


def split_base_url(url: str) -> BaseURL:
    """Take the credentials and the query out of a base URL.

    >>> b = split_base_url("http://bob:p%40ss@host:8000/v1?api-version=2")
    >>> (b.url, b.query, b.basic_auth)
    ('http://host:8000/v1', {'api-version': '2'}, 'Basic Ym9iOnBAc3M=')
    """
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return BaseURL(url, {}, None)
    userinfo, at, hostport = parts.netloc.rpartition("@")
    basic = None
    if at:
        user, _, password = userinfo.partition(":")
        pair = f"{unquote(user)}:{unquote(password)}".encode()
        basic = "Basic " + base64.b64encode(pair).decode("ascii")
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    return BaseURL(urlunsplit((parts.scheme, hostport, parts.path, "", "")), query, basic)


def is_json_text(text: str) -> bool:
    """Whether ``text`` is one JSON value (what JSON mode promises), markdown fences allowed.

    >>> [is_json_text(t) for t in ('{"answer": "left"}', '```json\\n{"a": 1}\\n```', 'left')]
    [True, True, False]
    """
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


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


def usage_count(value: object) -> int:
    """A token count from a reply's ``usage`` field, 0 (unknown) when it is missing or not a
    non-negative whole number (``"n/a"``, ``null``, ``-1``, ``1.5``, ``true``, an object).

    Usage is informational: a reply whose answer is fine is never discarded over it.

    >>> [usage_count(v) for v in (12, "12", 12.0, "n/a", None, -3, 1.5, True, [1])]
    [12, 12, 12, 0, 0, 0, 0, 0, 0]
    """
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value if value >= 0 else 0
    if isinstance(value, float):
        return int(value) if value.is_integer() and value >= 0 else 0
    text = value.strip() if isinstance(value, str) else ""
    if text.isascii() and text.isdigit() and len(text) <= 18:  # int() refuses very long digit strings
        return int(text)
    return 0


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
    ended = finish_reason if isinstance(finish_reason, str) else None
    usage = reply_usage(data)
    refusal = message.get("refusal")
    if refusal or finish_reason == "content_filter":
        reason = str(refusal) if refusal else "finish_reason=content_filter"
        raise FatalModelError("refusal", reason[:_MAX_MESSAGE_CHARS], usage=usage, finish_reason=ended)
    content = message.get("content")
    if isinstance(content, list):  # some servers return content parts
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text")
    # the reasoning a server shows apart from the answer (vLLM's and DeepSeek's
    # ``reasoning_content``, OpenRouter's ``reasoning``): kept in the record, never parsed
    shown = message.get("reasoning_content", message.get("reasoning"))
    reasoning = shown if isinstance(shown, str) and shown.strip() else None
    if content is None or not isinstance(content, str) or not content.strip():
        raise FatalModelError(
            "empty_response", _empty_reason(ended, reasoning, usage), usage=usage, finish_reason=ended
        )
    return Generation(text=content, usage=usage, reasoning=reasoning, finish_reason=ended)


def reply_usage(data: object) -> Usage:
    """The token counts of a chat-completion object's ``usage`` (zeros where it has none)."""
    usage = data.get("usage") if isinstance(data, Mapping) else None
    usage = usage if isinstance(usage, Mapping) else {}
    details = usage.get("completion_tokens_details")
    details = details if isinstance(details, Mapping) else {}
    return Usage(
        prompt_tokens=usage_count(usage.get("prompt_tokens")),
        completion_tokens=usage_count(usage.get("completion_tokens")),
        reasoning_tokens=usage_count(details.get("reasoning_tokens")),
    )


def _empty_reason(finish_reason: str | None, reasoning: str | None, usage: Usage) -> str:
    """Why a reply has no answer text, and the fix when there is one: a reply cut off at
    the token limit (a reasoning model that spent it all thinking) needs a larger
    ``--max-tokens``; running it again fails the same way."""
    if finish_reason != "length":
        return f"no content (finish_reason={finish_reason})"
    where = "inside its reasoning" if reasoning is not None or usage.reasoning_tokens else "before any answer"
    spent = f"; {usage.completion_tokens} completion tokens" if usage.completion_tokens else ""
    thought = f", {usage.reasoning_tokens} of them reasoning" if usage.reasoning_tokens and spent else ""
    return (
        f"the reply ended {where} at the token limit (finish_reason=length{spent}{thought}): "
        "raise --max-tokens (or lower --reasoning-effort)"
    )


class EndpointUnreachable(RetryableModelError):
    """A ``connection`` error raised before the request reached any server (the connection
    could not be opened), so sending it to another endpoint cannot answer it twice."""

    def __init__(self, message: str = "") -> None:
        super().__init__("connection", message)


class _Refused(Exception):
    """Internal: the server refused ``field`` of the request with HTTP ``status``."""

    def __init__(self, field: str, status: int, info: ErrorInfo) -> None:
        super().__init__(field)
        self.field = field
        self.status = status
        self.info = info


class _StreamRefused(_Refused):
    """``stream`` or ``stream_options`` refused (:func:`stream_refusal`)."""


class _ResponseFormatRejected(_Refused):
    """``response_format`` refused (:func:`refuses_json_mode`)."""


class _FieldRejected(_Refused):
    """A 400 (or 422) naming a generation field the request carried."""


class _StreamEmpty(Exception):
    """Internal: a streamed reply that the server answered (200) with no content, no
    refusal, no reasoning and no usage: a server (LiteLLM in front of an upstream that
    ignores ``stream``) re-wrapped a whole reply as events and lost it on the way."""

    def __init__(self, events: int, finish_reason: object) -> None:
        super().__init__(f"{events} events")
        self.events = events
        self.finish_reason = finish_reason


#: Message fields in which a server shows the reasoning apart from the answer.
_SHOWN = ("reasoning_content", "reasoning")


def stream_lost_reply(completion: Mapping[str, Any]) -> bool:
    """Whether a streamed reply put back together (:func:`assemble_stream`) carries nothing
    at all: no ``usage`` and a message with no content, refusal or reasoning text. A model
    that answers nothing still counts its tokens (with ``include_usage``), so a reply with
    usage is the model's; one without it is the transport's loss.

    >>> stream_lost_reply({"choices": [{"message": {"role": "assistant", "content": None}}]})
    True
    >>> stream_lost_reply({"choices": [{"message": {"content": ""}}], "usage": {"completion_tokens": 3}})
    False
    """
    if isinstance(completion.get("usage"), Mapping):
        return False
    message = completion["choices"][0]["message"]
    return not any(isinstance(message.get(name), str) and message[name] for name in ("content", "refusal", *_SHOWN))


# --------------------------------------------------------------------------- the model


class OpenAICompatModel(LoopBoundClient):
    """A model served behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    cacheable = True
    needs_prompt = True

    def __init__(self, model: str, base_url: str | None = None, options: ModelOptions | None = None):
        options = options or ModelOptions()

        self.model = model
        self.timeout_s = float(options.timeout_s)
        install_log_redaction()  # the HTTP libraries log request URLs, query included
        target_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        if base_url is None and target_url is not None:
            problem = url_problem(target_url.strip())
            if problem is not None:
                raise UsageError(f"OPENAI_BASE_URL {redact_url(target_url)!r} {problem}")
        try:
            #: Where requests go, with the URL's user info and query taken out (sent as
            #: HTTP Basic auth and as query parameters of every request).
            self._target = split_base_url(target_url) if target_url else None
        except ValueError as exc:
            raise UsageError(
                f"model spec 'openai:{model}@{redact_url(target_url or '')}' has a malformed base URL "
                f"({exc}); write it as http://HOST:PORT/v1"
            ) from None
        #: The base URL without credentials or query (what ``repr`` and records show).
        self.base_url = split_base_url(base_url).url if base_url else None
        shown = self.base_url
        self.spec = f"openai:{model}@{shown}" if shown else f"openai:{model}"
        key_env = options.get("api_key_env", DEFAULT_API_KEY_ENV) or DEFAULT_API_KEY_ENV
        key = os.environ.get(key_env)
        if not key:
            if base_url is None:
                hint = _not_a_url_hint(model)
                local = model.rpartition("@")[0] if hint else model
                raise UsageError(
                    f"{hint}model {self.spec!r} needs an API key: export {key_env}=... "
                    f"(or give a local server, e.g. openai:{local}@http://localhost:8000/v1, "
                    "or choose the variable with --model-opt api_key_env=NAME)"
                )
            key = LOCAL_PLACEHOLDER_KEY
        self._api_key = key
        self._secrets = url_secrets(target_url) if target_url else []
        self._target_url = target_url
        #: ``--model-opt json_mode=false``: never send ``response_format``.
        self.json_mode_allowed = options.get_flag("json_mode", default=True)
        self._response_format_ok = True
        #: Requests sent with and without ``response_format``, and replies to the former
        #: that were not JSON (the server ignored it): run.json's ``json_mode_sent``.
        self._json_counts = {"with_response_format": 0, "without_response_format": 0, "replies_not_json": 0}
        #: ``--model-opt send_seed=true``: send the run's seed (the papers send none).
        self.send_seed = options.get_flag("send_seed")
        #: What the server's refusals changed: the token limit's name, fields no longer sent.
        self._token_field = "max_tokens"
        self._dropped: set[str] = set()
        self._adapted: dict[str, str] = {}
        #: Replies come streamed (``--model-opt stream=false``: never) so that an attempt
        #: given up on frees the server (docs/models.md); refusals turn it off (:meth:`_stop_streaming`).
        self._stream = options.get_flag("stream", default=True)
        self._stream_usage = True
        #: Seconds to the first byte of a reply, or None: only ``timeout_s`` applies.
        self.first_byte_timeout_s = options.first_byte_timeout_s
        #: ``--model-opt check_images=false``: send no probe of whether the images were seen
        #: (:mod:`socialbench.models.openai_images_check`).
        self.check_images = options.get_flag("check_images", default=True)
        self._images_check: ImagesCheck | None = None
        self._probe_task: asyncio.Task[None] | None = None
        #: Answered requests with images whose reply reported no prompt_tokens.
        self._image_replies_without_usage = 0
        #: POSTs sent beside each attempt's own (the engine counts those): requests the
        #: server refused and that were sent again adapted, and streamed requests sent again
        #: without streaming because the stream lost the reply (run.json's ``requests_by_cause``).
        self._extra_posts = {"refusals_learned": 0, "stream_fallbacks": 0}

    def __repr__(self) -> str:
        return f"OpenAICompatModel(model={self.model!r}, base_url={self.base_url!r})"

    def adaptations(self) -> dict[str, str]:
        """Each request field this backend changed because the server refused it, with what
        was done and the server's words (run.json's ``generation_adapted``); empty when the
        server took every setting as asked."""
        return dict(self._adapted)

    def identity(self) -> str:
        """``openai|MODEL|URL``: the URL with its credentials and query values masked and,
        when it has any, a salted hash of them (URLs differing only there differ here)."""
        no_json = "" if self.json_mode_allowed else "|no-json-mode"
        if self._target_url is None:
            return f"openai|{self.model}|default" + ("|seed" if self.send_seed else "") + no_json
        # The query and user info select the endpoint too (deployment, key, account): they
        # enter the identity as a salted hash (slow to compute, so only when asked), never as text.
        digest = secret_digest(self._target_url)
        return f"openai|{self.model}|{redact_url(self._target_url)}" + (f"|{digest}" if digest else "") + no_json

    def extra_requests(self) -> dict[str, int]:
        """The POSTs this backend sent beyond one per engine attempt, by cause:
        ``refusals_learned`` (refused requests sent again without the refused setting) and
        ``stream_fallbacks`` (streamed requests whose stream lost the reply, sent again
        without streaming). The images probe is counted apart (:meth:`images_check`)."""
        return dict(self._extra_posts)

    def json_mode_sent(self) -> dict[str, int]:
        """run.json's ``json_mode_sent``: requests sent ``with_response_format`` and
        ``without_response_format`` (each send counts), and ``replies_not_json`` to the former."""
        return dict(self._json_counts)

    def _get_client(self) -> Any:
        """This event loop's aiohttp session (no SDK: see :mod:`socialbench.models.http_post`)."""
        from socialbench.models.http_post import new_session

        return self._loop_client(new_session)

    def _request_target(self) -> tuple[str, dict[str, str], dict[str, str] | None]:
        """(URL, headers, query) of every chat-completions POST. A URL's user info becomes
        HTTP Basic auth in place of the bearer key (one Authorization header holds one of
        them); its query goes with every request."""
        target = self._target
        base = target.url.rstrip("/") if target else DEFAULT_BASE_URL
        auth = target.basic_auth if target and target.basic_auth else f"Bearer {self._api_key}"
        headers = {"Authorization": auth, "Content-Type": "application/json", "Accept": "application/json"}
        return base + "/chat/completions", headers, (target.query or None) if target else None

    def _redact(self, text: str) -> str:
        """``text`` without the API key, the base URL's credentials or any URL's secrets."""
        secrets = list(self._secrets)
        if self._api_key and self._api_key != LOCAL_PLACEHOLDER_KEY:
            secrets.append(self._api_key)
        return scrub(text, secrets)

    def chat_params(self, request: Request) -> dict[str, object]:
        """The fields of the chat-completions body besides ``messages`` and
        ``response_format``: the model and each generation setting the request sets (an
        unset one is not sent: the server's default applies), under the names the server
        takes and without the ones it refused (:meth:`generate`)."""
        cfg = request.config
        params: dict[str, object] = {"model": self.model}
        wanted: list[tuple[str, object]] = [
            ("temperature", cfg.temperature),
            ("top_p", cfg.top_p),
            (self._token_field, cfg.max_tokens),
            ("reasoning_effort", cfg.reasoning_effort),
            ("seed", cfg.seed if self.send_seed else None),
        ]
        for name, value in wanted:
            if value is not None and name not in self._dropped:
                params[name] = value
        return params

    def _transport_params(self) -> dict[str, object]:
        """``stream`` and ``stream_options`` as this model sends them now: transport, not
        generation, the reply is the same (chat_stream.py); none once the server refused them."""
        if not self._stream:
            return {}
        if self._stream_usage:
            return {"stream": True, "stream_options": {"include_usage": True}}
        return {"stream": True}

    async def generate(self, request: Request) -> Generation:
        """Send the request; adapt to what the server refuses, then send again.

        A 400 (or FastAPI's 422) naming a generation field the request carried changes what
        is sent from then on (:meth:`_adapt`: ``max_tokens`` as ``max_completion_tokens``,
        other fields left out); a refused ``response_format`` turns JSON mode off, a refused
        ``stream``/``stream_options`` stops sending it. Each change is logged once and kept
        for run.json (:meth:`adaptations`). Anything else, and a refusal whose code says the
        value is wrong (OpenAI's ``invalid_value``), is ``bad_request``.
        """
        cfg = request.config
        for _ in range(len(ADAPTABLE_FIELDS) + 3):  # each field adapts at most once
            params = self.chat_params(request)
            if cfg.json_mode and not self.json_mode_allowed and "response_format" not in self._adapted:
                self._adapted["response_format"] = "not sent (JSON mode off by --model-opt json_mode=false)"
            json_mode = cfg.json_mode and self.json_mode_allowed and self._response_format_ok
            if json_mode:
                params["response_format"] = {"type": "json_object"}
            params.update(self._transport_params())
            self._json_counts["with_response_format" if json_mode else "without_response_format"] += 1
            try:
                gen = await self._send(encode_chat_body(request, params), json_mode=json_mode, sent=params)
            except _ResponseFormatRejected as exc:
                if self._response_format_ok:
                    self._response_format_ok = False
                    because = f"HTTP {exc.status}: {exc.info.message}"[:_MAX_MESSAGE_CHARS]
                    self._adapted["response_format"] = f"not sent (JSON mode off); {because}"
                    log.warning(
                        "%s refused response_format=json_object; sending requests without it (%s)",
                        self.spec,
                        because,
                    )
                self._extra_posts["refusals_learned"] += 1
                continue
            except _FieldRejected as exc:
                if not self._adapt(exc.field, exc.status, exc.info, params):
                    raise classify_status(exc.status, exc.info.message) from None
                self._extra_posts["refusals_learned"] += 1
                continue
            except _StreamRefused as exc:
                self._stop_streaming(exc.field, exc.status, exc.info)
                self._extra_posts["refusals_learned"] += 1
                continue
            except _StreamEmpty as exc:
                self._stream_lost(exc)
                self._extra_posts["stream_fallbacks"] += 1
                continue
            if json_mode and not is_json_text(gen.text):
                self._json_counts["replies_not_json"] += 1
            self._after_answer(request, gen)
            return gen
        raise FatalModelError("bad_request", f"{self.spec}: the server kept refusing the adapted request")

    def images_check(self) -> ImagesCheck | None:
        """Whether the server saw the images of this model's requests (run.json's
        ``images_seen`` and ``images_check``): the probe's finding; ``images_seen: null``
        with the reason when it was not checked (``check_images=false``), the replies
        reported no prompt tokens, or the probe failed; None when no request with images
        was answered (nothing to say)."""
        if not self.check_images:
            return not_known("not checked (--model-opt check_images=false)")
        if self._images_check is None and self._image_replies_without_usage:
            return not_known(
                f"unknown: {self._image_replies_without_usage} replies to requests with images "
                "reported no usage.prompt_tokens"
            )
        return self._images_check

    def _after_answer(self, request: Request, gen: Generation) -> None:
        """After the first answered request with images whose reply counts its prompt
        tokens, start the one images probe (:meth:`_probe`) beside the run's requests."""
        if not request.images or not self.check_images or self._probe_task is not None:
            return
        if gen.usage.prompt_tokens <= 0:
            self._image_replies_without_usage += 1
            return
        self._probe_task = asyncio.get_running_loop().create_task(self._probe(request, gen.usage.prompt_tokens))

    async def _probe(self, request: Request, with_images: int) -> None:
        """Send ``request``'s messages without its images, for 1 token and no
        ``response_format`` (streamed as the run's requests are), and compare the prompt tokens (:func:`verdict`). A refused
        token limit is sent under the other name, then not at all; any failure is recorded
        as the finding's reason (logged), never raised: the probe is not a sample."""
        from socialbench.models.http_post import post_bytes

        url, headers, query = self._request_target()
        token_field: str | None = None if self._token_field in self._dropped else self._token_field
        sent = 0
        try:
            while True:
                params: dict[str, object] = {"model": self.model}
                if token_field is not None:
                    params[token_field] = 1
                params.update(self._transport_params())  # as the run's: a probe given up on frees the server
                sent += 1
                reply = await post_bytes(
                    self._get_client(),
                    url,
                    probe_body(request, params),
                    headers,
                    query,
                    self.timeout_s,
                    first_byte_s=self.first_byte_timeout_s,
                    stream=self._stream,
                )
                if reply.status < 400:
                    break
                info = error_info(reply.json_or_text(), "(the error reply has no body)")
                if token_field is not None and rejected_field(info) == token_field:
                    token_field = "max_completion_tokens" if token_field == "max_tokens" else None
                    continue
                raise classify_status(reply.status, self._redact(info.message))
            data = assemble_stream(reply.events) if reply.events is not None else json.loads(reply.body)
            usage = data.get("usage") if isinstance(data, Mapping) else None
            without = usage_count(usage.get("prompt_tokens")) if isinstance(usage, Mapping) else 0
        except asyncio.CancelledError:
            self._images_check = not_known("unknown: the images probe did not finish before the run ended", sent)
            raise
        except Exception as exc:  # recorded as the finding: the probe never fails the run
            reason = f"unknown: the images probe failed ({type(exc).__name__}: {self._redact(str(exc))})"
            self._images_check = not_known(reason[:_MAX_MESSAGE_CHARS], sent)
            log.warning("%s: %s", self.spec, self._images_check["reason"])
            return
        if without <= 0:
            self._images_check = not_known("unknown: the images probe's reply reported no usage.prompt_tokens", sent)
            return
        self._images_check = verdict(len(request.images), with_images, without, sent)
        if not self._images_check["images_seen"]:
            log.warning(
                "%s did not see the images: a request with %d image(s) counted %d prompt tokens, the same "
                "messages without them %d; the answers were made without seeing the images (a text-only "
                "model?). run.json records images_seen: false",
                self.spec,
                len(request.images),
                with_images,
                without,
            )

    async def aclose(self) -> None:
        """Wait for the images probe (bounded by its own timeout), then close the client."""
        task = self._probe_task  # kept: one probe per model object, however many loops serve it
        try:
            if task is not None and not task.done():
                await task
        except RuntimeError:  # created on a loop that is already closed
            pass
        finally:  # the client is closed even when the wait is cancelled (a second Ctrl-C)
            await super().aclose()

    def _stop_streaming(self, field: str, status: int, info: ErrorInfo) -> None:
        """The server refused ``field`` (``stream`` or ``stream_options``): send without it
        from now on; logged and recorded once (concurrent refusals only send again)."""
        if field == "stream_options" and self._stream_usage:
            self._stream_usage = False
            done = "not sent (streamed replies may then carry no token counts)"
        elif field == "stream" and self._stream:
            self._stream = False
            done = "not sent (replies come whole; a timed-out request may keep running at the server)"
        else:
            return
        because = f"HTTP {status}: {info.message}"[:_MAX_MESSAGE_CHARS]
        self._adapted[field] = f"{done}; {because}"
        log.warning("%s: the server refused %s; from now on %s (%s)", self.spec, field, done, because)

    def _stream_lost(self, exc: _StreamEmpty) -> None:
        """A streamed reply came back with nothing in it (:func:`stream_lost_reply`): stop
        streaming for the rest of the run, as a refused ``stream`` does; logged and recorded
        once (concurrent ones only send again)."""
        if not self._stream:
            return
        self._stream = False
        because = (
            f"a streamed reply (HTTP 200, {exc.events} events, finish_reason={exc.finish_reason}) carried no "
            "content and no usage: the server (a proxy such as LiteLLM in front of a server that ignores "
            "stream?) lost the reply while re-streaming it"
        )
        done = "not sent (replies come whole; a timed-out request may keep running at the server)"
        self._adapted["stream"] = f"{done}; {because}"[: 2 * _MAX_MESSAGE_CHARS]
        log.warning(
            "%s: %s; sending requests without streaming from now on, as --model-opt stream=false does",
            self.spec,
            because,
        )

    def _adapt(self, field: str, status: int, info: ErrorInfo, sent: Mapping[str, object]) -> bool:
        """Change what is sent after the server refused ``field`` of ``sent`` (True), or
        say that nothing can be changed (False). Concurrent requests refused for the same
        field adapt once; the others only send again."""
        if field == "max_tokens" and self._token_field == "max_tokens":
            self._token_field = "max_completion_tokens"
            done = "sent as max_completion_tokens"
        elif (
            field == "max_tokens"
            or (field in sent and field in self._dropped)
            or (field == "max_completion_tokens" and self._token_field == "max_tokens")
        ):
            return True  # another request adapted already
        elif field in ADAPTABLE_FIELDS and field not in self._dropped:
            self._dropped.add(field)
            done = f"not sent ({sent[field]!r} refused, the server's default applies)"
        else:
            return False
        because = f"HTTP {status}{' ' + info.code if info.code else ''}: {info.message}"[:_MAX_MESSAGE_CHARS]
        self._adapted[field] = f"{done}; {because}"
        log.warning("%s: the server refused %s; from now on %s (%s)", self.spec, field, done, because)
        return True

    async def _send(self, body: bytes, json_mode: bool = True, sent: Mapping[str, object] | None = None) -> Generation:
        """Post a ready JSON ``body`` over aiohttp (:mod:`socialbench.models.http_post`);
        ``json_mode`` says it asks for ``response_format``; ``sent`` holds its fields besides
        ``messages`` (a refusal of one raises a :class:`_Refused` for :meth:`generate`)."""
        from socialbench.models.http_post import Unreachable, post_bytes

        url, headers, query = self._request_target()
        try:
            reply = await post_bytes(
                self._get_client(),
                url,
                body,
                headers,
                query,
                self.timeout_s,
                first_byte_s=self.first_byte_timeout_s,
                stream=bool(sent and sent.get("stream")),
            )
        except Unreachable as exc:
            raise EndpointUnreachable(self._redact(str(exc))[:_MAX_MESSAGE_CHARS]) from None
        except RetryableModelError as exc:
            raise RetryableModelError(exc.kind, self._redact(exc.message)) from None
        if reply.status >= 400:
            info = error_info(reply.json_or_text(), "(the error reply has no body)")
            message, code = self._redact(info.message), reply.status
            shown = ErrorInfo(message, info.param, info.code)
            if json_mode and refuses_json_mode(code, shown):
                raise _ResponseFormatRejected("response_format", code, shown) from None
            refused = stream_refusal(code, shown) if sent and sent.get("stream") else ""
            if refused:
                raise _StreamRefused(refused, code, shown) from None
            # an error that names its code adapts only when the code says "not supported"
            # (an OpenAI invalid_value, such as a max_tokens above the model's limit, is the
            # run's to fix); servers without string codes (Gemini) are read by field name
            refusable = not info.code or info.code in REFUSAL_CODES
            # 422: FastAPI's validation status (pydantic's ``extra_forbidden`` detail list)
            field = rejected_field(info) if code in (400, 422) and sent is not None and refusable else ""
            if sent is not None and field in ADAPTABLE_FIELDS and field in sent:
                raise _FieldRejected(field, code, ErrorInfo(message, field, info.code)) from None
            raise classify_status(code, message, parse_retry_after(reply.headers)) from None
        if reply.events is not None:  # streamed: put the chunks back together
            completion = assemble_stream(reply.events)
            # "no usage" tells a lost stream from an empty answer only when usage was asked for
            asked_usage = bool(sent and isinstance(sent.get("stream_options"), Mapping))
            if asked_usage and stream_lost_reply(completion):
                raise _StreamEmpty(len(reply.events), completion["choices"][0].get("finish_reason"))
            return parse_completion(json.dumps(completion))
        return parse_completion(reply.body)
