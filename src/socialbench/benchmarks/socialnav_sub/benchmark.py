"""SocialNav-SUB as a socialbench benchmark: methods, image modes, scoring.

The methods (``independent``, ``cot``, ``cot-gt`` with ``--gt-without-obstruction``,
``scene-context``; :class:`~.options.SocialNavOptions`) and image modes (``img-with-bev``,
``img``, ``bev``) are described in the README, "SocialNav-SUB methods". Images are the
release's pre-rendered composites when present, else rendered by
:mod:`socialbench.navigation.render`; under ``--perturb mirror`` every image of both chains
is rendered, the variants' from the mirrored scene, and a sample with only composites is
refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from socialbench.benchmarks.base import BaseBenchmark, Dataset, refuse_folder_named_as_file, scoring_summary
from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub import baselines as _baselines  # noqa: F401  (registers baseline:rule-based, replay of official folders)
from socialbench.benchmarks.socialnav_sub import loader as _loader
from socialbench.benchmarks.socialnav_sub.bank import SOCIAL, BankQuestion, PromptBank
from socialbench.benchmarks.socialnav_sub.image_text import bank_for_images
from socialbench.benchmarks.socialnav_sub.layout import N_FRAMES, OFFICIAL_IMAGE_SIZE
from socialbench.benchmarks.socialnav_sub.model_needs import check_rule_based_inputs
from socialbench.benchmarks.socialnav_sub.options import GIVEN_BY, GIVEN_SOURCES, SocialNavOptions
from socialbench.benchmarks.socialnav_sub.prompts import build_prompt
from socialbench.benchmarks.socialnav_sub.scene_context import facts_block, rule_facts
from socialbench.errors import Problem, UsageError
from socialbench.metrics.agreement import ScoringEntry
from socialbench.metrics.consistency import ConsistencyPair, consistency_summary
from socialbench.metrics.failures import failure_summary
from socialbench.metrics.protocols import PROTOCOL_NAMES, ProtocolArg, as_protocol
from socialbench.metrics.results import SocialNavResult
from socialbench.metrics.scoring import score_entries
from socialbench.models.base import Model
from socialbench.prompting.metamorphic import SEEDED, make_variant, split_variant, with_variants
from socialbench.prompting.parsing import parse_answer
from socialbench.records import fingerprint_files, read_run_json, read_samples
from socialbench.solving.context import SolveContext
from socialbench.solving.solvers import answer, each_independently, in_order
from socialbench.types import Answer, EncodedImage, HumanVotes, Item, ParsedAnswer, Question, Request, SampleRecord
from socialbench.vision.image_size import squashed_policy
from socialbench.vision.images import ImagePolicy
from socialbench.vision.prepare import ImageJob, PerturbSpec

if TYPE_CHECKING:
    from socialbench.navigation.rules import RuleAnswer

__all__ = ["GIVEN_BY", "GIVEN_SOURCES", "SocialNavSub", "label_files", "parse_reply"]
_RUN = object()  # image_job: "the run's perturbation"
LABEL_FILES = (
    "human_labels",
    "prompts/sample_info.json",
    "prompts/survey_prompt.json",
    "prompts/relevant_prev_questions.json",
    "goal_info.json",
)


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


def parse_reply(q: Question) -> Callable[[str | None], tuple[ParsedAnswer, str | None]]:
    """The parser of replies to ``q``: its option(s), or invalid."""

    def parse(text: str | None) -> tuple[ParsedAnswer, str | None]:
        res = parse_answer(text, q.options, multi=q.kind == "multi")
        return res.value, res.method

    return parse


class SocialNavSub(BaseBenchmark[SocialNavOptions]):
    name = "socialnav-sub"
    options_type = SocialNavOptions
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
    snapshot_types = (_loader.SocialNavDataset, Item, Question, HumanVotes, PromptBank, BankQuestion)

    def load_identity(self) -> dict[str, str | int | None]:
        """The image mode (which images are checked) and the metamorphic variant."""
        return {"image_mode": self.image_mode, "variant": self.variant, "variant_seed": self.variant_seed}

    def load(self, data: Path, *, require_images: bool, limit: int | None) -> _loader.SocialNavDataset:
        ds = _loader.load_socialnav(data, require_images=require_images, limit=limit, image_mode=self.image_mode)
        if self.variant is None:
            return ds
        if self.variant == "mirror" and require_images:
            from socialbench.benchmarks.socialnav_sub.mirror_inputs import check_mirror_inputs

            check_mirror_inputs(ds.items, self.image_mode or "img-with-bev")
        return replace(ds, items=tuple(with_variants(it, self.variant, self.variant_seed) for it in ds.items))

    def validate(self, data: Path) -> list[Problem]:
        from socialbench.benchmarks.socialnav_sub.validate import validate_socialnav

        return validate_socialnav(data, check_images=True)

    def fingerprint(self, data: Path) -> str:
        return fingerprint_files(label_files(data), data)

    def read_predictions(self, path: Path) -> list[SampleRecord]:
        refuse_folder_named_as_file(path)
        if path.is_dir() and (path / "samples.jsonl").exists():
            return read_samples(path / "samples.jsonl")
        if path.is_dir():
            from socialbench.benchmarks.socialnav_sub.official_run import read_official_experiment

            return read_official_experiment(path)
        if not path.exists():
            raise UsageError(f"predictions {path} do not exist")
        return read_samples(path)

    def predictions_options(self, path: Path, records: Sequence[SampleRecord], options: EvalOptions) -> EvalOptions:
        """``options`` with the metamorphic variant and seed of the predictions (from the
        run's ``run.json``, else the variant from the record keys), so that ``score`` loads
        each question's variant as the eval did; a seeded variant (``shuffle-options``)
        without ``run.json`` is refused, as its option order needs the seed."""
        named = sorted({n for r in records if (n := split_variant(r.question_key)[1]) is not None})
        run_json = (path if path.is_dir() else path.parent) / "run.json"
        if run_json.is_file():
            run = read_run_json(run_json)
            perturb = run.get("perturb")
            name = perturb.get("name") if isinstance(perturb, Mapping) else None
            variant = name if name in self.metamorphic else None
            seed = run.get("seed")
            if named and named != [variant]:
                raise UsageError(
                    f"{path}: the predictions answer {', '.join('@' + n for n in named)} variants but "
                    f"{run_json} records --perturb {name}; give the samples.jsonl of that run"
                )
            if variant in SEEDED and (not isinstance(seed, int) or isinstance(seed, bool)):
                raise UsageError(f"{run_json}: no integer 'seed' recorded; the {variant} variants need the run's seed")
            if variant is None:
                return options
            return _with_variant(options, variant, seed if isinstance(seed, int) else options.seed)
        if not named:
            return options
        if len(named) > 1 or named[0] not in self.metamorphic:
            raise UsageError(
                f"{path}: the predictions answer {', '.join('@' + n for n in named)} variants; "
                f"a run answers the variants of one of {', '.join(self.metamorphic)}"
            )
        if named[0] in SEEDED:
            raise UsageError(
                f"{path}: the @{named[0]} option orders come from the run's seed, which only its run.json "
                "records; give the run directory (or keep run.json beside samples.jsonl)"
            )
        return _with_variant(options, named[0], options.seed)

    # options -----------------------------------------------------------------------------
    def check(self, options: SocialNavOptions, run: EvalOptions) -> None:
        if run.protocol not in PROTOCOL_NAMES:
            raise UsageError(f"--protocol must be one of {', '.join(PROTOCOL_NAMES)} (got {run.protocol!r})")
        if options.gt_without_obstruction and options.method != "cot-gt":
            raise UsageError(
                f"--gt-without-obstruction is an option of --method cot-gt (got --method {options.method}); "
                "add --method cot-gt or drop the flag"
            )
        if run.perturb == "mirror" and run.perturb_strength == 0:
            raise UsageError(
                "--perturb mirror swaps the left/right answers in full, so strength 0 (images unchanged) "
                "would score unmirrored images against mirrored answers; leave --perturb-strength at 1"
            )
        self.image_mode = options.images
        self.variant = run.perturb if run.perturb in self.metamorphic else None
        self.variant_seed = run.seed

    def check_run(self, dataset: _loader.SocialNavDataset, model: Model, options: EvalOptions) -> None:
        """Refuse ``baseline:rule-based`` before the run when a sample lacks its tracks or
        odometry, instead of failing every question of those samples."""
        if isinstance(model, _baselines.RuleBasedModel):
            check_rule_based_inputs(dataset.items)

    def max_tokens(self, options: SocialNavOptions) -> int | None:
        """None: the official harness sends no token limit (``gpt4o.py``, ``gemini.py``
        post model, messages and response_format only); a backend that must give one uses
        :data:`~socialbench.types.FALLBACK_MAX_TOKENS`."""
        return None

    def temperature(self, options: SocialNavOptions) -> float | None:
        """None: no sampling setting is sent, the provider's defaults apply (paper §4.2,
        "default hyperparameters"), so repeated runs (``--epochs``) differ as in Table 3."""
        return None

    def max_images_per_request(self, options: SocialNavOptions) -> int:
        """The clip's frames: one image each, whatever the ``--images`` mode."""
        return N_FRAMES

    def image_policy(self, options: SocialNavOptions) -> ImagePolicy:
        """The official harness's: every image squashed to 512×512 with OpenCV's bilinear,
        JPEG quality 95 (:func:`~socialbench.vision.images.squashed_policy`)."""
        return squashed_policy(*OFFICIAL_IMAGE_SIZE)

    def estimate_requests(self, dataset: Dataset, options: SocialNavOptions, *, model_reads_prompt: bool) -> int:
        """Model requests of a run: every question, but under ``cot-gt`` the social ones only
        (and Person Goal Obstruction with ``--gt-without-obstruction``)."""
        order = self.question_order(dataset)
        if options.method != "cot-gt":
            return len(order)
        asked = {
            (i.item_id, q.key)
            for i in dataset.items
            for q in i.questions
            if q.category == SOCIAL or options.given_by(q.base_key) is None
        }
        return sum(1 for k in order if k in asked)

    # solving -----------------------------------------------------------------------------
    #: Modules the image workers import before their first job (see ImagePreparer).
    image_modules = (
        "socialbench.navigation.render_job",
        "socialbench.navigation.render",
        "matplotlib.figure",
        "matplotlib.backends.backend_agg",
    )

    def image_job(
        self, item: Item, mode: str, ctx: SolveContext[SocialNavOptions], *, perturb: PerturbSpec | None | object = _RUN
    ) -> ImageJob:
        """The picklable job preparing ``item``'s images (:meth:`sent_image_job`), perturbed
        by ``perturb`` (default: the run's perturbation). ``mirror`` is never a pixel flip:
        the mirrored images are rendered from mirrored tracks, and in a mirror run the
        unmirrored ones by the same code, so a pair differs only by the mirror."""
        assert ctx.encoder is not None
        spec = ctx.perturb if perturb is _RUN else perturb
        assert spec is None or isinstance(spec, PerturbSpec)
        return self.sent_image_job(item, mode, ctx.encoder.policy, spec)

    def sent_image_job(self, item: Item, mode: str, policy: ImagePolicy, perturb: PerturbSpec | None) -> ImageJob:
        """The job :meth:`image_job` gives, from the run's settings alone (no solve context):
        ``item``'s images in ``mode`` under ``policy``, perturbed by ``perturb`` (the run's
        perturbation for a metamorphic run's variants, None for its originals). The report's
        item viewer shows what this job prepares, so it shows exactly what was sent."""
        from socialbench.navigation.render_job import RenderSample
        from socialbench.vision.prepare import EncodeFiles

        composites = [Path(p) for p in item.metadata.get("composites", [])]
        mirror = perturb is not None and perturb.name == "mirror"
        rendered = mirror or self.variant == "mirror"
        if not rendered and mode == "img-with-bev" and composites and all(p.exists() for p in composites):
            return EncodeFiles(tuple(str(p) for p in composites), policy, perturb)
        return RenderSample.of(item.metadata, mode, policy, None if mirror else perturb, mirror=mirror)

    async def solve(self, item: Item, dataset: _loader.SocialNavDataset, ctx: SolveContext[SocialNavOptions]) -> None:
        """Answer every question of ``item``. Under a metamorphic ``--perturb`` the item also
        holds each question's variant (``K@name``): the originals and the variants are
        answered as two independent chains, the variants with the perturbed images."""
        groups: dict[str | None, list[Question]] = {}
        for q in item.questions:
            groups.setdefault(split_variant(q.key)[1], []).append(q)
        facts: Mapping[str, RuleAnswer] = {}
        if ctx.options.method == "scene-context":
            facts = await ctx.prepare(rule_facts, item)
        await asyncio.gather(*(self._solve_group(item, dataset, ctx, name, qs, facts) for name, qs in groups.items()))

    async def _solve_group(
        self,
        item: Item,
        dataset: _loader.SocialNavDataset,
        ctx: SolveContext[SocialNavOptions],
        variant: str | None,
        questions: list[Question],
        facts: Mapping[str, RuleAnswer],
    ) -> None:
        """One chain of questions: the originals (``variant`` None) or one variant's."""
        method = ctx.options.method
        options = ctx.options
        bank = bank_for_images(dataset.bank, options.images)  # the text says what --images sends
        images: tuple[EncodedImage, ...] | None = None
        lock = asyncio.Lock()
        originals = {q.key: item.question(split_variant(q.key)[0]) for q in questions}

        def forward(q: Question, value: Answer | None) -> Answer | None:
            """An answer to the original question, as the answer to ``q`` (its variant)."""
            if variant is None or value is None:
                return value
            v = make_variant(originals[q.key], variant, seed=ctx.seed, item_id=item.item_id)
            return v.to_variant(value)

        def given(q: Question) -> tuple[ParsedAnswer, str] | None:
            """The answer not asked of the model (cot-gt: human mode; scene-context: rules)."""
            orig = originals[q.key]
            source = options.given_by(orig.base_key)
            if q.category == SOCIAL or source is None:
                return None
            value: Answer | None
            if method == "cot-gt":
                value = item.votes[orig.key].mode(orig.choices)
            else:
                value = orig.canonical(facts.get(orig.key))
            value = forward(q, value)
            return (list(value) if isinstance(value, tuple) else value), source

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

        async def ask(q: Question, earlier: Mapping[str, ParsedAnswer] | None) -> SampleRecord:
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
                shown = replace(q, depends_on=tuple(d for d in q.depends_on if item.question(d).category == SOCIAL))
            prompt = build_prompt(bank, shown, None if earlier is None else dict(earlier), preamble=preamble)
            imgs = await get_images() if ctx.needs_prompt else ()
            request = Request(prompt=prompt, images=imgs, config=ctx.generation, item=item, question=q)
            return await answer(ctx, request, parse_reply(q))

        if method == "independent":
            await each_independently(questions, ask)
        else:  # the official order: dependencies come first; a variant's chain uses its own answers
            await in_order(ctx, item.item_id, questions, ask, key_of=lambda q: originals[q.key].key)

    # scoring -----------------------------------------------------------------------------
    def score(
        self, dataset: _loader.SocialNavDataset, records: Sequence[SampleRecord], protocol: ProtocolArg
    ) -> SocialNavResult:
        """Scores and failure rates under ``protocol``. Under a metamorphic perturbation
        ``scores`` and ``failures`` are the variants' (against the transformed human
        distribution), ``clean_scores`` the originals', and ``consistency`` compares the
        model's two answers to each question. ``failures`` count the model's own answers
        only, not :data:`GIVEN_SOURCES` (``scores`` keep every answer, as Table 1 does)."""
        proto = as_protocol(protocol)
        by_key = {(r.item_id, r.question_key): r for r in records}
        plain: list[ScoringEntry] = []
        varied: list[ScoringEntry] = []
        given: set[tuple[str, str]] = set()  # answered by humans / rules, not by the model
        pairs: list[ConsistencyPair] = []
        for item in dataset.items:
            for q in item.questions:
                r = by_key.get((item.item_id, q.key))
                if r is None:
                    continue
                entry = ScoringEntry(item.item_id, q, item.votes[q.key], r.parsed, r.raw, r.error)
                if r.parse_method in GIVEN_SOURCES:
                    given.add((item.item_id, q.key))
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
                pairs.append(
                    ConsistencyPair(
                        item.item_id,
                        orig,
                        orig.canonical(clean.parsed),
                        v.to_original(r.parsed),
                        failed=clean.error is not None or r.error is not None,
                    )
                )
        entries = varied if varied else plain
        own = [e for e in entries if (e.item_id, e.question.key) not in given]
        return SocialNavResult(
            header=scoring_summary(self.name, proto, dataset, by_key, len(plain) + len(varied)),
            scores=score_entries(entries, proto) if entries else None,
            failures=failure_summary(own, proto) if own else None,
            clean_scores=score_entries(plain, proto) if varied and plain else None,
            consistency=consistency_summary(pairs) if varied else None,
        )


def _with_variant(options: EvalOptions, variant: str | None, seed: int) -> EvalOptions:
    """``options`` with ``perturb`` set to the metamorphic ``variant`` (or none) and ``seed``."""
    return EvalOptions(
        protocol=options.protocol,
        limit=options.limit,
        seed=seed,
        perturb=variant,
        perturb_strength=options.perturb_strength,
        extra=options.given,
    )
