"""A sweep plan's option keys and values as ``socialbench eval`` takes them: a key is one of
eval's option names (``rag-k``, ``rag_k``, ``--rag-k``), a value is converted to the option's
type (:func:`coerce`) and passes eval's own check (:func:`checked`); anything else is a
:class:`UsageError` naming the plan file and the key (:func:`refuse`).
"""

from __future__ import annotations

import typing
from pathlib import Path

from socialbench.errors import UsageError
from socialbench.sweep.plan_yaml import key_line, key_shown, shown

#: A plan's option value once converted to the type of eval's option.
PlanValue = typing.Union[bool, int, float, str, Path, None]  # noqa: UP007 - a runtime alias on Python 3.10

#: eval parameters a plan sets elsewhere (models:, benchmarks:, the sweep's --out).
_NOT_AXES = {
    "benchmark": "list benchmarks under `benchmarks:`",
    "model": "list models under `models:`",
    "data": "give a benchmark's data as `{name: ..., data: PATH}` under `benchmarks:`",
    "out_dir": "the sweep names each cell's run directory under its --out",
    "model_opt": "give `model_opt: {KEY: VALUE}` in that model's entry under `models:`",
    "progress": "use the sweep's --progress/--no-progress",
}


def refuse(path: Path, where: str, what: str, fix: str, line: int | None = None) -> UsageError:
    """The refusal of the plan at ``path``: ``where`` (the key, on ``line`` when known), what
    is wrong, the fix."""
    at = f"{path}:{line}" if line is not None else str(path)
    return UsageError(f"{at}: {where}: {what}; {fix}")


def nearest_option(key: str, names: typing.Iterable[str]) -> str | None:
    """The eval option name closest to the mistyped ``key`` (difflib's ratio >= 0.6), or None."""
    import difflib

    wanted = key.lstrip("-").lower()
    found = difflib.get_close_matches(wanted, sorted(set(names)), n=1, cutoff=0.6)
    return found[0] if found else None


def eval_option_names() -> dict[str, str]:
    """Every name a plan may use for an eval option (``rag-k``, ``rag_k``, ``--rag-k``) ->
    eval's parameter name."""
    from socialbench.runner.eval_options import eval_flags

    names: dict[str, str] = {}
    for f in eval_flags():
        pname = f.name
        names[pname] = pname
        names[pname.replace("_", "-")] = pname
        for decl in f.decls:
            for d in decl.split("/"):
                if d.startswith("--"):
                    names[d[2:]] = pname
    return names


def option_types() -> dict[str, object]:
    """Each eval option's parameter name -> its type."""
    from socialbench.runner.eval_options import eval_flags

    return {f.name: f.annotation for f in eval_flags()}


def coerce(value: object, hint: object, path: Path, where: str) -> PlanValue:
    """``value`` as eval would take it (the parameter's type), or a refusal naming ``where``."""
    args = typing.get_args(hint)
    if type(None) in args:
        if value is None:
            return None
        hint = next(a for a in args if a is not type(None))
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise refuse(path, where, f"expects true or false (got {shown(value)})", "write true or false")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise refuse(path, where, f"expects an integer (got {shown(value)})", "write a whole number")
    if hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise refuse(path, where, f"expects a number (got {shown(value)})", "write a number")
    if hint is Path:
        if isinstance(value, str) and value:
            return Path(value)
        raise refuse(path, where, f"expects a path (got {shown(value)})", "write a path")
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    raise refuse(path, where, f"expects a word (got {shown(value)})", "write a single value")


def option_key(key: object, path: Path, where: str) -> str:
    names = eval_option_names()
    name = names.get(str(key).lstrip("-")) if isinstance(key, str) else None
    if name is None:
        near = nearest_option(key, names) if isinstance(key, str) else None
        hint = f"did you mean `{near}`? " if near else ""
        raise refuse(
            path,
            f"{where}.{key_shown(key)}",
            "not an option of `socialbench eval`",
            f"{hint}use eval's option names (see `socialbench eval --help`); "
            "repeat runs with `epochs: 3` or `seed: [0, 1, 2]`",
            line=key_line(path, key),
        )
    if name in _NOT_AXES:
        raise refuse(path, f"{where}.{key}", "not an axis", _NOT_AXES[name])
    return name


def checked(name: str, value: PlanValue, path: Path, where: str) -> PlanValue:
    """``value`` if eval accepts it for its option ``name`` (eval's own check), else a
    refusal naming ``where``."""
    from socialbench.runner.eval_options import eval_value_problem

    problem = eval_value_problem(name, value)
    if problem is not None:
        raise refuse(path, where, problem, "give a value `socialbench eval` accepts (see `socialbench eval --help`)")
    return value
