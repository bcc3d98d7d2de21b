"""What each kind of model needs from a SocialNav-SUB dataset folder, said before a run.

The labels-only baselines (and ``socialbench score``) read the labels only;
``baseline:rule-based`` needs each sample's tracks and odometry; a model that reads the
prompt needs the images (raw frames or the release's composites). ``data validate`` says
which a folder supports, and ``eval`` refuses a ``baseline:rule-based`` run on samples
without its inputs before the run starts (:func:`check_rule_based_inputs`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from socialbench.errors import UsageError
from socialbench.types import Item

__all__ = ["check_rule_based_inputs", "labels_only_message", "rule_based_message", "rule_inputs_missing"]

RULE_BASED = "baseline:rule-based"
TRACKS = "prompts/<S>/<S>_localized_obj_coords.json"
ODOMETRY = "front_view/<S>/traj_data.pkl"
#: The models that read the labels only (no image, track or odometry).
LABELS_ONLY_MODELS = "baseline:random, human:oracle or human:average"


def rule_inputs_missing(sample_id: str, has_tracks: bool, has_odometry: bool) -> str | None:
    """What sample ``sample_id`` lacks for ``baseline:rule-based`` (its tracks, its
    odometry), or None when it has both."""
    lacks = [
        f"no pedestrian tracks ({TRACKS.replace('<S>', sample_id)})" if not has_tracks else "",
        f"no odometry ({ODOMETRY.replace('<S>', sample_id)})" if not has_odometry else "",
    ]
    named = [x for x in lacks if x]
    return " and ".join(named) if named else None


def _lacking(samples: Iterable[tuple[str, str | None]]) -> tuple[int, str | None]:
    """How many of ``samples`` (id, what it lacks) lack something, and the first as an example."""
    missing = [(sid, why) for sid, why in samples if why is not None]
    return len(missing), (f"{missing[0][0]}: {missing[0][1]}" if missing else None)


def rule_based_message(samples: Sequence[tuple[str, str | None]]) -> str | None:
    """The ``data validate`` warning for samples (id, what :func:`rule_inputs_missing`
    found) that ``baseline:rule-based`` cannot answer, or None when it can answer all."""
    n, example = _lacking(samples)
    if not n:
        return None
    return (
        f"{RULE_BASED} answers from the pedestrian tracks and the robot odometry, which {n} of "
        f"{len(samples)} sample(s) lack (e.g. {example}): `eval -m {RULE_BASED}` is refused on them"
    )


def labels_only_message(samples: Sequence[tuple[str, str | None]]) -> str:
    """The ``data validate`` warning for a folder without any image: what each kind of
    model needs, and whether ``baseline:rule-based`` finds its inputs (``samples`` as in
    :func:`rule_based_message`)."""
    n, example = _lacking(samples)
    rule = (
        f"`eval -m {RULE_BASED}` (it has the tracks and odometry it needs)"
        if not n
        else f"not `eval -m {RULE_BASED}`, which needs tracks and odometry that {n} of {len(samples)} "
        f"sample(s) lack (e.g. {example})"
    )
    return (
        "labels only: no raw frames (front_view/<S>/<F>.jpg) and no composites "
        "(prompts/<S>/sample_with_bev_<i>.png). OK for `socialbench score` and for `eval` with "
        f"{LABELS_ONLY_MODELS} (they read the labels only); {rule}; not `eval` with a vision model "
        "(or mock:), which needs the images"
    )


def check_rule_based_inputs(items: Sequence[Item]) -> None:
    """Refuse a ``baseline:rule-based`` run before it starts when a sample lacks the tracks
    or odometry its rules read (:class:`UsageError`, one line naming how many, an example
    and the fix), instead of recording a ``missing_input`` failure for each question."""
    found = [
        (
            it.item_id,
            rule_inputs_missing(
                it.item_id, bool(it.metadata.get("tracks_path")), bool(it.metadata.get("odometry_path"))
            ),
        )
        for it in items
    ]
    n, example = _lacking(found)
    if n:
        raise UsageError(
            f"{RULE_BASED} answers from the pedestrian tracks ({TRACKS}) and the robot odometry ({ODOMETRY}), "
            f"which {n} of {len(found)} sample(s) lack (e.g. {example}); add them, or evaluate a model that "
            f"reads the labels only ({LABELS_ONLY_MODELS})"
        )
