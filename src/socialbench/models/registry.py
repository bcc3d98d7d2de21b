"""Model spec strings -> model objects.

A backend registers a prefix with :func:`register`; the registry imports the modules of
:mod:`socialbench.models` on first use, so adding a backend is one new file with one
``@register("prefix")`` line and no edits elsewhere. Heavy libraries are imported inside
the backends, not here.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from socialbench.errors import UsageError
from socialbench.models.base import Model
from socialbench.models.redact import redact


@dataclass(frozen=True)
class ModelOptions:
    """Run-level settings a backend may use (all optional)."""

    seed: int = 0
    timeout_s: float = 120.0
    #: Seconds to the first byte of a reply (``--first-byte-timeout``); None: only ``timeout_s``.
    first_byte_timeout_s: float | None = None
    data: Any = None  # the loaded benchmark, for baselines that read human votes
    extra: tuple[tuple[str, str], ...] = ()  # --model-opt KEY=VALUE pairs
    #: The most images one request of the run carries, as the benchmark declares it (None:
    #: undeclared); ``vllm:`` sizes its per-prompt image limit from it.
    max_images: int | None = None

    def get(self, key: str, default: str | None = None) -> str | None:
        for k, v in self.extra:
            if k == key:
                return v
        return default

    def get_flag(self, key: str, default: bool = False) -> bool:
        """A boolean option: 1/true/yes/on or 0/false/no/off (empty = false)."""
        value = self.get(key)
        if value is None:
            return default
        low = value.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise UsageError(f"--model-opt {key}={value!r} must be true or false")

    def get_count(self, key: str, default: int | None = None) -> int | None:
        """A whole-number option >= 1 (unset or empty: ``default``)."""
        value = self.get(key)
        if value is None or value == "":
            return default
        try:
            number = int(value)
        except ValueError:
            number = 0
        if number < 1:
            raise UsageError(f"--model-opt {key}={value!r} must be a whole number >= 1")
        return number

    def get_nonnegative(self, key: str, default: float) -> float:
        """A number option >= 0 (seconds, metres; unset or empty: ``default``)."""
        value = self.get(key)
        if value is None or value == "":
            return default
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if not number >= 0:  # also rejects NaN
            raise UsageError(f"--model-opt {key}={value!r} must be a number >= 0")
        return number


@dataclass(frozen=True)
class ModelOption:
    """A ``--model-opt`` key a backend reads: its ``name``, the ``kind`` of value it takes
    (``text``, ``flag`` (true/false), ``count`` (whole number >= 1), ``number`` (>= 0),
    ``path``) and a one-line ``help``."""

    name: str
    kind: str
    help: str


def unknown_option_message(prefix: str, key: str, valid: Sequence[str]) -> str:
    """The one-line refusal of a ``--model-opt`` key the backend ``prefix`` does not read:
    the closest valid key (:func:`difflib.get_close_matches`) and every valid one.

    >>> unknown_option_message("openai", "api_key_evn", ["api_key_env", "json_mode"])
    "--model-opt 'api_key_evn' is not an option of openai: did you mean 'api_key_env'? valid keys: api_key_env, json_mode"
    """
    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
    hint = f" did you mean {close[0]!r}?" if close else ""
    listing = f"valid keys: {', '.join(valid)}" if valid else "it takes no --model-opt"
    return f"--model-opt {redact(key)!r} is not an option of {prefix}:{hint} {listing}"


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}

Factory = Callable[[str, ModelOptions], Model]


@dataclass(frozen=True)
class BackendInfo:
    prefix: str
    factory: Factory
    summary: str
    example: str
    #: The ``--model-opt`` keys the backend reads; any other key is refused.
    options: tuple[ModelOption, ...] = ()
    #: Checks the spec's rest (after ``prefix:``) without building anything, raising
    #: :class:`UsageError` as the factory would (a URL with no host, an unknown mock); None: none.
    check_rest: Callable[[str], object] | None = None

    def check_options(self, options: ModelOptions) -> None:
        """:class:`UsageError` for the first ``--model-opt`` key this backend does not
        declare (:func:`unknown_option_message`)."""
        valid = sorted(o.name for o in self.options)
        for key, _ in options.extra:
            if key not in valid:
                raise UsageError(unknown_option_message(self.prefix, key, valid))


_BACKENDS: dict[str, BackendInfo] = {}
_LOADED = False


def register(
    prefix: str,
    summary: str = "",
    example: str = "",
    options: Sequence[ModelOption] = (),
    check_rest: Callable[[str], object] | None = None,
) -> Callable[[Factory], Factory]:
    """Register ``factory(rest_of_spec, options) -> Model`` for specs ``prefix:...``;
    ``options`` declares the ``--model-opt`` keys it reads (none: it takes none);
    ``check_rest`` checks the rest of a spec without building the model (:func:`check_model_spec`)."""

    def deco(factory: Factory) -> Factory:
        _BACKENDS[prefix] = BackendInfo(
            prefix,
            factory,
            summary or (factory.__doc__ or "").strip().split("\n")[0],
            example,
            tuple(options),
            check_rest,
        )
        return factory

    return deco


def _load_all() -> None:
    global _LOADED
    if _LOADED:
        return
    import socialbench.models as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        if mod.name not in {"base", "registry"}:
            importlib.import_module(f"socialbench.models.{mod.name}")
    _LOADED = True


def backends() -> list[BackendInfo]:
    _load_all()
    return sorted(_BACKENDS.values(), key=lambda b: b.prefix)


def _backend_of(spec: str) -> tuple[BackendInfo, str]:
    """The backend of ``spec`` and the rest of the spec, or the unknown-model refusal."""
    _load_all()
    if spec in _BACKENDS:  # fixed names such as "baseline:random", "human:oracle"
        return _BACKENDS[spec], ""
    prefix, sep, rest = spec.partition(":")
    if sep and prefix in _BACKENDS:
        return _BACKENDS[prefix], rest
    fixed = [b.prefix for b in backends() if ":" in b.prefix]
    open_prefixes = [b.prefix for b in backends() if ":" not in b.prefix]
    close = difflib.get_close_matches(spec, fixed, n=1, cutoff=0.6)
    near = difflib.get_close_matches(prefix, open_prefixes, n=1, cutoff=0.6) if sep and rest else []
    if close:
        hint = f" did you mean {close[0]!r}?"
    elif near:
        hint = f" did you mean {redact(near[0] + ':' + rest)!r}?"
    elif not sep:
        hint = f" a model spec is BACKEND:NAME, e.g. {redact('openai:' + spec)!r};"
    else:
        hint = ""
    raise UsageError(
        f"unknown model {redact(spec)!r};{hint} known: "
        + ", ".join(b.prefix if ":" in b.prefix else b.prefix + ":..." for b in backends())
        + " (run `socialbench models` for details)"
    )


def check_model_spec(spec: str, extra: Sequence[tuple[str, str]] = ()) -> None:
    """What :func:`create_model` would refuse in ``spec`` and its ``--model-opt`` pairs, found
    without building the model (no weights loaded, no key read, nothing sent): an unknown
    backend, an option the backend does not read, a rest its ``check_rest`` refuses."""
    info, rest = _backend_of(spec)
    info.check_options(ModelOptions(extra=tuple(extra)))
    if info.check_rest is not None:
        info.check_rest(rest)


def create_model(spec: str, options: ModelOptions | None = None) -> Model:
    """Build a model from a spec such as ``openai:gpt-4o`` or ``baseline:random``; a
    ``--model-opt`` key the backend does not declare is refused (:meth:`BackendInfo.check_options`)."""
    options = options or ModelOptions()
    info, rest = _backend_of(spec)
    info.check_options(options)
    return info.factory(rest, options)
