"""The SocialNav-SUB ablation tables built from run directories: :func:`socialnav_ablation_table`
(Tables 2 / 13: BEV + CoT, No CoT, No BEV per model) and :func:`socialnav_gt_table` (Table 14:
CoT vs CoT-GT per social question), from runs of one model that differ only in ``--method`` /
``--images``."""

from __future__ import annotations

from collections.abc import Sequence

from socialbench.report.labels import display_name
from socialbench.report.metric_cells import sn_block, sn_pair
from socialbench.report.provenance import marked, partial_note
from socialbench.report.run_dir import RunDir
from socialbench.report.socialnav_tables import QUESTION_TABLE, SN_GROUP_TITLES, SN_GROUPS, check_protocol, epochs_note
from socialbench.report.table import Cell, Row, Table

#: What runs that differ only in ``--method`` / ``--images`` share: (benchmark, model, options).
_ModelKey = tuple[str, str, tuple[tuple[str, str], ...]]

#: The rows of the paper's Tables 2 / 13: (row name, --method, --images).
ABLATIONS: tuple[tuple[str, str, str], ...] = (
    ("BEV + CoT", "cot", "img-with-bev"),
    ("No CoT", "independent", "img-with-bev"),
    ("No BEV", "cot", "img"),
)
#: The columns of Table 14 (and the hybrid strategy next to them): (title, --method).
GT_METHODS: tuple[tuple[str, str], ...] = (
    ("CoT", "cot"),
    ("CoT with ground-truth spatial(temporal) answers", "cot-gt"),
    ("CoT-GT without Person Goal Obstruction", "cot-gt-no-obstruction"),
    ("Scene context (rule-based perception)", "scene-context"),
)
#: Table 14's columns that need the cot run and one of these.
_GT_RUNS = ("cot-gt", "cot-gt-no-obstruction")


def _method(r: RunDir) -> str:
    """A run's ``--method``, ``cot-gt-no-obstruction`` for ``cot-gt --gt-without-obstruction``."""
    method = str(r.run.get("method") or "independent")
    return method + ("-no-obstruction" if method == "cot-gt" and r.run.get("gt_without_obstruction") else "")


def _same_model_key(r: RunDir) -> _ModelKey:
    """What runs that differ only in ``--method`` / ``--images`` share."""
    return (r.benchmark, r.model, r.options_key(rag=True))


def _by_model(runs: Sequence[RunDir]) -> dict[_ModelKey, dict[tuple[str, str], RunDir]]:
    """Clean runs grouped by :func:`_same_model_key`, then by (method, images)."""
    out: dict[_ModelKey, dict[tuple[str, str], RunDir]] = {}
    for r in runs:
        if r.perturbation is not None:
            continue
        cfg = (_method(r), str(r.run.get("images") or "img-with-bev"))
        out.setdefault(_same_model_key(r), {}).setdefault(cfg, r)
    return out


def socialnav_ablation_table(runs: Sequence[RunDir]) -> Table | None:
    """SocialNav-SUB Tables 2 / 13: the querying-strategy ablation, PA ± SE per category.

    For each model with at least two of the :data:`ABLATIONS` configurations among the runs
    (same model, benchmark and options; clean images), one row per configuration present:
    BEV + CoT (``--method cot``), No CoT (``--method independent``), No BEV (``--method cot
    --images img``). ``None`` when no model has two.
    """
    protocol = check_protocol(runs)
    cats = SN_GROUPS[1:]
    rows = []
    shown = []
    for configs in _by_model(runs).values():
        present = [(name, configs[(m, i)]) for name, m, i in ABLATIONS if (m, i) in configs]
        if len(present) < 2:
            continue
        for name, r in present:
            shown.append(r)
            cells = tuple(sn_pair(sn_block(r.metrics, "model", c))[0] for c in cats)
            rows.append(Row((display_name(r.model), marked(name, [r])), cells))
    if not rows:
        return None
    notes: tuple[str, ...] = (
        f"Protocol: {protocol}. Probability of Agreement"
        + (f". {spread} " if (spread := epochs_note(shown)) else ", mean ± standard error over questions. ")
        + "BEV + CoT: --method cot; No CoT: --method independent; No BEV: --method cot --images img "
        "(front view only).",
    )
    if (note := partial_note(shown)) is not None:
        notes += (note,)
    return Table(
        "socialnav_table2_ablation",
        "Ablation experiment of querying strategies, PA (SocialNav-SUB Tables 2 and 13)",
        ("Model", "Ablation"),
        tuple(SN_GROUP_TITLES[c] for c in cats),
        tuple(rows),
        (),
        notes,
    )


def socialnav_gt_table(runs: Sequence[RunDir]) -> Table | None:
    """SocialNav-SUB Table 14: CoT vs CoT with the human answers to the spatial and
    spatiotemporal questions, per social question (PA and CW PA ± SE).

    For each model with a ``cot`` run and a ``cot-gt`` run (same images and options; clean),
    one section of seven rows; a ``cot-gt --gt-without-obstruction`` run (§7.9's follow-up:
    Person Goal Obstruction answered by the model) and a ``scene-context`` run of the same
    model add a column pair each (the latter: the rule-based perception module's answers
    instead of the humans'). ``None`` when no model has ``cot`` and one of the ``cot-gt``
    runs.
    """
    protocol = check_protocol(runs)
    social = [(key, name) for cat, key, name in QUESTION_TABLE if cat == "Social"]
    blocks = []
    for configs in _by_model(runs).values():
        for images in sorted({i for _, i in configs}):
            if ("cot", images) not in configs or not any((m, images) in configs for m in _GT_RUNS):
                continue
            blocks.append((configs[("cot", images)], [configs.get((m, images)) for _, m in GT_METHODS]))
    if not blocks:
        return None
    shown = [j for j, (_, m) in enumerate(GT_METHODS) if m in ("cot", "cot-gt") or any(f[j] for _, f in blocks)]
    methods = [GT_METHODS[j] for j in shown]
    with_context = "scene-context" in {m for _, m in methods}
    rows = []
    for base, found in blocks:
        label = display_name(base.model) + (
            "" if base.run.get("images") in (None, "img-with-bev") else f" ({base.run.get('images')})"
        )
        label = marked(label, [base, *(r for r in found if r is not None)])
        for key, name in social:
            cells: list[Cell] = []
            for j in shown:
                r = found[j]
                cells += list(sn_pair(sn_block(r.metrics, "model", key) if r is not None else None))
            rows.append(Row((name,), tuple(cells), label))
    notes = [
        f"Protocol: {protocol}. Mean ± standard error over the questions of each type. CoT with ground truth: "
        "the spatial and spatiotemporal questions are answered by the human mode and given to the model as "
        "chain-of-thought context (--method cot-gt); only the social questions are the model's."
    ]
    if any(m == "cot-gt-no-obstruction" for _, m in methods):
        notes.append(
            "CoT-GT without Person Goal Obstruction (§7.9's follow-up, --gt-without-obstruction): as CoT-GT, "
            "but the model answers Person Goal Obstruction itself and its own answer is the context."
        )
    if with_context:
        notes.append(
            "Scene context: the same questions answered by the rule-based module on the tracks instead "
            "(--method scene-context)."
        )
    in_table = {id(r): r for base, found in blocks for r in (base, *found) if r is not None}
    note = partial_note(list(in_table.values()))
    if note is not None:
        notes.append(note)
    return Table(
        "socialnav_table14_cot_gt",
        "CoT vs CoT with ground-truth spatial and spatiotemporal answers (SocialNav-SUB Table 14)",
        ("Question Name",),
        tuple(c for _ in methods for c in ("PA", "CW PA")),
        tuple(rows),
        tuple((title, 2) for title, _ in methods),
        tuple(notes),
        section_header="Model",
    )
