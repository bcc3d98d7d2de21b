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
run.json (``generation_adapted``) as the OpenAI backend does (:func:`~socialbench.models.anthropic_request.refused_setting`).

Extended thinking: ``--reasoning-effort`` turns it on with the budget of
:data:`~socialbench.models.anthropic_request.THINKING_BUDGETS` (``none``: off), or ``thinking_budget`` fixes one. Its rules are
kept (:func:`~socialbench.models.anthropic_request.build_params`): ``max_tokens`` is sent as the budget plus the run's limit
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
        """``anthropic|MODEL|URL``: credentials and query values masked, plus their salted
        hash when the URL has any (see :func:`socialbench.models.redact.secret_digest`);
        ``|thinking=N`` with a fixed thinking budget, ``|temperature-sent`` unless
        ``send_temperature=false``. The backend sent no temperature before it sent the run's by
        default, so a cache entry keyed without the mark was sampled at the provider's
        default: only a run that still sends none may reuse it."""
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
