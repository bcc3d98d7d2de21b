"""Scene context for the waypoint prompt (``--context``), after the paper's Figure 4.

For every person i of the sample, the answers to "Person End Goal Obstruction"
(``q_obstructing_end_position_p<i>``) and "Robot Action to Person at End"
(``q_robot_suggested_action_p<i>``), from one source: ``none`` (no block), ``random``
(uniform, seeded by run seed, item id and question key), ``human-oracle`` (the human mode)
or ``model:RUN_DIR`` (Table 3's Same-Model: the same model's answers in a finished
SocialNav-SUB run on the same data, checked by :func:`read_context_run` and
:func:`check_same_model` as the README's "Waypoint selection" lists, and described in
``metrics.json`` as ``context_run``). The block is ``Scene context:`` then one line
``- <fact>`` per question in person order.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from socialbench.errors import DataError, UsageError
from socialbench.types import Item, ParsedAnswer, Question

__all__ = [
    "CONTEXT_KEYS",
    "SOURCES",
    "ContextRun",
    "check_context",
    "check_same_model",
    "context_answers",
    "context_block",
    "read_context_run",
]

CONTEXT_KEYS = ("q_obstructing_end_position", "q_robot_suggested_action")
SOURCES = ("none", "random", "human-oracle", "model:RUN_DIR")
HEADER = "Scene context:"
#: Benchmarks whose runs answer the context questions (``socialnav-sim`` runs SocialNav-SUB
#: on the bundled scenes).
CONTEXT_BENCHMARKS = ("socialnav-sub", "socialnav-sim")
#: SocialNav-SUB methods whose spatial answers are not the model's (human mode, rule-based
#: module): their runs are no Same-Model context.
NOT_THE_MODELS_METHODS = ("cot-gt", "scene-context")
_FIX_RUN = "run `socialbench eval -b socialnav-sub` (or socialnav-sim) with this model on this --data first"


def check_context(value: str) -> str:
    """``value`` if it names a context source, else a :class:`UsageError`. A ``model:``
    source is only named here; :func:`read_context_run` reads and checks its folder."""
    if value in ("none", "random", "human-oracle"):
        return value
    if value.startswith("model:") and value[len("model:") :]:
        return value
    raise UsageError(f"--context must be one of {', '.join(SOURCES)} (got {value!r})")


@dataclass(frozen=True)
class ContextRun:
    """A SocialNav-SUB run folder given as ``--context model:RUN_DIR``: what its ``run.json``
    records and its answers, (item id, question key) -> (parsed answer, error)."""

    value: str
    folder: Path
    benchmark: str
    model: str
    model_identity: str | None
    dataset_fingerprint: str
    method: str
    images: str
    perturb: object  # run.json's "perturb" block, compared with this run's
    answers: Mapping[tuple[str, str], tuple[ParsedAnswer, str | None]]

    def refuse(self, reason: str, fix: str) -> UsageError:
        """The one-line refusal of this run: the option, the folder, the reason, the fix."""
        return refusal(self.value, self.folder, reason, fix)

    def describe(self) -> dict[str, str | None]:
        """What ``metrics.json`` records of the run (``context_run``): no path, only what
        identifies the answers."""
        return {
            "kind": "same-model",
            "benchmark": self.benchmark,
            "model": self.model,
            "model_identity": self.model_identity,
            "dataset_fingerprint": self.dataset_fingerprint,
            "method": self.method,
            "images": self.images,
        }


def refusal(value: str, folder: Path, reason: str, fix: str) -> UsageError:
    """``--context VALUE: FOLDER REASON; FIX`` as a :class:`UsageError` (one line)."""
    return UsageError(f"--context {value}: {folder} {reason}; {fix}")


def _text_field(run: Mapping[str, object], name: str, value: str, folder: Path, *, default: str | None = None) -> str:
    got = run.get(name, default)
    if not isinstance(got, str) or not got:
        raise refusal(
            value,
            folder,
            f"has no usable {name!r} in run.json (got {got!r})",
            "give a run folder written by `socialbench eval`",
        )
    return got


def read_context_run(value: str) -> ContextRun:
    """Read the run folder of ``--context model:RUN_DIR`` and check what needs neither this
    run's model nor its data: a ``run.json`` of a finished SocialNav-SUB run whose answers
    are the model's own (see the module docstring). Every refusal is a one-line
    :class:`UsageError` naming the folder, the reason and the fix; files of the wrong form
    are refused the same way, never a traceback."""
    from socialbench.files.safe_read import read_json
    from socialbench.records import read_samples

    folder = Path(value[len("model:") :])

    def refuse(reason: str, fix: str = _FIX_RUN) -> UsageError:
        return refusal(value, folder, reason, fix)

    if folder.is_file() or not folder.exists():
        what = "is a file, not a run folder" if folder.is_file() else "does not exist"
        raise refuse(what, "give the folder written by `socialbench eval -b socialnav-sub`")
    if not (folder / "run.json").is_file():
        raise refuse(
            "has no run.json, so neither its model nor its data can be checked",
            "give a folder written by `socialbench eval -b socialnav-sub`",
        )
    try:
        run = read_json(folder / "run.json")
    except DataError as exc:
        raise refuse(f"has an unreadable run.json ({exc.problems[0].message})") from None
    if not isinstance(run, dict):
        raise refuse("has a run.json that is not a JSON object")
    epochs = run.get("epoch_dirs")
    if epochs is not None:
        first = epochs[0] if isinstance(epochs, list) and epochs and isinstance(epochs[0], str) else "epoch-1"
        raise refuse(
            "holds an --epochs run (one set of answers per epoch)",
            f"give one of its epoch folders, e.g. model:{folder / first}",
        )
    benchmark = _text_field(run, "benchmark", value, folder)
    if benchmark not in CONTEXT_BENCHMARKS:
        raise refuse(f"is a {benchmark} run, not SocialNav-SUB: it has no answers to the context questions")
    status = run.get("status")
    if status != "complete":
        answered = run.get("answered")
        raise refuse(
            f"did not finish (run.json status {status!r}"
            + (f", {answered} questions answered" if isinstance(answered, int) else "")
            + ")",
            f"resume it with its own eval command and --out {folder}, then try again",
        )
    method = _text_field(run, "method", value, folder, default="independent")
    if method in NOT_THE_MODELS_METHODS:
        whose = "the human mode" if method == "cot-gt" else "the rule-based perception module"
        raise refuse(
            f"is a --method {method} run: its spatial answers are {whose}'s, not the model's",
            "use a --method independent or cot run of the model",
        )
    fingerprint = _text_field(run, "dataset_fingerprint", value, folder)
    model = _text_field(run, "model", value, folder)
    identity = run.get("model_identity")
    if identity is not None and not isinstance(identity, str):
        raise refuse(f"has a model_identity that is not text ({identity!r})")
    try:
        records = read_samples(folder / "samples.jsonl")
    except DataError as exc:
        raise refuse(f"has an unreadable samples.jsonl ({exc.problems[0].message})") from None
    answers = {(r.item_id, r.question_key): (r.parsed, r.error) for r in records}
    images = run.get("images")
    return ContextRun(
        value=value,
        folder=folder,
        benchmark=benchmark,
        model=model,
        model_identity=identity,
        dataset_fingerprint=fingerprint,
        method=method,
        images=images if isinstance(images, str) else "img-with-bev",
        perturb=run.get("perturb"),
        answers=answers,
    )


def check_same_model(
    run: ContextRun,
    *,
    model: str,
    model_identity: str,
    perturb: Mapping[str, object] | None,
    data_fingerprint: str,
    items: Iterable[Item],
) -> dict[tuple[str, str], ParsedAnswer]:
    """The context answers of ``run`` for ``items`` (the SocialNav-SUB items of this run),
    once it is Table 3's Same-Model context for a run of ``model`` (its spec and
    ``model_identity``) with ``perturb`` (as run.json records it) on data whose
    SocialNav-SUB fingerprint is ``data_fingerprint``; else a one-line refusal."""
    same = model_identity == run.model_identity if run.model_identity is not None else model == run.model
    if not same:
        raise run.refuse(
            f"holds the answers of {run.model}, not of this run's model {model}",
            "Same-Model context must be this model's own SocialNav-SUB answers: " + _FIX_RUN,
        )
    if run.dataset_fingerprint != data_fingerprint:
        raise run.refuse(
            f"was made on other data (dataset fingerprint {run.dataset_fingerprint[:12]}, "
            f"this --data has {data_fingerprint[:12]})",
            _FIX_RUN,
        )
    if (run.perturb or None) != (dict(perturb) if perturb else None):
        raise run.refuse(
            f"was made with perturbation {run.perturb!r}, this run with {perturb!r}",
            "use a run of the model with the same --perturb (or none)",
        )
    out: dict[tuple[str, str], ParsedAnswer] = {}
    lacking: list[str] = []
    n = 0
    for item in items:
        for q in _context_questions(item):
            n += 1
            parsed, error = run.answers.get((item.item_id, q.key), (None, "missing"))
            if error is None and parsed in q.options:
                out[(item.item_id, q.key)] = parsed
            else:
                lacking.append(f"{item.item_id} {q.key}: " + ("no valid answer" if error is None else error))
    if lacking:
        raise run.refuse(
            f"lacks the model's answer to {len(lacking)} of the {n} context questions (first: {lacking[0]})",
            "Same-Model context needs every one: run SocialNav-SUB on every sample of this --data "
            "(without --limit), or use another --context",
        )
    return out


def _context_questions(item: Item) -> list[Question]:
    return [q for q in item.questions if q.base_key in CONTEXT_KEYS]


def context_answers(
    item: Item, source: str, seed: int = 0, model_answers: Mapping[tuple[str, str], ParsedAnswer] | None = None
) -> list[tuple[Question, ParsedAnswer]]:
    """(question, answer) for each context question of ``item``, by person, from ``source``
    (for ``model:``, ``model_answers`` as :func:`check_same_model` returns them)."""
    out: list[tuple[Question, ParsedAnswer]] = []
    qs = sorted(_context_questions(item), key=lambda q: (q.person or 0, CONTEXT_KEYS.index(q.base_key)))
    for q in qs:
        if source == "human-oracle":
            votes = item.votes.get(q.key)
            answer: ParsedAnswer = votes.mode(q.choices) if votes is not None else None
        elif source == "random":
            digest = hashlib.sha256(f"{seed}\0{item.item_id}\0{q.key}\0context".encode()).digest()
            answer = random.Random(int.from_bytes(digest[:8], "big")).choice(q.options)
        elif source.startswith("model:"):
            if model_answers is None or (item.item_id, q.key) not in model_answers:
                raise ValueError(f"no checked Same-Model answer for {item.item_id} {q.key} (see check_same_model)")
            answer = model_answers[(item.item_id, q.key)]
        else:
            raise ValueError(f"no context answers for source {source!r}")
        out.append((q, answer))
    return out


def context_block(pairs: Sequence[tuple[Question, object]]) -> str:
    """The block text: the header and one line per (question, answer)."""
    from socialbench.benchmarks.socialnav_sub.scene_context import fact_line

    return "\n".join([HEADER, *(f"- {fact_line(q, a)}" for q, a in pairs)])
