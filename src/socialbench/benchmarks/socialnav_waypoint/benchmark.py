"""``socialnav-waypoint``: pick the waypoint the robot's operator took (paper App. 7.1).

One item per SocialNav-SUB sample with odometry that continues after the clip; its single
question ``q_waypoint`` offers the candidates of :mod:`~.candidates` (A-E) and the right
answer is the operator's move. The request holds the clip's ten images in the ``--images``
mode plus the last frame with the candidates drawn (:mod:`~.images`), and the prompt adds
the ``--context`` block (:mod:`~.context`). Samples left out by the candidates are counted in
``metrics.json`` (``n_left_out``); each record carries the item's candidates under
``extra.waypoints``. The README's "Waypoint selection" section describes the task.

Metric: accuracy, the share of items whose parsed answer is the operator's waypoint; an
invalid answer or a failed call scores 0 and is counted (``n_invalid``, ``n_errors``).
SE = sample std / sqrt(n); with ``eval --epochs N``, mean ± SE across epochs (Table 3).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialbench.benchmarks.base import BaseBenchmark, refuse_folder_named_as_file, scoring_summary
from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.benchmarks.socialnav_sub import loader as _loader
from socialbench.benchmarks.socialnav_sub.bank import PromptBank
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub, label_files, parse_reply
from socialbench.benchmarks.socialnav_sub.layout import N_FRAMES
from socialbench.benchmarks.socialnav_sub.prompts import possible_answers_line
from socialbench.benchmarks.socialnav_waypoint import baselines as _baselines  # noqa: F401  (registers baseline:waypoint-*)
from socialbench.benchmarks.socialnav_waypoint.candidates import (
    FRAME_RATE_HZ,
    HORIZON_FRAMES,
    Grouping,
    Move,
    future_position,
    group_candidates,
    people_at_last_frame,
    recent_motion,
    to_last_frame,
)
from socialbench.benchmarks.socialnav_waypoint.context import (
    ContextRun,
    check_context,
    check_same_model,
    context_answers,
    context_block,
    read_context_run,
)
from socialbench.benchmarks.socialnav_waypoint.options import WaypointOptions
from socialbench.errors import DataError, Problem, SocialbenchError, UsageError
from socialbench.metrics.protocols import PROTOCOL_NAMES, ProtocolArg, as_protocol
from socialbench.metrics.results import Score, WaypointResult
from socialbench.records import fingerprint_files, read_samples
from socialbench.solving.context import SolveContext
from socialbench.solving.solvers import answer
from socialbench.types import HumanVotes, Item, Question, Request, SampleRecord
from socialbench.vision.images import ImagePolicy
from socialbench.vision.prepare import ImageJob, PerturbSpec

if TYPE_CHECKING:
    from socialbench.models.base import Model

log = logging.getLogger(__name__)

KEY = "q_waypoint"
CATEGORY = "Waypoint selection"
QUESTION = (
    "Which waypoint should the robot move to next so that it makes progress towards the goal "
    "while being considerate of the people around it?"
)
#: What the clip's images show. Their BEVs are SocialNav-SUB's, drawn in the robot frame of
#: the first image: up is where the robot faced then, not where it faces later.
_BEV_TEXT = (
    "a bird's-eye view of the same moment (robot R with an arrow for its direction of travel, goal G, people "
    "numbered), drawn in the robot's frame at the first image: up is the direction the robot faced at the start "
    "of the video"
)
_IMAGES_TEXT = {
    "img-with-bev": "each image shows the robot's front camera view on top and, below it, " + _BEV_TEXT,
    "img": "each image is the robot's front camera view with the people numbered",
    "bev": "each image is " + _BEV_TEXT,
}
#: What the last image's BEV shows (:func:`~.images.last_frame_bev_scene`).
LAST_BEV_TEXT = (
    "Its bird's-eye view is redrawn in the robot's frame at this final moment: the robot R is where it stands now, "
    "up is the direction it faces now and left is its left, as in the camera view."
)


@dataclass(frozen=True)
class WaypointDataset:
    root: Path
    items: tuple[Item, ...]
    sources: dict[str, Item]  # item id -> the SocialNav-SUB item (questions, votes, files)
    bank: PromptBank
    camera: dict[str, object]
    left_out: tuple[str, ...]
    left_out_reasons: tuple[tuple[str, int], ...] = ()  # (reason, how many samples) of ``left_out``

    def __len__(self) -> int:
        return len(self.items)


def item_move(item: Item) -> Move:
    """The operator's move of a SocialNav-SUB item, with its people and goal, in the robot
    frame at the clip's last frame (raises :class:`DataError` when it has none)."""
    from socialbench.navigation.frames import load_odometry, load_scene

    meta = item.metadata
    if not meta.get("odometry_path"):
        raise DataError.single(item.item_id, "traj_data.pkl", "no odometry", "add front_view/<S>/traj_data.pkl")
    odom = load_odometry(meta["odometry_path"])
    scene = load_scene(meta)
    last = int(meta["first_frame"]) + len(scene.robot) - 1
    future = future_position(odom.position, odom.yaw, last, source=str(meta["odometry_path"]))
    people = tuple(people_at_last_frame(scene.people, scene.robot))
    velocity, yaw_rate = recent_motion(odom.position, odom.yaw, last)
    return Move(item.item_id, future, people, to_last_frame(scene.goal_xy, scene.robot), velocity, yaw_rate)


def dataset_candidates(items: Sequence[Item], camera_cfg: Mapping[str, object]) -> Grouping:
    """The candidates of every item of a whole dataset (:func:`~.candidates.group_candidates`);
    items without a move are in ``left_out`` with the reason."""
    from socialbench.navigation.projection import PinholeCamera

    moves, no_move = [], {}
    for it in items:
        try:
            moves.append(item_move(it))
        except (SocialbenchError, OSError, ValueError) as exc:
            no_move[it.item_id] = str(exc)
    camera = PinholeCamera.from_dataset_cfg(dict(camera_cfg)) if camera_cfg else PinholeCamera()
    grouping = group_candidates(moves, camera)
    return Grouping(grouping.candidates, {**no_move, **grouping.left_out}, grouping.groups)


def build_waypoint_prompt(bank: PromptBank, question: Question, n_clip: int, mode: str, context: str | None) -> str:
    """The prompt text (see the module docstring)."""
    parts = [
        "You are helping a robot navigate through a space shared with people.",
        f"The first {n_clip} images are a short video recorded by the robot, in time order; {_IMAGES_TEXT[mode]}.",
        "The last image repeats the final moment with candidate waypoints marked by purple lettered circles "
        f"({', '.join(question.options)}): places where the robot could be {HORIZON_FRAMES / FRAME_RATE_HZ:g} "
        "seconds later.",
    ]
    if mode != "img":
        parts.append(LAST_BEV_TEXT)
    text = "\n".join(parts) + "\n"
    if context is not None:
        text += "\n" + context + "\n"
    return text + "\n" + question.text + "\n" + possible_answers_line(question.options) + bank.answers_format_mc


def left_out_line(dataset: WaypointDataset) -> str | None:
    """One line for all the samples ``dataset`` leaves out, with the count per reason; None
    when none is."""
    if not dataset.left_out:
        return None
    total = len(dataset.items) + len(dataset.left_out)
    why = "; ".join(f"{n} × {reason}" for reason, n in dataset.left_out_reasons)
    first = ", ".join(dataset.left_out[:3]) + (", ..." if len(dataset.left_out) > 3 else "")
    return f"{len(dataset.left_out)} of {total} samples left out of the waypoint task ({first}): {why}"


#: The data sets whose left-out line this process has logged (:func:`warn_left_out`).
WARNED: set[tuple[str, tuple[str, ...]]] = set()


def warn_left_out(dataset: WaypointDataset, warned: set[tuple[str, tuple[str, ...]]] = WARNED) -> None:
    """Log :func:`left_out_line` once per process and data set: eval calls it before each
    epoch's run, so ``--epochs`` says it once; report, score and export never call it
    (metrics.json has ``n_left_out``)."""
    line = left_out_line(dataset)
    key = (str(dataset.root), dataset.left_out)
    if line is not None and key not in warned:
        warned.add(key)
        log.warning("%s", line)


class SocialNavWaypoint(BaseBenchmark[WaypointOptions]):
    name = "socialnav-waypoint"
    options_type = WaypointOptions
    image_modules = SocialNavSub.image_modules
    image_mode = "img-with-bev"
    context = "none"
    seed = 0
    _model_answers: dict[tuple[str, str], Any] | None = None
    _context_run: ContextRun | None = None

    def default_data(self) -> Path:
        """The bundled simulated scenes (used when ``--data`` is not given)."""
        return bundled_demo_data()

    def max_tokens(self, options: WaypointOptions) -> int | None:
        """None: as SocialNav-SUB, no token limit is sent."""
        return None

    def temperature(self, options: WaypointOptions) -> float | None:
        """None: as SocialNav-SUB, the provider's default sampling (the paper's Table 3
        averages 5 runs at those defaults)."""
        return None

    def max_images_per_request(self, options: WaypointOptions) -> int:
        """The clip's frames and the waypoint image."""
        return N_FRAMES + 1

    def image_policy(self, options: WaypointOptions) -> ImagePolicy:
        """As SocialNav-SUB's official harness sends images (App. 7.1 asks the same models
        the same way): 512×512 squashed, OpenCV bilinear, JPEG quality 95."""
        from socialbench.benchmarks.socialnav_sub.layout import OFFICIAL_IMAGE_SIZE
        from socialbench.vision.image_size import squashed_policy

        return squashed_policy(*OFFICIAL_IMAGE_SIZE)

    # data --------------------------------------------------------------------------------
    def load(self, data: Path, *, require_images: bool, limit: int | None) -> WaypointDataset:
        ds = _loader.load_socialnav(data, require_images=require_images, limit=limit, image_mode=self.image_mode)
        # the candidates come from every sample's move, whatever --limit keeps (see candidates.py)
        everything = ds if limit is None else _loader.load_socialnav(data, require_images=False, limit=None)
        grouping = dataset_candidates(everything.items, ds.camera)
        items, sources, left_out = [], {}, []
        reasons: dict[str, int] = {}
        for it in ds.items:
            cands = grouping.candidates.get(it.item_id)
            if cands is None:
                left_out.append(it.item_id)
                reason = grouping.left_out.get(it.item_id, "no candidates")
                reasons[reason] = reasons.get(reason, 0) + 1
                continue
            q = Question(KEY, KEY, CATEGORY, "single", QUESTION, cands.labels)
            meta = dict(it.metadata, waypoints=cands.to_json())
            items.append(Item(it.item_id, (q,), {KEY: HumanVotes((cands.answer,), (1.0,), 1)}, meta))
            sources[it.item_id] = it
        if not items:
            raise DataError.single(
                data,
                "",
                "no sample has candidate waypoints (each needs odometry 8 frames beyond its clip and a group of "
                "five samples whose moves fit together): "
                + "; ".join(f"{n} × {r}" for r, n in sorted(reasons.items())),
                "use a release whose traj_data.pkl continues after each clip, or `socialbench sim`, with more samples",
            )
        return WaypointDataset(
            ds.root, tuple(items), sources, ds.bank, ds.camera, tuple(left_out), tuple(sorted(reasons.items()))
        )

    def validate(self, data: Path) -> list[Problem]:
        return SocialNavSub().validate(data)

    def fingerprint(self, data: Path) -> str:
        """Label files plus the odometry (the right answers come from it)."""
        files = label_files(data)
        if (data / "front_view").is_dir():
            files.extend(sorted((data / "front_view").glob("*/traj_data.pkl")))
        return fingerprint_files(files, data)

    def read_predictions(self, path: Path) -> list[SampleRecord]:
        refuse_folder_named_as_file(path)
        return read_samples(path / "samples.jsonl" if path.is_dir() else path)

    def predictions_options(self, path: Path, records: Sequence[SampleRecord], options: EvalOptions) -> EvalOptions:
        """``options`` with the ``--context`` of the run (its ``run.json``, in the run
        directory ``path`` or beside a ``samples.jsonl``), so that ``socialbench score``
        records the context the prompts carried, and for ``model:RUN_DIR`` that run
        (``context_run``), instead of ``none``."""
        from socialbench.records import read_run_json

        run_json = (path if path.is_dir() else path.parent) / "run.json"
        if not run_json.is_file():
            return options
        run = read_run_json(run_json)  # regular file, strict JSON, fields of their types
        details = run.get("options") if isinstance(run, dict) else None
        context = details.get("context") if isinstance(details, dict) else None
        if context is None or context == "none":
            return options
        if not isinstance(context, str):
            raise DataError.single(
                run_json, "options.context", f"not a context name ({context!r})", "give the run's own run.json"
            )
        return EvalOptions(
            protocol=options.protocol,
            limit=options.limit,
            seed=options.seed,
            perturb=options.perturb,
            perturb_strength=options.perturb_strength,
            extra={**options.given, "context": context},
        )

    # options -----------------------------------------------------------------------------
    def check(self, options: WaypointOptions, run: EvalOptions) -> None:
        if run.protocol not in PROTOCOL_NAMES:
            raise UsageError(f"--protocol must be one of {', '.join(PROTOCOL_NAMES)} (got {run.protocol!r})")
        self.context = check_context(options.context)
        self._context_run = read_context_run(self.context) if self.context.startswith("model:") else None
        self._model_answers = None
        self.image_mode = options.images
        self.seed = run.seed

    def check_run(self, dataset: WaypointDataset, model: Model, options: EvalOptions) -> None:
        """With ``--context model:RUN_DIR``: that run must be Table 3's Same-Model context for
        this model on this data (:func:`~.context.check_same_model`), else a one-line refusal."""
        warn_left_out(dataset)
        if self._context_run is None:
            return
        perturb = None if options.perturb is None else {"name": options.perturb, "strength": options.perturb_strength}
        self._model_answers = check_same_model(
            self._context_run,
            model=model.spec,
            model_identity=model.identity(),
            perturb=perturb,
            data_fingerprint=SocialNavSub().fingerprint(Path(dataset.root)),
            items=[dataset.sources[it.item_id] for it in dataset.items],
        )

    def context_text(self, item: Item, dataset: WaypointDataset) -> str | None:
        if self.context == "none":
            return None
        pairs = context_answers(dataset.sources[item.item_id], self.context, self.seed, self._model_answers)
        return context_block(pairs)

    # solving -----------------------------------------------------------------------------
    def sent_image_jobs(
        self, item: Item, dataset: WaypointDataset, mode: str, policy: ImagePolicy, perturb: PerturbSpec | None
    ) -> tuple[ImageJob, ImageJob]:
        """The jobs preparing what one request sends:
        the clip's images (as SocialNav-SUB sends them) and the waypoint image with the
        candidates A-E. :meth:`solve` sends them; the report's item viewer shows them."""
        from socialbench.benchmarks.socialnav_waypoint.images import WaypointImage

        source = dataset.sources[item.item_id]
        cands = tuple((str(c["label"]), float(c["x"]), float(c["y"])) for c in item.metadata["waypoints"]["candidates"])
        clip = SocialNavSub().sent_image_job(source, mode, policy, perturb)
        return clip, WaypointImage(dict(source.metadata), dict(dataset.camera), cands, mode, policy, perturb)

    async def solve(self, item: Item, dataset: WaypointDataset, ctx: SolveContext[WaypointOptions]) -> None:
        q = item.questions[0]
        if ctx.finished(item.item_id, q.key) is not None:
            return
        mode = ctx.options.images
        images: tuple[Any, ...] = ()
        n_clip = len(item.metadata.get("frames") or ()) or 10
        if ctx.needs_prompt:
            assert ctx.encoder is not None
            clip_job, last_job = self.sent_image_jobs(item, dataset, mode, ctx.encoder.policy, ctx.perturb)
            clip = await ctx.prepare_images(clip_job)
            last = await ctx.prepare_images(last_job)
            images = tuple(clip) + tuple(last)
            n_clip = len(clip)
        prompt = build_waypoint_prompt(dataset.bank, q, n_clip, mode, self.context_text(item, dataset))
        request = Request(prompt=prompt, images=images, config=ctx.generation, item=item, question=q)
        await answer(ctx, request, parse_reply(q), extra={"waypoints": item.metadata["waypoints"]})

    # scoring -----------------------------------------------------------------------------
    def score(self, dataset: WaypointDataset, records: Sequence[SampleRecord], protocol: ProtocolArg) -> WaypointResult:
        """Accuracy against the operator's waypoint (see the module docstring)."""
        proto = as_protocol(protocol)
        by_key = {(r.item_id, r.question_key): r for r in records}
        hits: list[float] = []
        errors = invalid = 0
        for item in dataset.items:
            r = by_key.get((item.item_id, KEY))
            if r is None:
                continue
            if r.error is not None:
                errors += 1
            elif r.parsed not in item.questions[0].options:
                invalid += 1
            hits.append(1.0 if r.error is None and r.parsed == item.votes[KEY].answers[0] else 0.0)
        n = len(hits)
        mean = sum(hits) / n if n else None
        se = math.sqrt(sum((h - mean) ** 2 for h in hits) / (n - 1) / n) if n > 1 and mean is not None else None
        return WaypointResult(
            header=scoring_summary(self.name, proto, dataset, by_key, n),
            context=self.context,
            context_run=None if self._context_run is None else self._context_run.describe(),
            accuracy=Score(mean, se, n),
            n_errors=errors,
            n_invalid=invalid,
            n_left_out=len(dataset.left_out),
            chance=(
                sum(1.0 / len(it.questions[0].options) for it in dataset.items) / len(dataset.items)
                if dataset.items
                else None
            ),
        )

    def format_summary(self, metrics: dict[str, Any]) -> str:
        acc = (metrics.get("overall") or {}).get("accuracy") or {}
        if acc.get("value") is None:
            return "waypoint accuracy: nothing scored"
        se = acc.get("se")
        return (
            f"waypoint accuracy {100 * acc['value']:.2f}%"
            + (f" ± {100 * se:.2f}%" if se is not None else "")
            + f" over {acc.get('n')} samples · context {metrics.get('context')} · chance "
            + (f"{100 * metrics['chance']:.1f}%" if metrics.get("chance") is not None else "—")
            + f" · invalid {metrics.get('n_invalid')} · errors {metrics.get('n_errors')}"
        )
