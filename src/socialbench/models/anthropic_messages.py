"""Anthropic Messages API backend: ``anthropic:MODEL`` (official ``anthropic`` SDK).

    anthropic:claude-sonnet-4-5
    anthropic:claude-3-5-sonnet-20241022 --model-opt base_url=http://127.0.0.1:8080

One user message holds the prompt text and the images as base64 ``image`` blocks (text
first, as the OpenAI backend sends it; ``--model-opt images_first=true`` puts the images
first, as Anthropic's guide suggests). ``Request.system`` goes in the top-level ``system``
field. The key comes from the environment variable named by ``api_key_env`` (default
``ANTHROPIC_API_KEY``) and never appears in the spec, the identity, ``repr`` or errors.

Options (``--model-opt KEY=VALUE``): ``api_key_env``, ``base_url`` (a local or proxy
server; without a key the placeholder ``EMPTY`` is sent there), ``images_first``,
``send_temperature=false`` (never send the run's temperature; recorded in run.json and in
the identity), ``thinking_budget`` (extended thinking with that ``budget_tokens`` on every
request).

Generation settings: the run's ``temperature`` and ``top_p`` are sent whenever the run sets
them (RobotEQ: temperature 0, App. G.5; SocialNav-SUB sets none), ``max_tokens`` always (the
API requires it). The SDKs of the declared range have no ``temperature`` argument, so both go
in ``extra_body``. A model that refuses one of them answers HTTP 400 in Anthropic's shape,
``{"type": "error", "error": {"type": "invalid_request_error", "message": "`temperature` is
deprecated for this model."}}`` (Opus 4.7 and later) or ``"... `temperature` and `top_p`
cannot both be specified for this model. Please use only one."`` (Sonnet 4.5 and later): the
backend then sends the same request again without the refused setting (``top_p`` in the
second case; temperature is the benchmark's), and from then on, logged once and kept for
run.json (``generation_adapted``) as the OpenAI backend does (:func:`refused_setting`).

Extended thinking: ``--reasoning-effort`` turns it on with the budget of
:data:`THINKING_BUDGETS` (``none``: off), or ``thinking_budget`` fixes one. Its rules are
kept (:func:`build_params`): ``max_tokens`` is sent as the budget plus the run's limit
(the API needs ``max_tokens`` > ``budget_tokens``); a temperature other than 1 and a
``top_p`` below 0.95 are not sent; each such change is logged in run.json
(``generation_adapted``). Thinking blocks are kept as the reply's reasoning (in the
record), apart from the text the answer parser reads. ``top_p`` is sent when the run sets it.

The model never retries (``max_retries=0``); failures are raised with the same kinds as the
OpenAI backend: ``rate_limit`` (with the server's ``retry-after``), ``overloaded`` (HTTP
529), ``server_error``, ``timeout``, ``connection``, ``malformed_response``,
``bad_request``, ``auth``, ``not_found``, ``refusal`` (``stop_reason: "refusal"``) and
``empty_response``. The Messages API has no JSON mode, so ``json_mode`` is not sent; the
prompt asks for JSON and the parser copes. Usage counts input tokens (cache reads and
writes included) and output tokens.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError, LoopBoundClient, RetryableModelError, warm_platform_probe
from socialbench.models.error_body import error_info
from socialbench.models.openai_compat import classify_status, parse_retry_after, split_base_url, usage_count
from socialbench.models.redact import install_log_redaction, redact_url, scrub, secret_digest, url_secrets
from socialbench.models.registry import ModelOption, ModelOptions, register
from socialbench.prompting.turns import user_content
from socialbench.types import EncodedImage, Generation, Request, Usage

if TYPE_CHECKING:  # pragma: no cover
    import anthropic

log = logging.getLogger(__name__)

DEFAULT_API_KEY_ENV = "ANTHROPIC_API_KEY"
LOCAL_PLACEHOLDER_KEY = "EMPTY"
_MAX_MESSAGE_CHARS = 300


def image_block(image: EncodedImage) -> dict[str, Any]:
    """A base64 ``image`` content block for an encoded image."""
    return {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": image.mime,
            "data": base64.b64encode(image.data).decode("ascii"),
        },
    }


#: Extended-thinking budgets (``budget_tokens``) of each ``--reasoning-effort`` level; ``none``
#: sends no thinking. The API's smallest budget is 1024.
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768}
MIN_THINKING_BUDGET = 1024
#: Extended thinking allows ``top_p`` only from 0.95 (or unset) and ``temperature`` only 1.
MIN_TOP_P_WITH_THINKING = 0.95
#: Sampling settings the backend leaves out when the server refuses them (:func:`refused_setting`).
ADAPTABLE_SETTINGS = ("temperature", "top_p")

#: A refused setting named in an error message: "`temperature` is deprecated for this
#: model." (Anthropic's words), or "... is not supported" as proxies put it.
_DEPRECATED = re.compile(r"`?\b(temperature|top_p)\b`? (?:is deprecated|is not supported|is no longer supported)")
#: "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
_NOT_BOTH = re.compile(r"`?temperature`? and `?top_p`? cannot both be specified")


def refused_setting(status: int, message: str, sent: Mapping[str, Any]) -> str:
    """The sampling setting (of :data:`ADAPTABLE_SETTINGS`) a 400 answer refuses, if ``sent``
    (the request's ``extra_body``) carried it; '' otherwise. Read from the message, in
    any wrapping a proxy adds: a deprecated setting is that setting; "cannot both be
    specified" is ``top_p`` (temperature is what the benchmark declares).

    >>> refused_setting(400, "`temperature` is deprecated for this model.", {"temperature": 0.0})
    'temperature'
    >>> msg = "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
    >>> refused_setting(400, msg, {"temperature": 0.0, "top_p": 0.9})
    'top_p'
    >>> refused_setting(400, "max_tokens: must be an integer >= 1", {"temperature": 0.0})
    ''
    """
    if status != 400:
        return ""
    if _NOT_BOTH.search(message):
        return "top_p" if "top_p" in sent else ""
    found = _DEPRECATED.search(message)
    return found.group(1) if found and found.group(1) in sent else ""


def thinking_budget(request: Request, fixed: int | None = None) -> int | None:
    """The thinking budget of a request: ``fixed`` (``--model-opt thinking_budget``), else
    the budget of its ``reasoning_effort`` (:data:`THINKING_BUDGETS`), else None (no thinking)."""
    if fixed is not None:
        return fixed
    effort = request.config.reasoning_effort
    return THINKING_BUDGETS.get(effort) if effort is not None else None


def build_params(
    model: str,
    request: Request,
    *,
    images_first: bool = False,
    send_temperature: bool = True,
    budget: int | None = None,
    adapted: dict[str, str] | None = None,
    dropped: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Keyword arguments of ``messages.create`` for a request (pure but for ``adapted``).

    The request's ``temperature`` and ``top_p`` go in ``extra_body`` when set, except those
    in ``dropped`` (refused by the server earlier) and the temperature when
    ``send_temperature`` is false (written into ``adapted``).

    ``budget``: extended thinking with that ``budget_tokens``. Its rules are kept, and each
    change they force is written into ``adapted`` (setting -> what was done): the API
    needs ``max_tokens`` > ``budget_tokens``, so ``max_tokens`` is the budget plus the
    request's limit (the answer keeps its room); a temperature other than 1 and a
    ``top_p`` below 0.95 are not sent.
    """
    cfg = request.config
    text = {"type": "text", "text": request.prompt}
    images = [image_block(img) for img in request.images]
    content: Any = user_content(text, images, images_first) if images else request.prompt
    max_tokens = cfg.max_tokens_or()
    if budget is not None:
        max_tokens += budget
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": content}],
    }
    notes: dict[str, str] = {}
    extra: dict[str, Any] = {}  # sent through extra_body: SDKs of the declared range lack these arguments
    if budget is not None:
        extra["thinking"] = {"type": "enabled", "budget_tokens": budget}
        notes["max_tokens"] = (
            f"sent as thinking budget + max_tokens ({budget} + {cfg.max_tokens_or()}): "
            "extended thinking needs max_tokens > budget_tokens"
        )
    if request.system:
        params["system"] = request.system
    if not send_temperature and cfg.temperature is not None:
        notes["temperature"] = f"not sent ({cfg.temperature!r}): --model-opt send_temperature=false"
    elif cfg.temperature is not None and "temperature" not in dropped:
        if budget is not None and cfg.temperature != 1:
            notes["temperature"] = f"not sent ({cfg.temperature!r}): extended thinking allows only temperature 1"
        else:
            extra["temperature"] = cfg.temperature
    if cfg.top_p is not None and "top_p" not in dropped:
        if budget is not None and cfg.top_p < MIN_TOP_P_WITH_THINKING:
            notes["top_p"] = f"not sent ({cfg.top_p!r}): extended thinking allows top_p from 0.95 only"
        else:
            extra["top_p"] = cfg.top_p
    if extra:
        params["extra_body"] = extra
    if adapted is not None:
        for name, note in notes.items():
            adapted.setdefault(name, note)
    return params


def error_message(body: Any, fallback: str) -> str:
    """``error.message`` of an Anthropic error body (``{"type": "error", "error": {...}}``),
    or the message of any other shape a proxy answers with
    (:func:`~socialbench.models.error_body.error_info`)."""
    return error_info(body, fallback).message


def parse_message(body_text: str) -> Generation:
    """Turn a Messages API response body into a :class:`Generation` or raise."""
    try:
        data = json.loads(body_text)
        if not isinstance(data, Mapping) or not isinstance(data.get("content"), list):
            raise TypeError("no content list")
    except (ValueError, TypeError) as exc:
        snippet = body_text[:120].replace("\n", " ")
        raise RetryableModelError(
            "malformed_response", f"undecodable message ({type(exc).__name__}): {snippet!r}"
        ) from None
    stop_reason = data.get("stop_reason")
    blocks = [block for block in data["content"] if isinstance(block, Mapping)]
    text = "".join(str(block.get("text", "")) for block in blocks if block.get("type") == "text")
    # extended thinking: kept in the record, never parsed (redacted thinking has no text)
    thoughts = [str(block.get("thinking", "")) for block in blocks if block.get("type") == "thinking"]
    reasoning = "\n\n".join(t for t in thoughts if t.strip()) or None
    if stop_reason == "refusal":
        raise FatalModelError("refusal", f"stop_reason=refusal {text}".strip()[:_MAX_MESSAGE_CHARS])
    if not text.strip():
        if reasoning is not None and stop_reason == "max_tokens":
            raise FatalModelError(
                "empty_response",
                "the reply ended inside its thinking (stop_reason=max_tokens): give --max-tokens more room",
            )
        raise FatalModelError("empty_response", f"no text content (stop_reason={stop_reason})")
    usage = data.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    prompt_tokens = sum(
        usage_count(usage.get(name))
        for name in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )
    return Generation(
        text=text,
        usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=usage_count(usage.get("output_tokens"))),
        reasoning=reasoning,
        finish_reason=stop_reason if isinstance(stop_reason, str) else None,
    )


class AnthropicModel(LoopBoundClient):
    """A Claude model behind the Messages API (or a server that speaks it)."""

    cacheable = True
    needs_prompt = True

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
        self._adapted: dict[str, str] = {}
        #: Sampling settings the server refused (:func:`refused_setting`): no longer sent.
        self._dropped: set[str] = set()
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
        """``anthropic|MODEL|URL``: credentials and query values masked, plus their salted
        hash when the URL has any (see :func:`socialbench.models.redact.secret_digest`);
        ``|thinking=N`` with a fixed thinking budget, ``|no-temperature`` with
        ``send_temperature=false`` (what is sent differs from what the run sets)."""
        fixed = f"|thinking={self.thinking_budget}" if self.thinking_budget is not None else ""
        no_temperature = "" if self.send_temperature else "|no-temperature"
        return f"anthropic|{self.model}|{self._endpoint}{fixed}{no_temperature}"

    def adaptations(self) -> dict[str, str]:
        """The settings not sent as the run set them (run.json's ``generation_adapted``):
        changed by extended thinking's rules, refused by the server, or turned off by
        ``send_temperature=false``; setting -> what was done and why."""
        return dict(self._adapted)

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
        """Send the request; when the server refuses a sampling setting it carried
        (:func:`refused_setting`), leave it out from then on and send the request again."""
        for _ in range(len(ADAPTABLE_SETTINGS) + 1):  # each setting is dropped at most once
            before = set(self._adapted)
            params = build_params(
                self.model,
                request,
                images_first=self.images_first,
                send_temperature=self.send_temperature,
                budget=thinking_budget(request, self.thinking_budget),
                adapted=self._adapted,
                dropped=frozenset(self._dropped),
            )
            for name in sorted(set(self._adapted) - before):  # each change logged once
                log.warning("%s: %s %s", self.spec, name, self._adapted[name])
            try:
                return await self._send(params)
            except _SettingRefused as exc:
                self._drop(exc.setting, exc.value, exc.message)
        raise FatalModelError("bad_request", f"{self.spec}: the server kept refusing the adapted request")

    def _drop(self, setting: str, value: Any, message: str) -> None:
        """Stop sending ``setting`` (refused with ``message``): logged and recorded once
        (concurrent requests refused for the same setting only send again)."""
        if setting in self._dropped:
            return
        self._dropped.add(setting)
        done = f"not sent ({value!r} refused, the server's default applies)"
        because = f"HTTP 400 invalid_request_error: {message}"[:_MAX_MESSAGE_CHARS]
        self._adapted[setting] = f"{done}; {because}"
        log.warning("%s: the server refused %s; from now on %s (%s)", self.spec, setting, done, because)

    async def _send(self, params: dict[str, Any]) -> Generation:
        """Post one request; a 400 refusing a sampling setting it carried raises
        :class:`_SettingRefused`, other failures the model error of their kind."""
        import anthropic

        client = self._get_client()
        try:
            raw = await client.messages.with_raw_response.create(**params)
            body_text = raw.http_response.text
        except anthropic.APIStatusError as exc:
            message = self._redact(error_message(exc.body, str(exc.message)))
            sent = params.get("extra_body") or {}
            setting = refused_setting(exc.status_code, message, sent)
            if setting:
                raise _SettingRefused(setting, sent[setting], message) from None
            raise classify_status(exc.status_code, message, parse_retry_after(exc.response.headers)) from None
        except anthropic.APITimeoutError:
            raise RetryableModelError("timeout", f"no answer within {self.timeout_s:g} s") from None
        except anthropic.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            where = self.base_url or "the Anthropic API (the SDK's default URL)"
            raise RetryableModelError(
                "connection", self._redact(f"cannot connect to {where}: {type(cause).__name__}: {cause}")
            ) from None
        except anthropic.APIResponseValidationError as exc:
            raise RetryableModelError("malformed_response", self._redact(str(exc))) from None
        return parse_message(body_text)


class _SettingRefused(Exception):
    """The server refused a sampling setting the request carried (HTTP 400)."""

    def __init__(self, setting: str, value: Any, message: str) -> None:
        super().__init__(setting)
        self.setting = setting
        self.value = value
        self.message = message


@register(
    "anthropic",
    summary=(
        "Anthropic Messages API via the official SDK "
        "(options: api_key_env, base_url, images_first, send_temperature, thinking_budget)"
    ),
    example="anthropic:claude-sonnet-4-5",
    options=(
        ModelOption("api_key_env", "text", "environment variable holding the API key (default ANTHROPIC_API_KEY)"),
        ModelOption("base_url", "text", "the Messages API's base URL (a proxy or a local server)"),
        ModelOption("images_first", "flag", "true: images before the prompt text (default false)"),
        ModelOption("send_temperature", "flag", "false: never send the run's temperature (default true)"),
        ModelOption("thinking_budget", "count", "extended thinking with this token budget (>= 1024)"),
    ),
)
def create_anthropic_model(rest: str, options: ModelOptions) -> AnthropicModel:
    """Anthropic Messages API: ``anthropic:MODEL``."""
    return AnthropicModel(rest, options)
