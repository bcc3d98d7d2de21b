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
from socialbench.types import EncodedImage, GenerationConfig, Item, Request, SampleRecord

METHODS = ("independent", "cot", "cot-gt")
IMAGE_MODES = ("img-with-bev", "img", "bev")
PROTOCOLS = ("paper", "official")
LABEL_FILES = ("human_labels", "prompts/sample_info.json", "prompts/survey_prompt.json", "prompts/relevant_prev_questions.json", "goal_info.json")


def bundled_demo_data() -> Path:
    """The bundled default dataset (procedurally generated scenes; see its README)."""
    return Path(__file__).resolve().parent / "data" / "demo"


class SocialNavSub:
    name = "socialnav-sub"

    # data --------------------------------------------------------------------------------
    def load(self, data: Path, *, require_images: bool, limit: int | None) -> Any:
        return _loader.load_socialnav(data, require_images=require_images, limit=limit)

    def validate(self, data: Path) -> list[Problem]:
        from socialbench.benchmarks.socialnav_sub.validate import validate_socialnav

        return validate_socialnav(data, check_images=True)

    def fingerprint(self, data: Path) -> str:
        from socialbench.runner.run import fingerprint_files

        files: list[Path] = []
        for name in LABEL_FILES:
            p = data / name
            if p.is_dir():
                files.extend(sorted(x for x in p.rglob("*.json") if x.is_file()))
            elif p.is_file():
                files.append(p)
        return fingerprint_files(files, data)

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
    def _images(self, item: Item, mode: str, ctx: SolveContext) -> tuple[EncodedImage, ...]:
        assert ctx.encoder is not None
        composites = [Path(p) for p in item.metadata.get("composites", [])]
        if mode == "img-with-bev" and composites and all(p.exists() for p in composites):
            return ctx.encoder.encode_many(composites)
        from socialbench.navigation.render import render_sample
        from socialbench.vision.images import prepare_image

        rendered = render_sample(item.metadata, mode)
        return tuple(prepare_image(img, ctx.encoder.policy, ctx.encoder.transform) for img in rendered)

    async def solve(self, item: Item, dataset: Any, ctx: SolveContext) -> None:
        method = ctx.options.method
        bank = dataset.bank
        images: tuple[EncodedImage, ...] | None = None
        lock = asyncio.Lock()

        async def get_images() -> tuple[EncodedImage, ...]:
            nonlocal images
            async with lock:
                if images is None:
                    images = await ctx.prepare(self._images, item, ctx.options.images, ctx)
            return images

        async def ask(q: Any, earlier: dict[str, Any] | None) -> SampleRecord:
            stored = ctx.finished(item.item_id, q.key)
            if stored is not None:
                return stored
            if method == "cot-gt" and q.category != "Social reasoning":
                mode = item.votes[q.key].mode(q.choices)
                parsed = list(mode) if isinstance(mode, tuple) else mode
                rec = SampleRecord(item.item_id, q.key, None, parsed, "human-mode", None, 0.0, {})
                ctx.record(rec)
                return rec
            prompt = build_prompt(bank, q, earlier)
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
            await asyncio.gather(*(ask(q, None) for q in item.questions))
            return
        answers: dict[str, Any] = {}
        failed: set[str] = set()
        for q in item.questions:  # the official order: dependencies come first
            broken = [dep for dep in q.depends_on if dep in failed]
            if broken:
                # Never ask with a hole where a failed answer should be: record the failure
                # so that the next run asks the dependency first, then this question.
                failed.add(q.key)
                ctx.record(SampleRecord(
                    item.item_id, q.key, None, None, None, "dependency_error", 0.0, {},
                    error_message=f"earlier question {broken[0]} failed; asked again on the next run",
                ))
                continue
            rec = await ask(q, {dep: answers.get(dep) for dep in q.depends_on})
            if rec.error is not None:
                failed.add(q.key)
            answers[q.key] = rec.parsed

    # scoring -----------------------------------------------------------------------------
    def score(self, dataset: Any, records: Sequence[SampleRecord], protocol: str) -> dict[str, Any]:
        by_key = {(r.item_id, r.question_key): r for r in records}
        entries = [
            ScoringEntry(item.item_id, q, item.votes[q.key], r.parsed, r.raw, r.error)
            for item in dataset.items
            for q in item.questions
            if (r := by_key.get((item.item_id, q.key))) is not None
        ]
        out = scoring_summary(self.name, protocol, dataset, by_key, len(entries))
        if entries:
            out["scores"] = score_entries(entries, protocol)
            out["failures"] = failure_summary(entries, protocol)
        else:
            out["scores"], out["failures"] = {}, {}
        return out


@register_benchmark("socialnav-sub")
def _make() -> SocialNavSub:
    return SocialNavSub()


register_alias("socialnav-sim", "socialnav-sub", bundled_demo_data)


def dumps_answer(value: Any) -> str:
    return json.dumps({"answer": value})
