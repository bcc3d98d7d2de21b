"""RobotEQ-Bench as two socialbench benchmarks: ``roboteq-bj`` and ``roboteq-sg``.

``roboteq-bj`` (behavior judgment)
    By default one request per scene listing all candidate behaviors (paper Figure 18),
    answered as one JSON object; each behavior gets its own record (key ``b<k>``), and a
    missing, malformed or duplicated judgment is invalid for that behavior only.
    ``--per-behavior`` sends one request per behavior. Baselines that answer from the item
    (``baseline:*``, ``human:*``, ``replay:``) read no prompt, so they are always asked per
    behavior.
``roboteq-sg`` (spatial grounding)
    One request per question; the answer is a set of regions among A-D.

Strategies (``--strategy``): ``standard``; ``cot`` (reasoning then answer, max_tokens
2048); ``no-image`` (no image is sent: the paper's w/o-image ablation); ``rag`` (social-norm
documents retrieved per request are prepended; see :mod:`.rag`; ``EvalOptions.extra["rag_k"]``
sets how many, default 2, and ``EvalOptions.extra["rag_backend"]`` how: ``bm25`` (default),
``dense`` (all-MiniLM-L6-v2 embeddings, extra ``socialbench[dense]``) or ``hybrid``
(reciprocal-rank fusion of both)). Decoding follows the paper (§G.5): temperature 0, max_tokens
1024 (2048 for CoT), JSON replies; images with the longest side <= 768 px come from the run's
:class:`~socialbench.vision.images.ImagePolicy`. ``--perturb`` is applied by the image
policy before encoding (:mod:`socialbench.vision.perturb`).

Accounting: each record's ``usage`` holds the request's prompt/completion tokens (shared by
the records of one per-scene request; :func:`socialbench.metrics.roboteq.request_costs`
counts each request once) and, for ``rag``, ``rag_added_tokens`` (approximate prompt tokens
added by the retrieved documents, ``ceil(chars / 4)``) and ``rag_retrieval_us``
(retrieval time in microseconds).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable, Sequence

from socialbench.benchmarks.base import (
    EvalOptions,
    SolveContext,
    question_order,
    register_benchmark,
    scoring_summary,
)
from socialbench.benchmarks.roboteq.loader import (
    TASK_BJ,
    TASK_SG,
    RobotEQDataset,
    find_label_files,
    load_roboteq,
    resolve_data,
)
from socialbench.benchmarks.roboteq.prompts import (
    STRATEGIES,
    approx_tokens,
    behavior_prompt,
    grounding_prompt,
    parse_grounding,
    parse_judgments,
    rag_block,
    scene_prompt,
)
from socialbench.benchmarks.roboteq.validate import LABELS, normalise_label, validate_roboteq
from socialbench.errors import Problem, UsageError
from socialbench.metrics.roboteq import (
    GroundingRow,
    JudgmentRow,
    breakdown,
    cwpa_basis,
    grounding_metrics,
    human_average,
    judgment_metrics,
    parse_method_counts,
    request_costs,
    subset_breakdown,
    table1,
)
from socialbench.prompting.parsing import parse_answer
from socialbench.types import EncodedImage, GenerationConfig, Item, Outcome, Question, Request, SampleRecord

__all__ = ["RobotEQJudgment", "RobotEQGrounding", "judgment_requests", "scene_query", "behavior_query"]

_DEFAULT_IMAGES = EvalOptions().images
_BASIS_NOTES = {
    "votes": "PA and CWPA are computed against per-annotator votes (Eq. 1 and 2)",
    "majority": "the data has no per-annotator votes: PA and CWPA are computed against the majority label and equal accuracy",
    "mixed": "some behaviors have per-annotator votes; the others are scored against the majority label",
}


class _RobotEQ:
    """What both RobotEQ tasks share: data, options, images, retrieval, records."""

    name = "roboteq"
    task = TASK_BJ

    # data --------------------------------------------------------------------------------
    def resolve_data(self, data: Path) -> Path:
        """A local folder for ``--data``: the folder itself, or a hub snapshot."""
        return resolve_data(data)

    def format_summary(self, metrics: dict[str, Any]) -> str:
        from socialbench.metrics.roboteq import format_summary

        return format_summary(metrics)

    def load(self, data: Path, *, require_images: bool, limit: int | None) -> RobotEQDataset:
        return load_roboteq(data, self.task, require_images=require_images, limit=limit)

    def validate(self, data: Path) -> list[Problem]:
        return validate_roboteq(data, self.task)

    def fingerprint(self, data: Path) -> str:
        from socialbench.runner.run import fingerprint_files

        root = resolve_data(data)
        return fingerprint_files(find_label_files(root), root)

    def read_predictions(self, path: Path) -> list[SampleRecord]:
        from socialbench.runner.store import read_samples

        if path.is_dir():
            path = path / "samples.jsonl"
        if not path.exists():
            raise UsageError(f"predictions {path} do not exist; give a samples.jsonl or a run directory")
        return read_samples(path)

    # options -----------------------------------------------------------------------------
    def check_options(self, options: EvalOptions) -> None:
        if options.strategy not in STRATEGIES:
            raise UsageError(f"--strategy must be one of {', '.join(STRATEGIES)} (got {options.strategy!r})")
        if options.method != EvalOptions().method:
            raise UsageError("--method is a SocialNav-SUB option; RobotEQ uses --strategy")
        if options.images != _DEFAULT_IMAGES:
            raise UsageError("--images is a SocialNav-SUB option; RobotEQ sends the scene image (or none with --strategy no-image)")
        if options.protocol != "paper":
            raise UsageError(f"RobotEQ has one metric protocol, paper (got --protocol {options.protocol})")
        if options.perturb is not None:
            from socialbench.vision.perturb import check_perturbation

            check_perturbation(options.perturb, options.perturb_strength)
            if options.strategy == "no-image":
                raise UsageError("--perturb has no effect with --strategy no-image (no image is sent)")
        k = options.extra.get("rag_k", 2) if options.extra else 2
        if not isinstance(k, int) or k < 1:
            raise UsageError(f"rag_k must be a positive integer (got {k!r})")
        self._check_rag_backend(options)

    @staticmethod
    def _check_rag_backend(options: EvalOptions) -> None:
        """``extra["rag_backend"]``: bm25 (default), dense or hybrid; dense needs its extra."""
        from socialbench.benchmarks.roboteq.rag import DENSE_HINT, RAG_METHODS, dense_available

        backend = options.extra.get("rag_backend", "bm25") if options.extra else "bm25"
        if backend not in RAG_METHODS:
            raise UsageError(f"--rag-backend must be one of {', '.join(RAG_METHODS)} (got {backend!r})")
        if backend != "bm25" and options.strategy != "rag":
            raise UsageError(f"--rag-backend {backend} has no effect without --strategy rag")
        if backend != "bm25" and not dense_available():
            raise UsageError(f"--rag-backend {backend}: {DENSE_HINT}")

    def generation_config(self, options: EvalOptions) -> GenerationConfig:
        """Temperature 0; max_tokens 1024, 2048 for CoT; JSON replies (paper §G.5)."""
        return GenerationConfig(
            max_tokens=2048 if options.strategy == "cot" else 1024,
            temperature=0.0,
            json_mode=True,
            seed=options.seed,
        )

    def question_order(self, dataset: Any) -> list[tuple[str, str]]:
        return question_order(dataset)

    # solving helpers ---------------------------------------------------------------------
    async def _images(self, item: Item, ctx: SolveContext) -> tuple[EncodedImage, ...]:
        if ctx.options.strategy == "no-image" or not ctx.model.needs_prompt or ctx.encoder is None:
            return ()
        encoder = ctx.encoder
        return (await ctx.prepare(encoder.encode, item.metadata["image"]),)

    def _knowledge(self, query: str, ctx: SolveContext) -> tuple[str, dict[str, int]]:
        """The RAG preamble for ``query`` and its accounting (empty unless strategy is rag)."""
        if ctx.options.strategy != "rag" or not ctx.model.needs_prompt:
            return "", {}
        from socialbench.benchmarks.roboteq.rag import default_retriever

        extra = ctx.options.extra or {}
        k = int(extra.get("rag_k", 2))
        # built once per process (dense: model loaded, documents embedded), not timed per query
        retriever = default_retriever(k, str(extra.get("rag_backend", "bm25")))
        found = retriever.retrieve(query)
        block = rag_block([(d.title, d.text) for d in found.documents])
        return block, {"rag_added_tokens": approx_tokens(block), "rag_retrieval_us": int(round(found.seconds * 1e6))}

    @staticmethod
    def _record(item_id: str, key: str, request: Request, outcome: Outcome, parsed: Any, method: str | None, extra: dict[str, int]) -> SampleRecord:
        return SampleRecord(
            item_id=item_id,
            question_key=key,
            raw=outcome.text,
            parsed=parsed,
            parse_method=method if parsed is not None else None,
            error=outcome.error,
            latency_s=round(outcome.latency_s, 6),
            usage={**outcome.usage.as_dict(), **extra},
            request_hash=request.fingerprint(),
            error_message=outcome.error_message,
            attempts=outcome.attempts,
            cached=outcome.cached,
        )



def _context_words(item: Item) -> str:
    meta = item.metadata
    return " ".join(str(x) for x in (meta.get("category"), meta.get("subcategory")) if x)


def scene_query(item: Item) -> str:
    """The retrieval query of a per-scene request: role, all behaviors, category words."""
    texts = "\n".join(q.text for q in item.questions)
    return f"{item.metadata['role']}\n{texts}\n{_context_words(item)}"


def behavior_query(item: Item, q: Question) -> str:
    """The retrieval query of a per-behavior request: role, the behavior, category words."""
    return f"{item.metadata['role']}\n{q.text}\n{_context_words(item)}"


def judgment_requests(
    item: Item, *, per_behavior: bool, strategy: str, knowledge: Callable[[str], str] | None = None
) -> list[tuple[tuple[str, ...], str]]:
    """The prompts one judgment scene needs: ``[(question keys answered, prompt), ...]``.

    One prompt for the whole scene, or one per behavior with ``per_behavior``.
    ``knowledge(query)`` returns the RAG preamble for a retrieval query (None: no RAG text).
    The solver and ``perf/roboteq_cost.py`` both build prompts through here.
    """
    role = item.metadata["role"]
    if per_behavior:
        return [
            ((q.key,), behavior_prompt(role, q.text, strategy, knowledge(behavior_query(item, q)) if knowledge else ""))
            for q in item.questions
        ]
    behaviors = [(item.metadata["behaviors"][q.key]["k"], q.text) for q in item.questions]
    block = knowledge(scene_query(item)) if knowledge else ""
    return [(tuple(q.key for q in item.questions), scene_prompt(role, behaviors, strategy, block))]


class RobotEQJudgment(_RobotEQ):
    name = "roboteq-bj"
    task = TASK_BJ

    async def solve(self, item: Item, dataset: Any, ctx: SolveContext) -> None:
        pending = [q for q in item.questions if ctx.finished(item.item_id, q.key) is None]
        if not pending:
            return
        images = await self._images(item, ctx)
        if ctx.options.per_behavior or not ctx.model.needs_prompt:
            await asyncio.gather(*(self._ask_behavior(item, q, images, ctx) for q in pending))
        else:
            await self._ask_scene(item, [q.key for q in pending], images, ctx)

    async def _ask_behavior(self, item: Item, q: Question, images: tuple[EncodedImage, ...], ctx: SolveContext) -> None:
        role = item.metadata["role"]
        knowledge, extra = self._knowledge(behavior_query(item, q), ctx)
        request = Request(
            prompt=behavior_prompt(role, q.text, ctx.options.strategy, knowledge),
            images=images, config=ctx.generation, item=item, question=q,
        )
        outcome = await ctx.engine.run(request)
        parsed, method = None, None
        if outcome.error is None:
            res = parse_answer(outcome.text, LABELS)
            parsed, method = res.value, res.method
        ctx.record(self._record(item.item_id, q.key, request, outcome, parsed, method, extra))

    async def _ask_scene(self, item: Item, pending: Sequence[str], images: tuple[EncodedImage, ...], ctx: SolveContext) -> None:
        extra: dict[str, int] = {}

        def knowledge(query: str) -> str:
            block, usage = self._knowledge(query, ctx)
            extra.update(usage)
            return block

        ((_, prompt),) = judgment_requests(item, per_behavior=False, strategy=ctx.options.strategy, knowledge=knowledge)
        request = Request(prompt=prompt, images=images, config=ctx.generation, item=item, question=None)
        outcome = await ctx.engine.run(request)
        ks = {q.key: item.metadata["behaviors"][q.key]["k"] for q in item.questions}
        parsed = parse_judgments(outcome.text, list(ks.values())) if outcome.error is None else None
        for key in pending:
            value = parsed.values.get(ks[key]) if parsed is not None else None
            method = parsed.method if parsed is not None else None
            ctx.record(self._record(item.item_id, key, request, outcome, value, method, extra))

    def score(self, dataset: Any, records: Sequence[SampleRecord], protocol: str) -> dict[str, Any]:
        by_key = {(r.item_id, r.question_key): r for r in records}
        rows: list[JudgmentRow] = []
        used: list[SampleRecord] = []
        for item in dataset.items:
            meta = item.metadata
            for q in item.questions:
                r = by_key.get((item.item_id, q.key))
                if r is None:
                    continue
                used.append(r)
                b = meta["behaviors"][q.key]
                pred = normalise_label(r.parsed) if r.error is None else None
                rows.append(
                    JudgmentRow(
                        item_id=item.item_id, key=q.key, gold=b["label"], pred=pred, votes=item.votes[q.key],
                        has_votes=bool(b["has_votes"]), error=r.error is not None, subset=meta.get("subset") or "unknown",
                        category=meta.get("category"), subcategory=meta.get("subcategory"), facets=tuple(b["facets"]),
                    )
                )
        out = scoring_summary(self.name, protocol, dataset, by_key, len(rows))
        if not rows:
            return out
        basis = cwpa_basis(rows)
        by_subset = subset_breakdown(rows, judgment_metrics)
        out.update(
            {
                "cwpa_basis": basis,
                "note": _BASIS_NOTES[basis],
                "overall": judgment_metrics(rows),
                "by_subset": by_subset,
                "table1": table1(by_subset),
                "by_category": breakdown(rows, lambda r: [r.category or "unknown"], judgment_metrics),
                "by_subcategory": breakdown(rows, lambda r: [r.subcategory or "unknown"], judgment_metrics),
                "by_facet": breakdown(rows, lambda r: r.facets, judgment_metrics),
                "parse_methods": parse_method_counts(used),
                "requests": request_costs(used),
            }
        )
        human = human_average(rows)
        if human is not None:
            out["human_average"] = human
        return out


class RobotEQGrounding(_RobotEQ):
    name = "roboteq-sg"
    task = TASK_SG

    def check_options(self, options: EvalOptions) -> None:
        super().check_options(options)
        if options.per_behavior:
            raise UsageError("--per-behavior applies to roboteq-bj only")

    async def solve(self, item: Item, dataset: Any, ctx: SolveContext) -> None:
        q = item.questions[0]
        if ctx.finished(item.item_id, q.key) is not None:
            return
        images = await self._images(item, ctx)
        meta = item.metadata
        options_text = " ".join(meta.get("options", {}).values())
        knowledge, extra = self._knowledge(f"{meta['question']}\n{options_text}\n{_context_words(item)}", ctx)
        request = Request(
            prompt=grounding_prompt(meta["question"], meta.get("options", {}), ctx.options.strategy, knowledge),
            images=images, config=ctx.generation, item=item, question=q,
        )
        outcome = await ctx.engine.run(request)
        parsed, method = None, None
        if outcome.error is None:
            parsed, method = _parse_grounding(outcome.text)
        ctx.record(self._record(item.item_id, q.key, request, outcome, parsed, method, extra))

    def score(self, dataset: Any, records: Sequence[SampleRecord], protocol: str) -> dict[str, Any]:
        by_key = {(r.item_id, r.question_key): r for r in records}
        rows: list[GroundingRow] = []
        used: list[SampleRecord] = []
        for item in dataset.items:
            q = item.questions[0]
            meta = item.metadata
            r = by_key.get((item.item_id, q.key))
            if r is None:
                continue
            used.append(r)
            pred = q.canonical(r.parsed) if r.error is None and r.parsed is not None else None
            rows.append(
                GroundingRow(
                    item_id=item.item_id, gold=tuple(meta["answer"]), pred=pred if isinstance(pred, tuple) else None,
                    error=r.error is not None, subset=meta.get("subset") or "unknown", category=meta.get("category"),
                    subcategory=meta.get("subcategory"), facets=tuple(meta.get("facets") or ()),
                )
            )
        out = scoring_summary(self.name, protocol, dataset, by_key, len(rows))
        if not rows:
            return out
        out.update(
            {
                "note": "exact-set accuracy, Jaccard and option-level F1 against the majority answer set",
                "overall": grounding_metrics(rows),
                "by_subset": subset_breakdown(rows, grounding_metrics),
                "by_category": breakdown(rows, lambda r: [r.category or "unknown"], grounding_metrics),
                "by_subcategory": breakdown(rows, lambda r: [r.subcategory or "unknown"], grounding_metrics),
                "by_facet": breakdown(rows, lambda r: r.facets, grounding_metrics),
                "parse_methods": parse_method_counts(used),
                "requests": request_costs(used),
            }
        )
        return out


def _parse_grounding(text: str | None) -> tuple[list[str] | None, str | None]:
    """Letters from a grounding reply (see :func:`~.prompts.parse_grounding`): a JSON
    ``"answer"`` decides; else an explicit ``Answer: B, D`` phrase or a reply that is only
    letters; else invalid. Nothing is guessed from reasoning or region/option words."""
    return parse_grounding(text)


@register_benchmark("roboteq-bj")
def _make_bj() -> RobotEQJudgment:
    return RobotEQJudgment()


@register_benchmark("roboteq-sg")
def _make_sg() -> RobotEQGrounding:
    return RobotEQGrounding()
