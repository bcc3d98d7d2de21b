"""Anthropic Messages API backend: ``anthropic:MODEL`` (official ``anthropic`` SDK).

One user message holds the prompt text and the images as base64 ``image`` blocks;
``Request.system`` goes in ``system``. The key comes from ``api_key_env`` (default
``ANTHROPIC_API_KEY``) and never appears in the spec, the identity, ``repr`` or errors. A
400 refusing a sampling setting (:func:`~socialbench.models.anthropic_request.refused_setting`)
drops it and sends again, recorded in ``generation_adapted``; extended thinking's rules are
applied by :func:`~socialbench.models.anthropic_request.build_params`. The model never
retries (``max_retries=0``); failures carry the OpenAI backend's kinds. Options and
settings: docs/models.md, "Anthropic".
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from socialbench.errors import UsageError
from socialbench.models.anthropic_reply import error_message, parse_message
from socialbench.models.anthropic_request import (
    ADAPTABLE_SETTINGS,
    MIN_THINKING_BUDGET,
    build_params,
    refused_setting,
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
        """``anthropic|MODEL|URL``: credentials masked, plus their salted hash when the URL
        has any; ``|thinking=N`` with a fixed budget; ``|temperature-sent`` unless
        ``send_temperature=false`` (entries keyed without it were sampled at the provider's
        default temperature)."""
        fixed = f"|thinking={self.thinking_budget}" if self.thinking_budget is not None else ""
        sent = "|temperature-sent" if self.send_temperature else ""
        return f"anthropic|{self.model}|{self._endpoint}{sent}{fixed}"

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

    def _drop(self, setting: str, value: object, message: str) -> None:
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

    def __init__(self, setting: str, value: object, message: str) -> None:
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
