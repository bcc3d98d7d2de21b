"""The requests of a socialbench run rebuilt for ``socialbench export inspect``: the run's eval
made ready again (its benchmark, options, seed, generation settings and dataset), and each
item's ``solve`` replayed with the replies the run recorded, each rebuilt request matched to
its record by the request hash the run stored (docs/inspect.md).

No ``inspect_ai`` here: :mod:`socialbench.export.inspect_log` turns the replay into a log.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from socialbench.benchmarks.base import benchmark_entry
from socialbench.benchmarks.options import recorded_options
from socialbench.benchmarks.prepared import PreparedEval, prepare_eval
from socialbench.errors import DataError, UsageError
from socialbench.report.run_dir import RunDir
from socialbench.types import GenerationConfig, Item, Outcome, Request, SampleRecord, Usage
from socialbench.vision.images import ImagePolicy

#: The error kind of a rebuilt request the run holds no reply for (an unfinished run).
NOT_IN_RUN = "not_in_run"


@dataclass(frozen=True)
class Exchange:
    """One rebuilt request and the run's record of it (None: the run holds no reply)."""

    request: Request
    record: SampleRecord | None


@dataclass(frozen=True)
class ItemReplay:
    """An item's requests in the order the solver made them, and whether every one has the
    hash the run recorded."""

    exchanges: tuple[Exchange, ...]
    matched: bool


def run_generation(rec: Mapping[str, object], base: GenerationConfig) -> GenerationConfig:
    """The settings the run sent (run.json's ``generation``: the paper's overridden by
    ``--temperature``, ``--max-tokens``, ...; a setting it leaves out was not sent), on
    ``base`` (the paper's, which holds the seed)."""
    gen = rec.get("generation")
    if not isinstance(gen, Mapping):
        return base
    return dataclasses.replace(
        base,
        max_tokens=_int_or_none(gen.get("max_tokens")),
        temperature=_float_or_none(gen.get("temperature")),
        top_p=_float_or_none(gen.get("top_p")),
        reasoning_effort=str(gen["reasoning_effort"]) if gen.get("reasoning_effort") is not None else None,
        json_mode=bool(gen.get("json_mode", base.json_mode)),
    )


def _int_or_none(v: object) -> int | None:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _float_or_none(v: object) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def prepared_run(run: RunDir, data: Path | None) -> PreparedEval:
    """The run's eval made ready again: its benchmark, options, seed, perturbation, image
    size, generation settings and dataset (``data``, else the folder run.json names)."""
    rec = run.run
    options = recorded_options(benchmark_entry(run.benchmark).options, rec)
    folder = data or (Path(str(rec["data"])) if rec.get("data") else None)
    if folder is not None and not folder.exists():
        raise UsageError(
            f"{run.path / 'run.json'} names data folder {folder}, which does not exist here; "
            "give the run's dataset with --data DIR"
        )
    perturb = run.perturbation
    limit = rec.get("limit")
    policy = rec.get("image_policy")
    try:  # the policy the run recorded (a squashed one has no max_side to go by)
        image_policy = ImagePolicy(**policy) if isinstance(policy, Mapping) else ImagePolicy()
    except (TypeError, ValueError) as exc:
        raise DataError.single(
            run.path / "run.json", "image_policy", f"not an image policy ({exc})", "give the run's own run.json"
        ) from exc
    prepared = prepare_eval(
        run.benchmark,
        folder,
        options,
        protocol=run.protocol,
        limit=limit if isinstance(limit, int) else None,
        seed=int(rec.get("seed") or 0),
        perturb=perturb[0] if perturb else None,
        perturb_strength=perturb[1] if perturb else 1.0,
        image_policy=image_policy,
    )
    return dataclasses.replace(prepared, generation=run_generation(rec, prepared.generation))


async def replay_item(prepared: PreparedEval, item: Item, stored: Sequence[SampleRecord]) -> ItemReplay:
    """``item``'s requests rebuilt, each answered with the run's reply. A run of a model that
    reads no prompt (a baseline) sent its requests without images: when the requests with
    images do not match the run's hashes, they are rebuilt as such a run made them."""
    first = await _replay(prepared, item, stored, needs_prompt=True)
    if first.matched:
        return first
    bare = await _replay(prepared, item, stored, needs_prompt=False)
    return bare if bare.matched else first


async def _replay(
    prepared: PreparedEval, item: Item, stored: Sequence[SampleRecord], *, needs_prompt: bool
) -> ItemReplay:
    by_hash = {r.request_hash: r for r in stored if r.request_hash}
    by_key = {r.question_key: r for r in stored}
    exchanges: list[Exchange] = []
    matched = True

    async def reply(request: Request) -> Outcome:
        nonlocal matched
        rec = by_hash.get(request.fingerprint())
        if rec is None:
            matched = False
            rec = by_key.get(request.question.key) if request.question is not None else None
        exchanges.append(Exchange(request, rec))
        if rec is None:
            return Outcome(None, NOT_IN_RUN, "the run holds no reply to this request")
        if rec.error is not None:
            return Outcome(None, rec.error, rec.error_message, rec.latency_s)
        usage = Usage(rec.usage.get("prompt_tokens", 0), rec.usage.get("completion_tokens", 0))
        return Outcome(
            rec.raw,
            None,
            latency_s=rec.latency_s,
            usage=usage,
            reasoning=rec.reasoning,
            finish_reason=rec.finish_reason,
        )

    await prepared.solve(item, reply, needs_prompt=needs_prompt)
    return ItemReplay(tuple(exchanges), matched)
