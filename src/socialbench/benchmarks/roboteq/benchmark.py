"""RobotEQ-Bench as two socialbench benchmarks: ``roboteq-bj`` and ``roboteq-sg``.

``roboteq-bj`` (behavior judgment): by default one request per scene listing all candidate
behaviors (paper Figure 18), answered as one JSON object; each behavior gets its own record
(key ``b<k>``), and a missing, malformed or duplicated judgment is invalid for that behavior
only. ``--per-behavior``, and every baseline that reads no prompt, asks per behavior.
``roboteq-sg`` (spatial grounding): one request per question, answered by regions among A-D.

Strategies: ``standard``, ``cot``, ``no-image``, ``rag`` (:mod:`.rag`). Decoding follows the
paper (§G.5): temperature 0, max_tokens 1024 (2048 for CoT), JSON replies.

Accounting: each record's ``usage`` holds the request's tokens (shared by the records of one
per-scene request; :func:`socialbench.metrics.roboteq_costs.request_costs` counts each
request once) and, for ``rag``, ``rag_added_tokens`` (``ceil(chars / 4)`` of the retrieved
documents) and ``rag_retrieval_us`` (retrieval time in microseconds).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from socialbench.benchmarks.base import BaseBenchmark, Dataset, scoring_summary
from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.roboteq.grounding_replies import parse_grounding
from socialbench.benchmarks.roboteq.hub import resolve_data
from socialbench.benchmarks.roboteq.judgment_replies import parse_judgments
from socialbench.benchmarks.roboteq.label_files import find_label_files
from socialbench.benchmarks.roboteq.loader import RobotEQDataset, load_roboteq
from socialbench.benchmarks.roboteq.options import JudgmentOptions, RobotEQOptions
from socialbench.benchmarks.roboteq.prompts import behavior_prompt, grounding_prompt, rag_block, scene_prompt
from socialbench.benchmarks.roboteq.schema import LABELS, TASK_BJ, TASK_SG, normalise_label
from socialbench.benchmarks.roboteq.tokens import approx_tokens
from socialbench.benchmarks.roboteq.validate import validate_roboteq
from socialbench.errors import Problem, UsageError
from socialbench.metrics.protocols import ProtocolArg, as_protocol
from socialbench.metrics.roboteq import (
    GroundingRow,
    JudgmentRow,
    breakdown,
    cwpa_basis,
    grounding_metrics,
    human_average,
    judgment_metrics,
    subset_breakdown,
    table1,
)
from socialbench.metrics.roboteq_costs import parse_method_counts, request_costs
from socialbench.metrics.roboteq_results import GroundingResult, GroundingScores, JudgmentResult, JudgmentScores
from socialbench.prompting.parsing import parse_answer
from socialbench.records import fingerprint_files
from socialbench.solving.context import SolveContext
from socialbench.solving.solvers import Parse, answer, parse_off_loop, sample_record
from socialbench.types import EncodedImage, Item, ParsedAnswer, Question, Request, SampleRecord

__all__ = ["RobotEQJudgment", "RobotEQGrounding", "judgment_requests", "scene_query", "behavior_query"]

_BASIS_NOTES = {
    "votes": "PA and CWPA are computed against per-annotator votes (Eq. 1 and 2)",
    "majority": "the data has no per-annotator votes: PA and CWPA are computed against the majority label and equal accuracy",
    "mixed": "some behaviors have per-annotator votes; the others are scored against the majority label",
}


R = TypeVar("R", bound=RobotEQOptions)


class _RobotEQ(BaseBenchmark[R]):
    """What both RobotEQ tasks share: data, options, images, retrieval, records."""

    name = "roboteq"
    task = TASK_BJ

    # data --------------------------------------------------------------------------------
    def resolve_data(self, data: Path) -> Path:
        """A local folder for ``--data``: the folder itself, or a hub snapshot."""
        return resolve_data(data)

    def format_summary(self, metrics: dict[str, Any]) -> str:
        from socialbench.metrics.roboteq_summary import format_summary

        return format_summary(metrics)

    def load(self, data: Path, *, require_images: bool, limit: int | None) -> RobotEQDataset:
        return load_roboteq(data, self.task, require_images=require_images, limit=limit)

    def validate(self, data: Path) -> list[Problem]:
        return validate_roboteq(data, self.task)

    def fingerprint(self, data: Path) -> str:
        root = resolve_data(data)
        return fingerprint_files(find_label_files(root), root)

    # options -----------------------------------------------------------------------------
    def check(self, options: R, run: EvalOptions) -> None:
        if run.protocol != "paper":
            raise UsageError(f"RobotEQ has one metric protocol, paper (got --protocol {run.protocol})")
        if run.perturb is not None:
            from socialbench.vision.perturb import check_perturbation

            check_perturbation(run.perturb, run.perturb_strength)
            if options.strategy == "no-image":
                raise UsageError("--perturb has no effect with --strategy no-image (no image is sent)")
        if options.rag_backend != "bm25":
            from socialbench.benchmarks.roboteq.rag import DENSE_HINT, dense_available

            if options.strategy != "rag":
                raise UsageError(f"--rag-backend {options.rag_backend} has no effect without --strategy rag")
            if not dense_available():
                raise UsageError(f"--rag-backend {options.rag_backend}: {DENSE_HINT}")

    def max_tokens(self, options: R) -> int:
        """1024, 2048 for CoT (paper §G.5)."""
        return 2048 if options.strategy == "cot" else 1024

    def max_images_per_request(self, options: R) -> int:
        """The scene's one image; none with ``--strategy no-image``."""
        return 0 if options.strategy == "no-image" else 1

    # solving helpers ---------------------------------------------------------------------
    async def _images(self, item: Item, ctx: SolveContext[RobotEQOptions]) -> tuple[EncodedImage, ...]:
        if ctx.options.strategy == "no-image" or not ctx.needs_prompt or ctx.encoder is None:
            return ()
        return (await ctx.prepare(ctx.encoder.encode, item.metadata["image"]),)

    def _knowledge(self, query: str, ctx: SolveContext[RobotEQOptions]) -> tuple[str, dict[str, int]]:
        """The RAG preamble for ``query`` and its accounting (empty unless strategy is rag)."""
        if ctx.options.strategy != "rag" or not ctx.needs_prompt:
            return "", {}
        from socialbench.benchmarks.roboteq.rag import default_retriever

        # built once per process (dense: model loaded, documents embedded), not timed per query
        retriever = default_retriever(ctx.options.rag_k, ctx.options.rag_backend)
        found = retriever.retrieve(query)
        block = rag_block([(d.title, d.text) for d in found.documents])
        return block, {"rag_added_tokens": approx_tokens(block), "rag_retrieval_us": int(round(found.seconds * 1e6))}


def labelled(parse: Callable[[str | None], tuple[ParsedAnswer, str | None]]) -> Parse:
    """``parse``, recording how a reply was read only when it gave an answer."""

    def read(text: str | None) -> tuple[ParsedAnswer, str | None]:
        value, method = parse(text)
        return value, (method if value is not None else None)

    return read


def parse_label(text: str | None) -> tuple[ParsedAnswer, str | None]:
    """A behavior judgment's label from a reply to a per-behavior request."""
    res = parse_answer(text, LABELS)
    return res.value, res.method


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


class RobotEQJudgment(_RobotEQ[JudgmentOptions]):
    name = "roboteq-bj"
    task = TASK_BJ
    options_type = JudgmentOptions

    def estimate_requests(self, dataset: Dataset, options: JudgmentOptions, *, model_reads_prompt: bool) -> int:
        """Model requests of a run: one per scene, or one per behavior with ``per_behavior``
        (and for models that read no prompt)."""
        if options.per_behavior or not model_reads_prompt:
            return len(self.question_order(dataset))
        return len({item_id for item_id, _ in self.question_order(dataset)})

    async def solve(self, item: Item, dataset: RobotEQDataset, ctx: SolveContext[JudgmentOptions]) -> None:
        pending = [q for q in item.questions if ctx.finished(item.item_id, q.key) is None]
        if not pending:
            return
        images = await self._images(item, ctx)
        if ctx.options.per_behavior or not ctx.needs_prompt:
            await asyncio.gather(*(self._ask_behavior(item, q, images, ctx) for q in pending))
        else:
            await self._ask_scene(item, [q.key for q in pending], images, ctx)

    async def _ask_behavior(
        self, item: Item, q: Question, images: tuple[EncodedImage, ...], ctx: SolveContext[JudgmentOptions]
    ) -> None:
        knowledge, extra = self._knowledge(behavior_query(item, q), ctx)
        request = Request(
            prompt=behavior_prompt(item.metadata["role"], q.text, ctx.options.strategy, knowledge),
            images=images,
            config=ctx.generation,
            item=item,
            question=q,
        )
        await answer(ctx, request, labelled(parse_label), extra)

    async def _ask_scene(
        self, item: Item, pending: Sequence[str], images: tuple[EncodedImage, ...], ctx: SolveContext[JudgmentOptions]
    ) -> None:
        extra: dict[str, int] = {}

        def knowledge(query: str) -> str:
            block, usage = self._knowledge(query, ctx)
            extra.update(usage)
            return block

        ((_, prompt),) = judgment_requests(item, per_behavior=False, strategy=ctx.options.strategy, knowledge=knowledge)
        request = Request(prompt=prompt, images=images, config=ctx.generation, item=item, question=None)
        outcome = await ctx.generate(request)
        ks = {q.key: item.metadata["behaviors"][q.key]["k"] for q in item.questions}
        parsed = (
            await parse_off_loop(lambda text: parse_judgments(text, list(ks.values())), outcome.text)
            if outcome.error is None
            else None
        )
        for key in pending:

            def judgment(text: str | None, k: int = ks[key]) -> tuple[ParsedAnswer, str | None]:
                return (parsed.values.get(k), parsed.method) if parsed is not None else (None, None)

            ctx.record(sample_record(item.item_id, key, request, outcome, labelled(judgment), extra))

    def score(self, dataset: RobotEQDataset, records: Sequence[SampleRecord], protocol: ProtocolArg) -> JudgmentResult:
        proto = as_protocol(protocol)
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
                        item_id=item.item_id,
                        key=q.key,
                        gold=b["label"],
                        pred=pred,
                        votes=item.votes[q.key],
                        has_votes=bool(b["has_votes"]),
                        error=r.error is not None,
                        subset=meta.get("subset") or "unknown",
                        category=meta.get("category"),
                        subcategory=meta.get("subcategory"),
                        facets=tuple(b["facets"]),
                    )
                )
        header = scoring_summary(self.name, proto, dataset, by_key, len(rows))
        if not rows:
            return JudgmentResult(header, None)
        basis = cwpa_basis(rows)
        by_subset = subset_breakdown(rows, judgment_metrics)
        return JudgmentResult(
            header,
            JudgmentScores(
                cwpa_basis=basis,
                note=_BASIS_NOTES[basis],
                overall=judgment_metrics(rows),
                by_subset=by_subset,
                table1=table1(by_subset),
                by_category=breakdown(rows, lambda r: [r.category or "unknown"], judgment_metrics),
                by_subcategory=breakdown(rows, lambda r: [r.subcategory or "unknown"], judgment_metrics),
                by_facet=breakdown(rows, lambda r: r.facets, judgment_metrics),
                parse_methods=parse_method_counts(used),
                requests=request_costs(used),
                human_average=human_average(rows),
            ),
        )


class RobotEQGrounding(_RobotEQ[RobotEQOptions]):
    name = "roboteq-sg"
    task = TASK_SG
    options_type = RobotEQOptions

    async def solve(self, item: Item, dataset: RobotEQDataset, ctx: SolveContext[RobotEQOptions]) -> None:
        q = item.questions[0]
        if ctx.finished(item.item_id, q.key) is not None:
            return
        images = await self._images(item, ctx)
        meta = item.metadata
        options_text = " ".join(meta.get("options", {}).values())
        knowledge, extra = self._knowledge(f"{meta['question']}\n{options_text}\n{_context_words(item)}", ctx)
        request = Request(
            prompt=grounding_prompt(meta["question"], meta.get("options", {}), ctx.options.strategy, knowledge),
            images=images,
            config=ctx.generation,
            item=item,
            question=q,
        )
        await answer(ctx, request, labelled(parse_grounding), extra)

    def score(self, dataset: RobotEQDataset, records: Sequence[SampleRecord], protocol: ProtocolArg) -> GroundingResult:
        proto = as_protocol(protocol)
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
                    item_id=item.item_id,
                    gold=tuple(meta["answer"]),
                    pred=pred if isinstance(pred, tuple) else None,
                    error=r.error is not None,
                    subset=meta.get("subset") or "unknown",
                    category=meta.get("category"),
                    subcategory=meta.get("subcategory"),
                    facets=tuple(meta.get("facets") or ()),
                )
            )
        header = scoring_summary(self.name, proto, dataset, by_key, len(rows))
        if not rows:
            return GroundingResult(header, None)
        return GroundingResult(
            header,
            GroundingScores(
                note="exact-set accuracy, Jaccard and option-level F1 against the majority answer set",
                overall=grounding_metrics(rows),
                by_subset=subset_breakdown(rows, grounding_metrics),
                by_category=breakdown(rows, lambda r: [r.category or "unknown"], grounding_metrics),
                by_subcategory=breakdown(rows, lambda r: [r.subcategory or "unknown"], grounding_metrics),
                by_facet=breakdown(rows, lambda r: r.facets, grounding_metrics),
                parse_methods=parse_method_counts(used),
                requests=request_costs(used),
            ),
        )
