"""A benchmark's options, and what one ``socialbench eval`` asks of a run.

Each benchmark declares its options as a frozen dataclass of :func:`option` fields whose
``variant()`` names the run folder (the README's "Adding a benchmark" shows one). The command
line makes one ``--flag`` per field of every registered benchmark and hands the given ones to
the chosen benchmark (:func:`parse_options`); a flag of another benchmark, or a value outside
``choices``, is a :class:`~socialbench.errors.UsageError`. ``socialbench eval --help`` imports
this module: keep it, and every options module, free of heavy imports.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from socialbench.benchmarks.generation import GenerationOverrides
from socialbench.errors import UsageError

_META = "socialbench.option"


@dataclass(frozen=True)
class OptionInfo:
    """What the command line and the report know about one option besides its default."""

    help: str
    #: Allowed values ('' for any value of the field's type).
    choices: tuple[str, ...] = ()
    #: Least allowed value of an integer option.
    min: int | None = None
    #: How a non-default value is shown in a run's label: a format of ``value`` and ``name``.
    label: str = "{value}"
    #: The option matters only while another option has this value, e.g. RobotEQ's RAG
    #: settings only with ``strategy="rag"``: (that option's name, its value).
    when: tuple[str, object] | None = None
    #: Recorded under run.json ``options`` (a detail of the run) instead of at its top level.
    detail: bool = False


def option(
    default: Any,
    *,
    help: str,
    choices: Sequence[str] = (),
    min: int | None = None,
    label: str = "{value}",
    when: tuple[str, object] | None = None,
    detail: bool = False,
) -> Any:
    """A field of an options dataclass: its default and its :class:`OptionInfo`."""
    info = OptionInfo(help, tuple(choices), min, label, when, detail)
    return field(default=default, metadata={_META: info})


class BenchmarkOptions(Protocol):
    """What every options dataclass provides besides its fields."""

    def variant(self, perturbation: str | None = None) -> str:
        """The last part of the run folder's name (``cot-img-with-bev``, ``rag-blur2``);
        ``perturbation`` is the run's perturbation tag (``blur2``), or None."""
        ...


OptionsT = TypeVar("OptionsT")


def slug(text: str) -> str:
    """``text`` as a part of a folder name: runs of other characters than letters, digits,
    ``.``, ``_`` and ``-`` become one ``_`` (at most 80 characters)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text.replace("://", "_")).strip("_")[:80]


def with_perturbation(name: str, perturbation: str | None) -> str:
    """``name`` followed by ``-PERTURBATION`` when the run perturbs its inputs."""
    return f"{name}-{perturbation}" if perturbation else name


@dataclass(frozen=True)
class OptionField:
    """One option of a benchmark: its field name, type, default and :class:`OptionInfo`."""

    name: str
    type: Any
    default: Any
    info: OptionInfo

    @property
    def flag(self) -> str:
        """The command-line flag, ``--rag-backend`` for ``rag_backend``."""
        return "--" + self.name.replace("_", "-")

    @property
    def is_flag(self) -> bool:
        """A boolean option: given as a bare ``--flag`` (on), absent (off)."""
        return self.type is bool


def option_fields(cls: type[Any]) -> tuple[OptionField, ...]:
    """The options of an options dataclass, in declaration order."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        info = f.metadata.get(_META)
        if info is None:
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with option(...)")
        out.append(OptionField(f.name, hints[f.name], f.default, info))
    return tuple(out)


def _check_value(f: OptionField, value: object) -> None:
    """Refuse a value the option does not allow, naming the flag."""
    if f.info.choices and value not in f.info.choices:
        raise UsageError(f"{f.flag} must be one of {', '.join(f.info.choices)} (got {value!r})")
    if f.info.min is not None and (not isinstance(value, int) or isinstance(value, bool) or value < f.info.min):
        raise UsageError(f"{f.flag} must be an integer >= {f.info.min} (got {value!r})")


def parse_options(
    cls: type[OptionsT], given: Mapping[str, object], benchmark: str, owners: Callable[[str], str]
) -> OptionsT:
    """The options dataclass ``cls`` of ``benchmark`` from the options ``given`` by name
    (the rest keep their defaults). An option ``cls`` does not have is refused with
    ``owners(name)`` (which benchmarks take it); a value outside its choices is refused."""
    fields = {f.name: f for f in option_fields(cls)}
    for name, value in given.items():
        f = fields.get(name)
        if f is None:
            raise UsageError(f"{'--' + name.replace('_', '-')} {owners(name)} (not {benchmark})")
        _check_value(f, value)
    return cls(**given)


def options_record(options: object) -> tuple[dict[str, Any], dict[str, Any]]:
    """The options as run.json records them: (top-level fields, ``options`` details)."""
    top: dict[str, Any] = {}
    details: dict[str, Any] = {}
    for f in option_fields(type(options)):
        (details if f.info.detail else top)[f.name] = getattr(options, f.name)
    return top, details


def recorded_options(cls: type, run: Mapping[str, Any]) -> dict[str, Any]:
    """A run's options of benchmark options class ``cls`` as recorded in its run.json
    (:func:`options_record`); an option not recorded (an older run) has its default."""
    details = run.get("options")
    details = details if isinstance(details, Mapping) else {}
    out: dict[str, Any] = {}
    for f in option_fields(cls):
        where = details if f.info.detail else run
        value = where.get(f.name, f.default)
        out[f.name] = f.default if value is None else value
    return out


def distinguishing(cls: type, values: Mapping[str, Any]) -> list[tuple[OptionField, Any]]:
    """The options among ``values`` that set a run apart: not at their default, and in
    effect (an option that matters only under another option's value counts only then)."""
    out = []
    for f in option_fields(cls):
        value = values.get(f.name, f.default)
        if value is None or str(value) == str(f.default):
            continue
        if f.info.when is not None and values.get(f.info.when[0]) != f.info.when[1]:
            continue
        out.append((f, value))
    return out


def in_variant(cls: type[BenchmarkOptions], name: str) -> bool:
    """Whether the run folder's variant name shows option ``name`` (changing it from its
    default changes ``variant()``)."""
    f = next(x for x in option_fields(cls) if x.name == name)
    if f.is_flag:
        other: object = not f.default
    elif f.info.choices:
        other = next((c for c in f.info.choices if c != f.default), f.default)
    elif f.type is int or f.type == (int | None):
        other = (f.default or 0) + 1
    else:
        other = f"{f.default}-other"
    base = cls()
    return base.variant() != dataclasses.replace(base, **{name: other}).variant()  # type: ignore[type-var]


class EvalOptions:
    """What one ``socialbench eval`` asks of a run: the run options every benchmark shares
    (metric protocol, item limit, seed, perturbation) and the chosen benchmark's own options
    as given, by name: as keywords (``EvalOptions(method="cot")``) or as the mapping
    ``extra``. Options given as None are not given (they keep the benchmark's default).
    The benchmark turns them into its options dataclass (``check_options``)."""

    __slots__ = ("protocol", "limit", "seed", "perturb", "perturb_strength", "generation", "given")

    protocol: str
    limit: int | None
    seed: int
    perturb: str | None
    perturb_strength: float
    #: The generation flags given (``--temperature``, ...): they change the benchmark's settings.
    generation: GenerationOverrides
    given: Mapping[str, object]

    def __init__(
        self,
        *,
        protocol: str = "paper",
        limit: int | None = None,
        seed: int = 0,
        perturb: str | None = None,
        perturb_strength: float = 1.0,
        generation: GenerationOverrides | None = None,
        extra: Mapping[str, object] | None = None,
        **options: object,
    ) -> None:
        given = {k: v for k, v in {**(extra or {}), **options}.items() if v is not None}
        for name, value in (
            ("protocol", protocol),
            ("limit", limit),
            ("seed", seed),
            ("perturb", perturb),
            ("perturb_strength", perturb_strength),
            ("generation", generation or GenerationOverrides()),
            ("given", MappingProxyType(given)),
        ):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("EvalOptions is immutable")

    def __repr__(self) -> str:
        return (
            f"EvalOptions(protocol={self.protocol!r}, limit={self.limit!r}, seed={self.seed!r}, "
            f"perturb={self.perturb!r}, perturb_strength={self.perturb_strength!r}, "
            f"generation={self.generation.as_dict()!r}, given={dict(self.given)!r})"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EvalOptions) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    @property
    def perturbation(self) -> str | None:
        """The perturbation's tag in run folder names (``blur2``), or None."""
        return f"{self.perturb}{self.perturb_strength:g}" if self.perturb else None
