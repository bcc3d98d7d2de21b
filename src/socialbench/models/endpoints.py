"""Many OpenAI-compatible endpoints serving one model: routing, limits and health.

``openai:MODEL@URL1,URL2,...`` (or ``--model-opt endpoints_file=PATH``) sends each request to
the healthy endpoint with the fewest requests in flight, at most
``per_endpoint_concurrency`` each. An endpoint that fails (connection, 5xx, timeout,
malformed answer) cools down (``cooldown_s``, doubling up to ``max_cooldown_s``), then takes
one probe at a time; a 429 pauses it for its ``Retry-After``. The failed request goes back
to the engine; only one whose connection could not be opened is re-routed at once. The
identity is ``openai|MODEL|pool`` whatever the URLs. See docs/models.md, "Several
endpoints, one run".
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from socialbench.errors import UsageError
from socialbench.models.base import RetryableModelError
from socialbench.models.endpoint_pool import DEFAULT_COOLDOWN_S, DEFAULT_MAX_COOLDOWN_S, EndpointPool
from socialbench.models.openai_compat import EndpointUnreachable, OpenAICompatModel, url_problem
from socialbench.models.openai_images_check import ImagesCheck, merge_checks
from socialbench.models.redact import redact, redact_url
from socialbench.models.registry import ModelOptions
from socialbench.types import Generation, Request

#: Error kinds that say the endpoint, not the request, is in trouble.
UNHEALTHY_KINDS = frozenset({"connection", "timeout", "server_error", "overloaded", "malformed_response"})


# --------------------------------------------------------------------------- parsing


def split_urls(text: str) -> list[str]:
    """Comma-separated URLs -> list, trailing ``/`` removed, duplicates dropped (order kept)."""
    urls: list[str] = []
    for part in text.split(","):
        url = part.strip().rstrip("/")
        if url and url not in urls:
            urls.append(url)
    return urls


def read_endpoints_file(path: str | Path) -> list[str]:
    """URLs from a text file: one per line (or comma-separated); ``#`` starts a comment."""
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"endpoints_file {str(p)!r} cannot be read ({exc.strerror or exc}); "
            "give a text file with one base URL per line, e.g. http://node1:8000/v1"
        ) from None
    urls: list[str] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        for url in split_urls(line):
            if not url.startswith(("http://", "https://")):
                raise UsageError(
                    f"{p}:{lineno}: {redact_url(url)!r} is not a base URL; write one URL per line, "
                    "e.g. http://node1:8000/v1"
                )
            problem = url_problem(url)
            if problem is not None:
                raise UsageError(f"{p}:{lineno}: {redact_url(url)!r} {problem}")
            if url not in urls:
                urls.append(url)
    if not urls:
        raise UsageError(f"endpoints_file {str(p)!r} lists no URL; write one base URL per line")
    return urls


# --------------------------------------------------------------------------- the model


class MultiEndpointModel:
    """One model behind several OpenAI-compatible endpoints (see the module docstring)."""

    cacheable = True
    needs_prompt = True

    def __init__(
        self,
        model: str,
        urls: Sequence[str],
        options: ModelOptions | None = None,
    ) -> None:
        options = options or ModelOptions()
        if not urls:
            raise UsageError(f"openai:{model} has no endpoint URL; give openai:{model}@URL1,URL2")
        self.model = model
        self.urls = list(urls)
        self.spec = f"openai:{model}@pool"
        self.pool = EndpointPool(
            self.urls,
            per_endpoint_concurrency=options.get_count("per_endpoint_concurrency"),
            cooldown_s=options.get_nonnegative("cooldown_s", DEFAULT_COOLDOWN_S),
            max_cooldown_s=options.get_nonnegative("max_cooldown_s", DEFAULT_MAX_COOLDOWN_S),
        )
        self._members = {url: OpenAICompatModel(model, url, options) for url in self.urls}

    def __repr__(self) -> str:
        return f"MultiEndpointModel(model={self.model!r}, urls={redact(self.urls)!r})"

    #: Each HTTP call carries its own timeout (ModelOptions.timeout_s); waiting for a free
    #: endpoint slot is not part of an attempt, so the engine must not time the whole call.
    enforces_timeout = True

    def identity(self) -> str:
        """Independent of the URL list, its order and its length: the same model anywhere."""
        return f"openai|{self.model}|pool"

    def adaptations(self) -> dict[str, str]:
        """What the endpoints' servers made their models change in what they send
        (:meth:`OpenAICompatModel.adaptations`), merged: each field with the words of the
        first endpoint (in URL order) that adapted it."""
        merged: dict[str, str] = {}
        for member in self._members.values():
            for field, what in member.adaptations().items():
                merged.setdefault(field, what)
        return merged

    def images_check(self) -> ImagesCheck | None:
        """The endpoints' :meth:`OpenAICompatModel.images_check` findings as one
        (:func:`~socialbench.models.openai_images_check.merge_checks`)."""
        return merge_checks(member.images_check() for member in self._members.values())

    def json_mode_sent(self) -> dict[str, int]:
        """The endpoints' :meth:`OpenAICompatModel.json_mode_sent` counts, added up."""
        total: dict[str, int] = {}
        for member in self._members.values():
            for name, count in member.json_mode_sent().items():
                total[name] = total.get(name, 0) + count
        return total

    def extra_requests(self) -> dict[str, int]:
        """The endpoints' :meth:`OpenAICompatModel.extra_requests` counts, added up."""
        total: dict[str, int] = {}
        for member in self._members.values():
            for name, count in member.extra_requests().items():
                total[name] = total.get(name, 0) + count
        return total

    async def generate(self, request: Request) -> Generation:
        unreachable: list[str] = []
        while True:
            ep = await self.pool.acquire(exclude=unreachable)
            if ep is None:  # every endpoint refused the connection during this attempt
                raise RetryableModelError(
                    "connection",
                    f"none of the {len(self.urls)} endpoints accepted a connection ({redact_url(', '.join(self.urls))})",
                )
            try:
                generation = await self._members[ep.url].generate(request)
            except EndpointUnreachable:
                # Never reached a server: safe to send elsewhere at once.
                self.pool.release(ep, ok=False)
                unreachable.append(ep.url)
                continue
            except RetryableModelError as exc:
                if exc.kind == "rate_limit":
                    self.pool.release(ep, ok=None, pause_s=exc.retry_after)
                else:
                    self.pool.release(ep, ok=False if exc.kind in UNHEALTHY_KINDS else None)
                raise
            except asyncio.CancelledError:
                # The engine gave up on this attempt (its timeout): count it against the endpoint.
                self.pool.release(ep, ok=False)
                raise
            except BaseException:
                self.pool.release(ep, ok=None)
                raise
            self.pool.release(ep, ok=True)
            return generation

    async def aclose(self) -> None:
        for member in self._members.values():
            await member.aclose()


def create_pool_model(model: str, urls: Sequence[str], options: ModelOptions) -> MultiEndpointModel:
    """Build the pool from spec URLs plus ``endpoints_file`` URLs (duplicates dropped)."""
    merged = list(urls)
    path = options.get("endpoints_file")
    if path:
        for url in read_endpoints_file(path):
            if url not in merged:
                merged.append(url)
    if not merged:
        raise UsageError(
            f"openai:{model} with several endpoints needs URLs: openai:{model}@URL1,URL2 "
            "or --model-opt endpoints_file=PATH"
        )
    return MultiEndpointModel(model, merged, options)
