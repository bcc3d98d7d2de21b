"""Anthropic Messages API backend: ``anthropic:MODEL`` (official ``anthropic`` SDK).

One user message holds the prompt text and the images as base64 ``image`` blocks;
``Request.system`` goes in ``system``. The key comes from ``api_key_env`` (default
``ANTHROPIC_API_KEY``) and never appears in the spec, the identity, ``repr`` or errors. A
400 refusing a sampling setting (:func:`~socialbench.models.anthropic_request.refused_setting`)
drops it and sends again, and so do a model that takes only adaptive thinking, one that
cannot turn thinking off, a ``max_tokens`` above the model's output limit and a refused
``output_config.effort`` (:func:`~socialbench.models.anthropic_request.refusal_lesson`):
learnt once per run, recorded in ``generation_adapted``. Thinking's rules are applied by
:func:`~socialbench.models.anthropic_request.build_params`. A request that may generate
for longer than the timeout is streamed (:func:`~socialbench.models.anthropic_request.should_stream`),
so that it is never abandoned (and billed) mid-generation and sent again. The model never
retries (``max_retries=0``); failures carry the OpenAI backend's kinds. JSON mode: nothing
is sent (``output_config.format`` needs a JSON schema, which a benchmark's request does not
carry); the prompt asks for JSON, and run.json says so (``generation_adapted.json_mode``,
``json_mode_sent``). Options and settings: docs/models.md, "Anthropic".
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from socialbench.errors import UsageError
from socialbench.models.anthropic_reply import error_message, parse_message
from socialbench.models.anthropic_request import (
    MIN_THINKING_BUDGET,
    Learned,
    Lesson,
    build_params,
    learn,
    refusal_lesson,
    should_stream,
    thinking_budget,
)
from socialbench.models.base import FatalModelError, LoopBoundClient, RetryableModelError, warm_platform_probe
from socialbench.models.openai_compat import classify_status, parse_retry_after, split_base_url
from socialbench.models.redact import install_log_redaction, redact_url, scrub, secret_digest, url_secrets
from socialbench.models.registry import ModelOption, ModelOptions, register
from socialbench.types import Generation, Request

if TYPE_CHECKING:  # pragma: no cover
    import anthropic

log = logging.getLogger(__name__)

DEFAULT_API_KEY_ENV = "ANTHROPIC_API_KEY"
LOCAL_PLACEHOLDER_KEY = "EMPTY"
_MAX_MESSAGE_CHARS = 300
#: Lessons a request can learn before it is given up (each is learnt at most once).
_MAX_LESSONS = 8
#: run.json's ``generation_adapted.json_mode`` when a run asks for JSON mode.
JSON_MODE_NOT_SENT = (
    "not sent: the Messages API's JSON output (output_config.format) needs a JSON schema, which the "
    "benchmark's request does not carry; the prompt asks for JSON and the reply is parsed as text"
)


class AnthropicModel(LoopBoundClient):
    """A Claude model behind the Messages API (or a server that speaks it)."""

    cacheable = True
    needs_prompt = True
    #: The SDK times each call (the engine does not cut it off): unstreamed, ``--timeout`` is the
    #: wait for the answer; streamed, the longest wait between two events, so that a reply
    #: still being generated is never abandoned (and billed again on the retry).
    enforces_timeout = True

    def __init__(self, model: str, options: ModelOptions | None = None) -> None:
        options = options or ModelOptions()
        if not model.strip():
            raise UsageError("model spec 'anthropic:' has no model name; use e.g. anthropic:claude-sonnet-4-5")
        self.model = model.strip()
        self.spec = f"anthropic:{self.model}"
        self.timeout_s = float(options.timeout_s)
        install_log_redaction()  # the HTTP libraries log request URLs, query included
        raw_base = options.get("base_url") or None
        try:
            #: Where requests go, the URL's user info and query taken out (sent as HTTP Basic
            #: auth, with the key in ``x-api-key``, and as query parameters of every request).
            self._target = split_base_url(raw_base) if raw_base else None
        except ValueError as exc:
            raise UsageError(
                f"--model-opt base_url={redact_url(raw_base or '')} is a malformed URL ({exc}); "
                "write it as http://HOST:PORT"
            ) from None
        #: The base URL without credentials or query (what ``repr`` and records show).
        self.base_url = self._target.url.rstrip("/") if self._target else None
        self._secrets = url_secrets(raw_base) if raw_base else []
        self._endpoint = redact_url(raw_base.rstrip("/")) if raw_base else "default"
        if raw_base and secret_digest(raw_base):
            self._endpoint += f"|{secret_digest(raw_base)}"
        self.images_first = options.get_flag("images_first")
        #: ``--model-opt send_temperature=false``: the run's temperature is never sent.
        self.send_temperature = options.get_flag("send_temperature", default=True)
        #: ``--model-opt thinking_budget=N``: extended thinking with that budget on every
        #: request (else the request's ``--reasoning-effort`` chooses, see THINKING_BUDGETS).
        self.thinking_budget = options.get_count("thinking_budget")
        if self.thinking_budget is not None and self.thinking_budget < MIN_THINKING_BUDGET:
            raise UsageError(
                f"--model-opt thinking_budget={self.thinking_budget}: the Messages API needs a budget of at "
                f"least {MIN_THINKING_BUDGET} tokens"
            )
        #: ``--model-opt stream=true|false``: stream every request, or none (default: those
        #: that may outlast the timeout, :func:`should_stream`).
        stream = options.get("stream")
        self.stream: bool | None = None if stream in (None, "") else options.get_flag("stream")
        self._adapted: dict[str, str] = {}
        #: What the server's 400 answers taught (:func:`refusal_lesson`), for every request after.
        self._learned = Learned()
        #: Requests sent asking for JSON output and not (run.json's ``json_mode_sent``).
        self._json_counts = {"with_output_format": 0, "without_output_format": 0}
        #: Requests streamed and not (run.json's ``json_mode_sent`` neighbour, for tests and logs).
        self.streamed = 0
        warm_platform_probe()
        key_env = options.get("api_key_env", DEFAULT_API_KEY_ENV) or DEFAULT_API_KEY_ENV
        key = os.environ.get(key_env)
        if not key:
            if self.base_url is None:
                raise UsageError(
                    f"model {self.spec!r} needs an API key: export {key_env}=... "
                    "(or choose the variable with --model-opt api_key_env=NAME)"
                )
            key = LOCAL_PLACEHOLDER_KEY
        self._api_key = key

    def __repr__(self) -> str:
        return f"AnthropicModel(model={self.model!r}, base_url={self.base_url!r})"

    def identity(self) -> str:
        """``anthropic|MODEL|URL``: credentials masked, plus their salted hash when the URL
        has any; ``|thinking=N`` with a fixed budget; ``|temperature-sent`` unless
        ``send_temperature=false`` (entries keyed without it were sampled at the provider's
        default temperature)."""
        fixed = f"|thinking={self.thinking_budget}" if self.thinking_budget is not None else ""
        sent = "|temperature-sent" if self.send_temperature else ""
        return f"anthropic|{self.model}|{self._endpoint}{sent}{fixed}"

    def adaptations(self) -> dict[str, str]:
        """The settings not sent as the run set them (run.json's ``generation_adapted``):
        changed by thinking's rules, refused by the server, or turned off by
        ``send_temperature=false``, and JSON mode (never sent: :data:`JSON_MODE_NOT_SENT`);
        setting -> what was done and why."""
        return dict(self._adapted)

    def json_mode_sent(self) -> dict[str, int]:
        """run.json's ``json_mode_sent``: requests sent with ``output_config.format`` (none:
        see :data:`JSON_MODE_NOT_SENT`) and without it."""
        return dict(self._json_counts)

    def _get_client(self) -> anthropic.AsyncAnthropic:
        def make() -> anthropic.AsyncAnthropic:
            try:
                import anthropic
            except ImportError:
                raise UsageError(
                    "the anthropic backend needs the anthropic SDK: pip install 'socialbench[anthropic]'"
                ) from None
            target = self._target
            headers = None
            if target is not None and target.basic_auth:
                # One Authorization header: the URL's Basic credentials take it, the key
                # travels in x-api-key (which the Messages API reads).
                headers = {"Authorization": target.basic_auth, "x-api-key": self._api_key}
            return anthropic.AsyncAnthropic(
                api_key=self._api_key,
                base_url=self.base_url,
                default_headers=headers,
                default_query=target.query if target is not None and target.query else None,
                timeout=self.timeout_s,
                max_retries=0,
            )

        return self._loop_client(make)

    def _redact(self, text: str) -> str:
        """``text`` (cut short) without the API key, the base URL's credentials or any URL's
        secrets."""
        secrets = list(self._secrets)
        if self._api_key and self._api_key != LOCAL_PLACEHOLDER_KEY:
            secrets.append(self._api_key)
        return scrub(text, secrets)[:_MAX_MESSAGE_CHARS]

    async def generate(self, request: Request) -> Generation:
        """Send the request; when the server's 400 teaches something
        (:func:`refusal_lesson`: a refused setting, adaptive-only thinking, an output limit),
        apply it from then on and send the request again."""
        if request.config.json_mode:
            self._adapted.setdefault("json_mode", JSON_MODE_NOT_SENT)
        for _ in range(_MAX_LESSONS + 1):  # each lesson is learnt at most once
            before = set(self._adapted)
            params = build_params(
                self.model,
                request,
                images_first=self.images_first,
                send_temperature=self.send_temperature,
                budget=thinking_budget(request, self.thinking_budget),
                adapted=self._adapted,
                learned=self._learned,
            )
            for name in sorted(set(self._adapted) - before):  # each change logged once
                log.warning("%s: %s %s", self.spec, name, self._adapted[name])
            try:
                return await self._send(params, json_mode=request.config.json_mode)
            except _Refused as exc:
                self._learn(exc.lesson, exc.message)
        raise FatalModelError("bad_request", f"{self.spec}: the server kept refusing the adapted request")

    def _learn(self, lesson: Lesson, message: str) -> None:
        """Apply ``lesson`` (taught by a 400 answering ``message``) from now on: logged and
        recorded once (concurrent requests refused for the same reason only send again)."""
        if not learn(self._learned, lesson):
            return
        because = f"HTTP 400 invalid_request_error: {message}"[:_MAX_MESSAGE_CHARS]
        self._adapted[lesson.setting] = f"{lesson.done}; {because}"
        log.warning("%s: the server refused %s; from now on %s (%s)", self.spec, lesson.setting, lesson.done, because)

    async def _send(self, params: dict[str, Any], json_mode: bool = False) -> Generation:
        """Post one request (streamed when :func:`should_stream` says so); a 400 that teaches
        something raises :class:`_Refused`, other failures the model error of their kind."""
        import anthropic

        client = self._get_client()
        stream = self.stream if self.stream is not None else should_stream(params["max_tokens"], self.timeout_s)
        if json_mode:  # counted as sent, answered or not
            self._json_counts["without_output_format"] += 1
        try:
            if stream:
                self.streamed += 1
                body_text = await _streamed_body(client, params)
            else:
                raw = await client.messages.with_raw_response.create(**params)
                body_text = raw.http_response.text
        except anthropic.APIStatusError as exc:
            message_text = self._redact(error_message(exc.body, str(exc.message)))
            lesson = refusal_lesson(exc.status_code, message_text, params)
            if lesson is not None:
                raise _Refused(lesson, message_text) from None
            raise classify_status(exc.status_code, message_text, parse_retry_after(exc.response.headers)) from None
        except anthropic.APITimeoutError:
            raise RetryableModelError("timeout", f"no answer within {self.timeout_s:g} s") from None
        except _StreamTimeout:
            raise RetryableModelError("timeout", f"no event of the stream within {self.timeout_s:g} s") from None
        except (anthropic.APIConnectionError, _StreamBroken) as exc:
            cause = exc.__cause__ or exc
            where = self.base_url or "the Anthropic API (the SDK's default URL)"
            raise RetryableModelError(
                "connection", self._redact(f"cannot connect to {where}: {type(cause).__name__}: {cause}")
            ) from None
        except anthropic.APIResponseValidationError as exc:
            raise RetryableModelError("malformed_response", self._redact(str(exc))) from None
        return parse_message(body_text)


async def _streamed_body(client: anthropic.AsyncAnthropic, params: dict[str, Any]) -> str:
    """A streamed request's reply as a Messages body (JSON text): the SDK's accumulated
    message, or the body itself when the server answered plain JSON (it ignores
    ``stream``). A read that times out or breaks between events (the SDK lets the HTTP
    library's error through there) raises :class:`_StreamTimeout` / :class:`_StreamBroken`."""
    try:
        async with client.messages.stream(**params) as events:
            if "text/event-stream" not in events.response.headers.get("content-type", ""):
                return (await events.response.aread()).decode("utf-8", "replace")
            message = await events.get_final_message()
    except Exception as exc:
        names = {cls.__name__ for cls in type(exc).__mro__}
        if "TimeoutException" in names:  # httpx's (or the SDK's httpx2) read timeout
            raise _StreamTimeout() from exc
        if "TransportError" in names:
            raise _StreamBroken(str(exc)) from exc
        raise
    return message.to_json(indent=None, warnings=False)


class _StreamTimeout(Exception):
    """No event of a streamed reply within the timeout."""


class _StreamBroken(Exception):
    """The connection of a streamed reply broke between events."""


class _Refused(Exception):
    """A 400 answer that teaches something (:func:`refusal_lesson`)."""

    def __init__(self, lesson: Lesson, message: str) -> None:
        super().__init__(lesson.setting)
        self.lesson = lesson
        self.message = message


@register(
    "anthropic",
    summary=(
        "Anthropic Messages API via the official SDK "
        "(options: api_key_env, base_url, images_first, send_temperature, stream, thinking_budget)"
    ),
    example="anthropic:claude-sonnet-4-5",
    options=(
        ModelOption("api_key_env", "text", "environment variable holding the API key (default ANTHROPIC_API_KEY)"),
        ModelOption("base_url", "text", "the Messages API's base URL (a proxy or a local server)"),
        ModelOption("images_first", "flag", "true: images before the prompt text (default false)"),
        ModelOption("send_temperature", "flag", "false: never send the run's temperature (default true)"),
        ModelOption(
            "stream", "flag", "true/false: stream every request or none (default: those that may outlast --timeout)"
        ),
        ModelOption("thinking_budget", "count", "extended thinking with this token budget (>= 1024)"),
    ),
)
def create_anthropic_model(rest: str, options: ModelOptions) -> AnthropicModel:
    """Anthropic Messages API: ``anthropic:MODEL``."""
    return AnthropicModel(rest, options)
