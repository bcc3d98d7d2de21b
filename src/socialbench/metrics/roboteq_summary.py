"""Reading a RobotEQ ``metrics.json`` back: a plain-text summary for the CLI
(:func:`format_summary`) and the drop of every metric from a clean run to a perturbed one
(:func:`robustness_drop`, paper Figure 8)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from socialbench.metrics.roboteq import GROUNDING_METRICS, JUDGMENT_METRICS

__all__ = ["MetricDrop", "RobustnessDrop", "robustness_drop", "format_summary"]


class MetricDrop(TypedDict):
    """One metric's value in a clean and a perturbed run and its drop (see
    :func:`robustness_drop`)."""

    clean: float
    perturbed: float
    drop: float
    relative_drop: float | None


class RobustnessDrop(TypedDict):
    """What :func:`robustness_drop` returns: the drops overall and per subset."""

    benchmark: object
    perturbation: object
    overall: dict[str, MetricDrop]
    by_subset: dict[str, dict[str, MetricDrop]]


def _block(metrics: Mapping[str, object], key: str) -> Mapping[str, object]:
    """The JSON object ``metrics[key]`` ({} when absent, null or not an object)."""
    value = metrics.get(key)
    return value if isinstance(value, Mapping) else {}


def _drops(a: Mapping[str, object], b: Mapping[str, object]) -> dict[str, MetricDrop]:
    out: dict[str, MetricDrop] = {}
    for name, va in a.items():
        vb = b.get(name)
        if not (isinstance(va, Mapping) and isinstance(vb, Mapping)):
            continue
        x, y = va.get("value"), vb.get("value")
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            drop = x - y
            out[name] = {"clean": x, "perturbed": y, "drop": drop, "relative_drop": drop / x if x else None}
    return out


def robustness_drop(clean: Mapping[str, object], perturbed: Mapping[str, object]) -> RobustnessDrop:
    """Drop of every metric from a clean run's metrics.json to a perturbed run's.

    For each metric value present in both (``overall`` and each ``by_subset`` group):
    ``clean``, ``perturbed``, ``drop = clean - perturbed`` and
    ``relative_drop = drop / clean`` (None when clean is 0). Rates where lower is better
    (invalid_rate, error_rate) are reported the same way, so their drop is negative when
    they get worse. Raises ``ValueError`` when the two come from different benchmarks.
    """
    if clean.get("benchmark") != perturbed.get("benchmark"):
        raise ValueError(f"cannot compare {clean.get('benchmark')!r} with {perturbed.get('benchmark')!r}")
    result: RobustnessDrop = {
        "benchmark": clean.get("benchmark"),
        "perturbation": perturbed.get("perturbation"),
        "overall": _drops(_block(clean, "overall"), _block(perturbed, "overall")),
        "by_subset": {},
    }
    other_subsets = _block(perturbed, "by_subset")
    for group, values in _block(clean, "by_subset").items():
        other = other_subsets.get(group)
        if isinstance(values, Mapping) and isinstance(other, Mapping):
            result["by_subset"][group] = _drops(values, other)
    return result


def _fmt(stat: object) -> str:
    value = stat.get("value") if isinstance(stat, Mapping) else None
    if not isinstance(value, (int, float)):
        return "—"
    se = stat.get("se") if isinstance(stat, Mapping) else None
    return f"{100 * value:.2f}" + (f" ± {100 * se:.2f}" if isinstance(se, (int, float)) else "")


def format_summary(metrics: Mapping[str, object]) -> str:
    """A few plain-text lines of a RobotEQ metrics.json (percent ± SE) for the CLI."""
    bench = metrics.get("benchmark", "roboteq")
    names = JUDGMENT_METRICS if bench == "roboteq-bj" else GROUNDING_METRICS
    lines = [f"{bench} — {metrics.get('note', '')}".rstrip(" —")]
    rows: list[tuple[str, object]] = [("overall", _block(metrics, "overall"))]
    rows += [(f"  {k}", v) for k, v in _block(metrics, "by_subset").items()]
    header = f"{'group':<24}" + "".join(f"{n:>16}" for n in names)
    lines.append(header)
    for label, values in rows:
        block = values if isinstance(values, Mapping) else {}
        n = block.get("n")
        lines.append(f"{label + (f' (n={n})' if n else ''):<24}" + "".join(f"{_fmt(block.get(m)):>16}" for m in names))
    return "\n".join(lines)
