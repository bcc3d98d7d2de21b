"""``--perturb mirror`` / ``--perturb shuffle-options`` and ``--method scene-context`` runs on
SocialNav-SUB: what is asked, what is recorded, and the consistency in metrics.json."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from PIL import Image

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.benchmarks.socialnav_sub.scene_context import FACTS_HEADER, rule_facts
from socialbench.errors import UsageError
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.models.registry import ModelOptions, create_model
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, _check_metamorphic, run_eval
from socialbench.vision.images import ImagePolicy

N_QUESTIONS = 81  # small_socialnav
_POSSIBLE = re.compile(r'^Possible answers:\s*(.*)$', re.MULTILINE)


def run(data, out, model, **opts):
    req = RunRequest("socialnav-sub", data, model.spec, out, EvalOptions(**opts), concurrency=4,
                     retry=RetryPolicy(max_attempts=1, timeout_s=30), show_progress=False, image_workers=0,
                     image_policy=ImagePolicy(max_side=256, format="PNG"))
    return run_eval(req, SocialNavSub(), model)


def prefers_left(request) -> str:
    """A model biased to one side: "to the left of" when offered, else the first option."""
    options = re.findall(r'"([^"]*)"', _POSSIBLE.search(request.prompt).group(1))
    if "to the left of" in options:
        return json.dumps({"answer": "to the left of"})
    return first_option_answer(request.prompt)


def samples(out):
    return [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()]


def test_mirror_asks_every_question_twice(small_socialnav, tmp_path):
    res = run(small_socialnav, tmp_path / "r", MockModel("mock:first-option", lambda r: first_option_answer(r.prompt)), perturb="mirror")
    keys = [s["question_key"] for s in samples(tmp_path / "r")]
    assert res.metrics["n_scored"] == 2 * N_QUESTIONS and sum(k.endswith("@mirror") for k in keys) == N_QUESTIONS


def test_a_side_biased_model_is_inconsistent_on_position_questions_only(small_socialnav, tmp_path):
    res = run(small_socialnav, tmp_path / "r", MockModel("mock:left", prefers_left), perturb="mirror")
    by_q = res.metrics["consistency"]["by_question"]
    assert by_q["q_person_spatial_position_begin"]["consistency"] == 0.0
    assert by_q["q_robot_affected"]["consistency"] == 1.0


def test_a_scene_reader_is_fully_consistent_and_scores_alike(small_socialnav, tmp_path):
    res = run(small_socialnav, tmp_path / "r", create_model("human:oracle", ModelOptions()), perturb="mirror")
    m = res.metrics
    assert m["consistency"]["All"]["consistency"] == 1.0
    assert m["scores"]["model"]["All"]["PA"] == pytest.approx(m["clean_scores"]["model"]["All"]["PA"])


def test_mirror_sends_flipped_images_for_the_variant_only(small_socialnav, tmp_path):
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    run(small_socialnav, tmp_path / "r", model, perturb="mirror", limit=1)
    clean = next(r for r in model.calls if "@" not in r.question.key).images[-1]
    mirrored = next(r for r in model.calls if r.question.key.endswith("@mirror")).images[-1]
    a, b = (np.asarray(Image.open(io.BytesIO(x.data)).convert("L"), dtype=float) for x in (clean, mirrored))
    assert np.abs(a[:, ::-1] - b).mean() < np.abs(a - b).mean() / 4


def test_shuffle_lists_the_variant_options_in_its_own_order(small_socialnav, tmp_path):
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    run(small_socialnav, tmp_path / "r", model, perturb="shuffle-options", limit=1)
    req = next(r for r in model.calls if r.question.key.endswith("@shuffle-options") and r.question.kind == "single")
    shown = re.findall(r'"([^"]*)"', _POSSIBLE.search(req.prompt).group(1))
    assert tuple(shown) == req.question.options and sorted(shown) == sorted(req.item.question(req.question.key.split("@")[0]).options)


def test_a_position_biased_model_is_inconsistent_under_shuffle(small_socialnav, tmp_path):
    res = run(small_socialnav, tmp_path / "r", MockModel("mock:first-option", lambda r: first_option_answer(r.prompt)),
              perturb="shuffle-options")
    assert res.metrics["consistency"]["All"]["consistency"] < 0.5


def test_scene_context_answers_geometry_with_the_rules(small_socialnav, tmp_path):
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    res = run(small_socialnav, tmp_path / "r", model, method="scene-context", limit=1)
    item = SocialNavSub().load(small_socialnav, require_images=False, limit=1).items[0]
    facts = rule_facts(item)
    given = [s for s in samples(tmp_path / "r") if s["parse_method"] == "rule-based"]
    assert given and all(s["parsed"] == facts[s["question_key"]] for s in given)
    assert res.metrics["run"]["answered"] == len(item.questions)


def test_scene_context_asks_only_social_questions_with_the_facts(small_socialnav, tmp_path):
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    run(small_socialnav, tmp_path / "r", model, method="scene-context", limit=1)
    assert model.calls and all(r.question.category == "Social reasoning" and FACTS_HEADER in r.prompt for r in model.calls)


def test_mirrored_scene_context_states_mirrored_facts(small_socialnav, tmp_path):
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    run(small_socialnav, tmp_path / "r", model, method="scene-context", perturb="mirror", limit=1)
    clean = next(r.prompt for r in model.calls if "@" not in r.question.key)
    mirrored = next(r.prompt for r in model.calls if r.question.key.endswith("@mirror"))
    swap = {"left": "right", "right": "left"}
    assert mirrored == re.sub(r"\b(left|right)\b", lambda m: swap[m.group(0)], clean) and clean != mirrored


def test_a_benchmark_that_maps_no_answers_refuses_mirror():
    class NoMaps:
        name = "stub"

    with pytest.raises(UsageError, match="does not map them"):
        _check_metamorphic(NoMaps(), EvalOptions(perturb="mirror"))


def test_socialnav_sim_runs_scene_context_under_mirror(tmp_path):
    from socialbench.benchmarks.base import get_benchmark

    bench, data = get_benchmark("socialnav-sim")
    req = RunRequest("socialnav-sim", data, "mock:first-option", tmp_path / "r",
                     EvalOptions(method="scene-context", perturb="mirror", limit=1), concurrency=4,
                     show_progress=False, image_workers=0, image_policy=ImagePolicy(max_side=128))
    res = run_eval(req, bench, MockModel("mock:first-option", lambda r: first_option_answer(r.prompt)))
    assert res.complete and res.metrics["consistency"]["All"]["n"] > 0
