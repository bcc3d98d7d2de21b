"""The chat-model options every LLM stage of ``socialbench build`` shares, declared once: a command
taking ``llm: LLMOptions`` and wrapped by :func:`with_llm_options` gets ``--concurrency``,
``--timeout``, ... after its own options and receives them as one :class:`LLMOptions`. Options
several stages share outside that group (``--work``, ``--model``, ``--in``, ...) too."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any

import typer

from socialbench.construction.llm import LLMSettings
from socialbench.errors import UsageError

Concurrency = Annotated[int, typer.Option(help="Model calls in flight.")]
Timeout = Annotated[float, typer.Option(help="Seconds per model call.")]
MaxAttempts = Annotated[int, typer.Option(help="Transport attempts per call (429/5xx/timeouts are retried).")]
Progress = Annotated[bool, typer.Option("--progress/--no-progress", help="Show a progress bar.")]

Work = Annotated[Path, typer.Option("--work", "-w", help="Work folder shared by all stages.")]
Model = Annotated[
    str,
    typer.Option("--model", "-m", help="Chat/VLM model spec, e.g. openai:gpt-4o or openai:NAME@http://host:8000/v1."),
]
RetryDelay = Annotated[float, typer.Option(help="Base backoff (s) before retrying a failed image call.")]
InPath = Annotated[
    Path | None, typer.Option("--in", help="Input JSONL (default: the previous stage's file in --work).")
]


@dataclass(frozen=True)
class LLMOptions:
    """The shared model options of an LLM stage as given on its command line; the
    annotation of each field is its typer option and the default its default (``timeout``'s
    is the stage's own, :func:`with_llm_options`)."""

    concurrency: Concurrency = 8
    timeout: Timeout = 120.0
    max_attempts: MaxAttempts = 4
    parse_retries: Annotated[int, typer.Option(help="Repair requests after invalid JSON or missing fields.")] = 2
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use <work>/llm_cache.sqlite3.")] = False
    model_opt: Annotated[
        list[str] | None, typer.Option("--model-opt", help="Backend option KEY=VALUE (repeatable).")
    ] = None
    price_in: Annotated[float | None, typer.Option(help="USD per 1M prompt tokens (for the cost report).")] = None
    price_out: Annotated[float | None, typer.Option(help="USD per 1M completion tokens.")] = None
    progress: Progress = False

    def settings(self, model: str, work: Path, *, temperature: float, max_tokens: int) -> LLMSettings:
        """The chat-model settings of a stage calling ``model`` (``--model-opt KEY=VALUE``
        checked here); the response cache lives in ``work``."""
        opts = []
        for p in self.model_opt or []:
            k, sep, v = p.partition("=")
            if not sep or not k:
                raise UsageError(f"--model-opt takes KEY=VALUE (got {p!r})")
            opts.append((k.strip(), v.strip()))
        return LLMSettings(
            model=model,
            concurrency=self.concurrency,
            timeout_s=self.timeout,
            max_attempts=self.max_attempts,
            parse_retries=self.parse_retries,
            cache=None if self.no_cache else work / "llm_cache.sqlite3",
            model_opts=tuple(opts),
            price_in=self.price_in,
            price_out=self.price_out,
            progress=self.progress,
            temperature=temperature,
            max_tokens=max_tokens,
        )


def _llm_parameters(timeout: float) -> list[inspect.Parameter]:
    """One keyword parameter per field of :class:`LLMOptions`, ``timeout`` defaulting to the
    stage's own."""
    hints = typing.get_type_hints(LLMOptions, include_extras=True)
    return [
        inspect.Parameter(
            f.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=timeout if f.name == "timeout" else f.default,
            annotation=hints[f.name],
        )
        for f in fields(LLMOptions)
    ]


def with_llm_options(*, timeout: float) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give a stage command taking ``llm: LLMOptions`` the options of :class:`LLMOptions`
    after its own (``--timeout`` defaulting to ``timeout`` seconds); typer builds the
    command from the returned function's signature."""

    def wrap(command: Callable[..., None]) -> Callable[..., None]:
        hints = typing.get_type_hints(command, include_extras=True)
        own = [
            p.replace(annotation=hints[p.name])
            for p in inspect.signature(command).parameters.values()
            if p.name != "llm"
        ]
        params = own + _llm_parameters(timeout)
        shared = {f.name for f in fields(LLMOptions)}

        @functools.wraps(command)
        def run(*args: Any, **values: Any) -> None:
            llm = LLMOptions(**{k: values.pop(k) for k in shared})
            command(*args, **values, llm=llm)

        del run.__wrapped__  # typer reads the signature below, not the wrapped function's
        run.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        return run

    return wrap
