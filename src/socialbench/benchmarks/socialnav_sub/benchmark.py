"""SocialNav-SUB as a socialbench benchmark: methods, image modes, scoring.

Methods
-------
``independent``  every question of a sample is asked on its own, all concurrently.
``cot``          questions of a sample are asked in the official order; the model's earlier
                 answers to the questions listed in ``relevant_prev_questions.json`` are
                 injected into the prompt as valid JSON. Samples run concurrently.
``cot-gt``       as ``cot``, but spatial and spatiotemporal questions are not asked: the
                 human mode is recorded (``parse_method: "human-mode"``) and injected, as in
                 the paper's ablation.
Image modes
-----------
``img-with-bev`` (default) the 10 front-view + BEV composites; ``img`` the 10 annotated front
views ("No BEV" ablation); ``bev`` the 10 BEVs. Pre-rendered composites from the release are
used for ``img-with-bev`` when present; everything else is rendered from tracks, odometry and
raw frames by :mod:`socialbench.navigation.render`.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from socialbench.benchmarks.base import (
    EvalOptions,
    SolveContext,
    question_order,
    register_alias,
    register_benchmark,
    scoring_summary,
)
from socialbench.benchmarks.socialnav_sub import loader as _loader
from socialbench.benchmarks.socialnav_sub.prompts import build_prompt
from socialbench.errors import Problem, UsageError
from socialbench.metrics.agreement import ScoringEntry, score_entries
from socialbench.metrics.failures import failure_summary
from socialbench.prompting.parsing import parse_answer
from socialbench.benchmarks.socialnav_sub.bank import SOCIAL
from socialbench.benchmarks.socialnav_sub.scene_context import facts_block, rule_facts
from socialbench.metrics.consistency import ConsistencyPair, consistency_summary
from socialbench.prompting.metamorphic import make_variant, split_variant, with_variants
from socialbench.types import EncodedImage, GenerationConfig, Item, Question, Request, SampleRecord
from socialbench.vision.prepare import PerturbSpec

METHODS = ("independent", "cot", "cot-gt", "scene-context")
#: Methods that answer the spatial and spatiotemporal questions without the model, and the
#: ``parse_method`` their records carry.
GIVEN_BY = {"cot-gt": "human-mode", "scene-context": "rule-based"}
#: Record sources that are not the model's answers (left out of consistency scores).
GIVEN_SOURCES = frozenset(GIVEN_BY.values())
_RUN = object()  # image_job: "the run's perturbation"
IMAGE_MODES = ("img-with-bev", "img", "bev")
PROTOCOLS = ("paper", "official")
LABEL_FILES = ("human_labels", "prompts/sample_info.json", "prompts/survey_prompt.json", "prompts/relevant_prev_questions.json", "goal_info.json")


def bundled_demo_data() -> Path:
    """The bundled default dataset (procedurally generated scenes; see its README)."""
    return Path(__file__).resolve().parent / "data" / "demo"



def label_files(data: Path) -> list[Path]:
    """The release's label files (:data:`LABEL_FILES`; every JSON file under a folder of
    them), in a stable order: what a dataset fingerprint covers."""
    files: list[Path] = []
    for name in LABEL_FILES:
        p = data / name
        if p.is_dir():
            files.extend(sorted(x for x in p.rglob("*.json") if x.is_file()))
        elif p.is_file():
            files.append(p)
    return files

class SocialNavSub:
    name = "socialnav-sub"
    #: The ``--images`` mode of the last :meth:`check_options` (an eval checks its options
    #: before loading): images are required only as far as this mode uses them.
    image_mode: str | None = None

    # data --------------------------------------------------------------------------------
    #: Metamorphic ``--perturb`` names this benchmark maps answers for.
    metamorphic = ("mirror", "shuffle-options")
    #: The metamorphic perturbation and seed of the last :meth:`check_options`: the loaded
    #: items then also hold each question's variant.
    variant: str | None = None
    variant_seed: int = 0

    def load(self, data: Path, *, require_images: bool, limit: int | None) -> Any:
        ds = _loader.load_socialnav(data, require_images=require_images, limit=limit,
                                    image_mode=self.image_mode)
        if self.variant is None:
            return ds
        return replace(ds, items=tuple(with_variants(it, self.variant, self.variant_seed) for it in ds.items))

    def validate(self, data: Path) -> list[Problem]:
        from socialbench.benchmarks.socialnav_sub.validate import validate_socialnav

        return validate_socialnav(data, check_images=True)

    def fingerprint(self, data: Path) -> str:
        from socialbench.runner.run import fingerprint_files

        return fingerprint_files(label_files(data), data)

    def read_predictions(self, path: Path) -> list[SampleRecord]:
        from socialbench.runner.store import read_samples

        if path.is_dir() and (path / "samples.jsonl").exists():
            return read_samples(path / "samples.jsonl")
        if path.is_dir():
            from socialbench.benchmarks.socialnav_sub.official_run import read_official_experiment

            return read_official_experiment(path)
        if not path.exists():
            raise UsageError(f"predictions {path} do not exist")
        return read_samples(path)

    # options -----------------------------------------------------------------------------
    def check_options(self, options: EvalOptions) -> None:
        if options.method not in METHODS:
            raise UsageError(f"--method must be one of {', '.join(METHODS)} (got {options.method!r})")
        if options.images not in IMAGE_MODES:
            raise UsageError(f"--images must be one of {', '.join(IMAGE_MODES)} (got {options.images!r})")
        if options.strategy != "standard" or options.per_behavior:
            raise UsageError("--strategy and --per-behavior are RobotEQ options; SocialNav-SUB uses --method")
        if options.protocol not in PROTOCOLS:
            raise UsageError(f"--protocol must be one of {', '.join(PROTOCOLS)} (got {options.protocol!r})")
        if options.extra.get("context") is not None:
            raise UsageError("--context is a socialnav-waypoint option; SocialNav-SUB's scene context is --method scene-context")
        self.image_mode = options.images
        self.variant = options.perturb if options.perturb in self.metamorphic else None
        self.variant_seed = options.seed

    def generation_config(self, options: EvalOptions) -> GenerationConfig:
        """Temperature 0; max_tokens 1024, 2048 for the CoT methods; JSON replies."""
        return GenerationConfig(
            max_tokens=1024 if options.method == "independent" else 2048,
            temperature=0.0,
            json_mode=True,
            seed=options.seed,
        )

    def question_order(self, dataset: Any) -> list[tuple[str, str]]:
        return question_order(dataset)

    # solving -----------------------------------------------------------------------------
    #: Modules the image workers import before their first job (see ImagePreparer).
    image_modules = ("socialbench.navigation.render_job", "socialbench.navigation.render",
                     "matplotlib.figure", "matplotlib.backends.backend_agg")

    def image_job(self, item: Item, mode: str, ctx: SolveContext, *,
                  perturb: PerturbSpec | None | object = _RUN) -> Any:
        """The picklable job preparing ``item``'s images: the release's composites when
        present (``img-with-bev``), else a render from tracks, odometry and frames. The
        images are perturbed by ``perturb`` (default: the run's perturbation)."""
        from socialbench.navigation.render_job import RenderSample
        from socialbench.vision.prepare import EncodeFiles

        assert ctx.encoder is not None
        composites = [Path(p) for p in item.metadata.get("composites", [])]
        spec = ctx.perturb if perturb is _RUN else perturb
        assert spec is None or isinstance(spec, PerturbSpec)
        if mode == "img-with-bev" and composites and all(p.exists() for p in composites):
            return EncodeFiles(tuple(str(p) for p in composites), ctx.encoder.policy, spec)
        return RenderSample.of(item.metadata, mode, ctx.encoder.policy, spec)

    async def solve(self, item: Item, dataset: Any, ctx: SolveContext) -> None:
        """Answer every question of ``item``. Under a metamorphic ``--perturb`` the item also
        holds each question's variant (``K@name``): the originals and the variants are
        answered as two independent chains, the variants with the perturbed images."""
        groups: dict[str | None, list[Question]] = {}
        for q in item.questions:
            groups.setdefault(split_variant(q.key)[1], []).append(q)
        facts: dict[str, Any] = {}
        if ctx.options.method == "scene-context":
            facts = await ctx.prepare(rule_facts, item)
        await asyncio.gather(*(self._solve_group(item, dataset, ctx, name, qs, facts)
                               for name, qs in groups.items()))

    async def _solve_group(self, item: Item, dataset: Any, ctx: SolveContext, variant: str | None,
                           questions: list[Question], facts: dict[str, Any]) -> None:
        """One chain of questions: the originals (``variant`` None) or one variant's."""
        method = ctx.options.method
        bank = dataset.bank
        images: tuple[EncodedImage, ...] | None = None
        lock = asyncio.Lock()
        originals = {q.key: item.question(split_variant(q.key)[0]) for q in questions}

        def forward(q: Question, answer: Any) -> Any:
            """An answer to the original question, as the answer to ``q`` (its variant)."""
            if variant is None or answer is None:
                return answer
            v = make_variant(originals[q.key], variant, seed=ctx.options.seed, item_id=item.item_id)
            return v.to_variant(answer)

        def given(q: Question) -> tuple[Any, str] | None:
            """The answer not asked of the model (cot-gt: human mode; scene-context: rules)."""
            if q.category == SOCIAL or method not in GIVEN_BY:
                return None
            orig = originals[q.key]
            if method == "cot-gt":
                value = item.votes[orig.key].mode(orig.choices)
            else:
                value = orig.canonical(facts.get(orig.key))
            value = forward(q, value)
            return (list(value) if isinstance(value, tuple) else value), GIVEN_BY[method]

        preamble = None
        if method == "scene-context":
            known = [(q, g[0]) for q in questions if (g := given(q)) is not None]
            preamble = facts_block(known)

        async def get_images() -> tuple[EncodedImage, ...]:
            nonlocal images
            async with lock:
                if images is None:
                    perturb = ctx.perturb if variant is not None else None
                    images = await ctx.prepare_images(self.image_job(item, ctx.options.images, ctx, perturb=perturb))
            return images

        async def ask(q: Question, earlier: dict[str, Any] | None) -> SampleRecord:
            stored = ctx.finished(item.item_id, q.key)
            if stored is not None:
                return stored
            g = given(q)
            if g is not None:
                rec = SampleRecord(item.item_id, q.key, None, g[0], g[1], None, 0.0, {})
                ctx.record(rec)
                return rec
            shown = q
            if method == "scene-context":  # the facts replace the spatial part of the chain
                shown = replace(q, depends_on=tuple(d for d in q.depends_on
                                                    if item.question(d).category == SOCIAL))
            prompt = build_prompt(bank, shown, earlier, preamble=preamble)
            imgs = await get_images() if ctx.model.needs_prompt else ()
            request = Request(prompt=prompt, images=imgs, config=ctx.generation, item=item, question=q)
            outcome = await ctx.engine.run(request)
            if outcome.error is None:
                res = parse_answer(outcome.text, q.options, multi=q.kind == "multi")
                parsed, method_used = res.value, res.method
            else:
                parsed, method_used = None, None
            rec = SampleRecord(
                item_id=item.item_id,
                question_key=q.key,
                raw=outcome.text,
                parsed=parsed,
                parse_method=method_used,
                error=outcome.error,
                latency_s=round(outcome.latency_s, 6),
                usage=outcome.usage.as_dict(),
                request_hash=request.fingerprint(),
                error_message=outcome.error_message,
                attempts=outcome.attempts,
                cached=outcome.cached,
            )
            ctx.record(rec)
            return rec

        if method == "independent":
            await asyncio.gather(*(ask(q, None) for q in questions))
            return
        answers: dict[str, Any] = {}  # by original key: a variant's chain uses its own answers
        failed: set[str] = set()
        for q in questions:  # the official order: dependencies come first
            okey = originals[q.key].key
            broken = [dep for dep in q.depends_on if dep in failed]
            if broken:
                # Never ask with a hole where a failed answer should be: record the failure
                # so that the next run asks the dependency first, then this question.
                failed.add(okey)
                ctx.record(SampleRecord(
                    item.item_id, q.key, None, None, None, "dependency_error", 0.0, {},
                    error_message=f"earlier question {broken[0]} failed; asked again on the next run",
                ))
                continue
            rec = await ask(q, {dep: answers.get(dep) for dep in q.depends_on})
            if rec.error is not None:
                failed.add(okey)
            answers[okey] = rec.parsed

    # scoring -----------------------------------------------------------------------------
    def score(self, dataset: Any, records: Sequence[SampleRecord], protocol: str) -> dict[str, Any]:
        """Scores and failure rates. Under a metamorphic perturbation ``scores`` and
        ``failures`` are the variants' (each scored against the transformed human
        distribution), ``clean_scores`` the originals', and ``consistency`` compares the
        model's two answers to each question (:mod:`socialbench.metrics.consistency`)."""
        by_key = {(r.item_id, r.question_key): r for r in records}
        plain: list[ScoringEntry] = []
        varied: list[ScoringEntry] = []
        pairs: list[ConsistencyPair] = []
        for item in dataset.items:
            for q in item.questions:
                r = by_key.get((item.item_id, q.key))
                if r is None:
                    continue
                entry = ScoringEntry(item.item_id, q, item.votes[q.key], r.parsed, r.raw, r.error)
                okey, name = split_variant(q.key)
                if name is None:
                    plain.append(entry)
                    continue
                varied.append(entry)
                clean = by_key.get((item.item_id, okey))
                if clean is None or {clean.parse_method, r.parse_method} & GIVEN_SOURCES:
                    continue  # not answered both ways, or not the model's answers
                orig = item.question(okey)
                v = make_variant(orig, name, seed=self.variant_seed, item_id=item.item_id)
                pairs.append(ConsistencyPair(item.item_id, orig, orig.canonical(clean.parsed), v.to_original(r.parsed),
                                             failed=clean.error is not None or r.error is not None))
        entries = varied if varied else plain
        out = scoring_summary(self.name, protocol, dataset, by_key, len(plain) + len(varied))
        if entries:
            out["scores"] = score_entries(entries, protocol)
            out["failures"] = failure_summary(entries, protocol)
        else:
            out["scores"], out["failures"] = {}, {}
        if varied:
            out["clean_scores"] = score_entries(plain, protocol) if plain else {}
            out["consistency"] = consistency_summary(pairs)
        return out


@register_benchmark("socialnav-sub")
def _make() -> SocialNavSub:
    return SocialNavSub()


register_alias("socialnav-sim", "socialnav-sub", bundled_demo_data)


def dumps_answer(value: Any) -> str:
    return json.dumps({"answer": value})
