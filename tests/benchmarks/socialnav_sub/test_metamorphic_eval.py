"""``--perturb mirror`` / ``--perturb shuffle-options`` and ``--method scene-context`` runs on
SocialNav-SUB: what is asked, what is recorded, and the consistency in metrics.json."""

from __future__ import annotations

import io
import json
import re
import shutil

import numpy as np
import pytest
from PIL import Image

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.benchmarks.socialnav_sub.scene_context import FACTS_HEADER, rule_facts
from socialbench.errors import UsageError
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.models.registry import ModelOptions, create_model
from socialbench.navigation.render_job import RenderSample
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, _check_metamorphic, run_eval
from socialbench.vision.images import ImagePolicy

N_QUESTIONS = 81  # small_socialnav
_POSSIBLE = re.compile(r"^Possible answers:\s*(.*)$", re.MULTILINE)


def run(data, out, model, **opts):
    req = RunRequest(
        "socialnav-sub",
        data,
        model.spec,
        out,
        EvalOptions(**opts),
        concurrency=4,
        retry=RetryPolicy(max_attempts=1, timeout_s=30),
        show_progress=False,
        image_workers=0,
        image_policy=ImagePolicy(max_side=256, format="PNG"),
    )
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
    res = run(
        small_socialnav,
        tmp_path / "r",
        MockModel("mock:first-option", lambda r: first_option_answer(r.prompt)),
        perturb="mirror",
    )
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


@pytest.mark.parametrize("mode", ["img-with-bev", "bev"])
def test_mirror_sends_images_rendered_from_mirrored_tracks_for_the_variant_only(small_socialnav, tmp_path, mode):
    """The variant's images are the mirrored scene's render (labels upright), not a pixel
    flip; the originals come from the same renderer, not the composites, so the two differ
    only by the mirror."""
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    run(small_socialnav, tmp_path / "r", model, perturb="mirror", limit=1, images=mode)
    clean = next(r for r in model.calls if "@" not in r.question.key)
    mirrored = next(r for r in model.calls if r.question.key.endswith("@mirror"))
    policy = ImagePolicy(max_side=256, format="PNG")
    expected = {m: RenderSample.of(clean.item.metadata, mode, policy, mirror=m).run() for m in (False, True)}
    assert [x.data for x in mirrored.images] == [x.data for x in expected[True]]
    assert [x.data for x in clean.images] == [x.data for x in expected[False]]
    a, b = (
        np.asarray(Image.open(io.BytesIO(x.data)).convert("L"), dtype=float)
        for x in (clean.images[-1], mirrored.images[-1])
    )
    assert not np.array_equal(a[:, ::-1], b)  # not a pixel flip: the text reads normally


def test_a_mirror_run_of_composites_only_is_refused_with_one_line(small_socialnav, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(small_socialnav, data)
    for frame in (data / "front_view").rglob("*.jpg"):
        frame.unlink()  # the composites remain: a plain img-with-bev run works
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    with pytest.raises(UsageError, match="no raw frames") as e:
        run(data, tmp_path / "r", model, perturb="mirror")
    assert "composites" in str(e.value) and "\n" not in str(e.value)
    assert run(data, tmp_path / "plain", model, limit=1).complete


def test_mirror_at_strength_zero_is_refused(small_socialnav, tmp_path):
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    with pytest.raises(UsageError, match="strength 0"):
        run(small_socialnav, tmp_path / "r", model, perturb="mirror", perturb_strength=0.0)


def test_the_rule_based_baseline_answers_mirror_variants_from_the_mirrored_tracks(small_socialnav, tmp_path):
    """Its rules read the mirrored scene, so every answer swaps sides exactly: consistency 1."""
    res = run(small_socialnav, tmp_path / "r", create_model("baseline:rule-based", ModelOptions()), perturb="mirror")
    rows = samples(tmp_path / "r")
    assert res.complete and not [s for s in rows if s["error"]]
    assert res.metrics["consistency"]["All"]["consistency"] == 1.0
    assert res.metrics["consistency"]["All"]["n"] == N_QUESTIONS


def test_shuffle_lists_the_variant_options_in_its_own_order(small_socialnav, tmp_path):
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    run(small_socialnav, tmp_path / "r", model, perturb="shuffle-options", limit=1)
    req = next(r for r in model.calls if r.question.key.endswith("@shuffle-options") and r.question.kind == "single")
    shown = re.findall(r'"([^"]*)"', _POSSIBLE.search(req.prompt).group(1))
    assert tuple(shown) == req.question.options and sorted(shown) == sorted(
        req.item.question(req.question.key.split("@")[0]).options
    )


def test_a_position_biased_model_is_inconsistent_under_shuffle(small_socialnav, tmp_path):
    res = run(
        small_socialnav,
        tmp_path / "r",
        MockModel("mock:first-option", lambda r: first_option_answer(r.prompt)),
        perturb="shuffle-options",
    )
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
    assert model.calls and all(
        r.question.category == "Social reasoning" and FACTS_HEADER in r.prompt for r in model.calls
    )


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
    req = RunRequest(
        "socialnav-sim",
        data,
        "mock:first-option",
        tmp_path / "r",
        EvalOptions(method="scene-context", perturb="mirror", limit=1),
        concurrency=4,
        show_progress=False,
        image_workers=0,
        image_policy=ImagePolicy(max_side=128),
    )
    res = run_eval(req, bench, MockModel("mock:first-option", lambda r: first_option_answer(r.prompt)))
    assert res.complete and res.metrics["consistency"]["All"]["n"] > 0


# --------------------------------------------------------------------------- `score` of a metamorphic run

SCORED = ("scores", "clean_scores", "consistency", "failures")


def cli(*args):
    from socialbench.cli import main

    with pytest.raises(SystemExit) as e:
        main([str(a) for a in args])
        raise SystemExit(0)
    return e.value.code


def eval_cli(data, out, *flags):
    code = cli("eval", "-b", "socialnav-sub", "-d", data, "-o", out, "--no-progress", "--no-cache", *flags)
    assert code == 0
    return json.loads((out / "metrics.json").read_text())


def score_cli(data, predictions, out, *flags):
    code = cli("score", "-b", "socialnav-sub", "-d", data, "-p", predictions, "-o", out, *flags)
    assert code == 0
    return json.loads((out / "metrics.json").read_text())


def scored(metrics):
    return {k: metrics.get(k) for k in SCORED}


@pytest.fixture(scope="module")
def mirror_run(small_socialnav, tmp_path_factory):
    out = tmp_path_factory.mktemp("mirror") / "run"
    return out, eval_cli(small_socialnav, out, "-m", "baseline:random", "--perturb", "mirror", "--limit", "2")


@pytest.fixture(scope="module")
def shuffle_run(small_socialnav, tmp_path_factory):
    """Scored with the official protocol, where the variants' option order (the seed) matters:
    an invalid answer scores as the first option, and a multiple-select answer must list
    its options in the order the prompt gave."""
    out = tmp_path_factory.mktemp("shuffle") / "run"
    flags = ("-m", "baseline:random", "--perturb", "shuffle-options", "--seed", "3", "--protocol", "official")
    return out, eval_cli(small_socialnav, out, *flags, "--limit", "2")


def test_score_of_a_mirror_run_directory_equals_its_metrics(small_socialnav, mirror_run, tmp_path):
    out, metrics = mirror_run
    assert metrics["consistency"] is not None
    assert scored(score_cli(small_socialnav, out, tmp_path / "s")) == scored(metrics)


def test_score_of_mirror_samples_alone_takes_the_variant_from_their_keys(small_socialnav, mirror_run, tmp_path):
    out, metrics = mirror_run
    (tmp_path / "alone").mkdir()
    samples_file = tmp_path / "alone" / "samples.jsonl"
    samples_file.write_bytes((out / "samples.jsonl").read_bytes())
    assert scored(score_cli(small_socialnav, samples_file, tmp_path / "s")) == scored(metrics)


def test_score_of_a_shuffle_run_directory_uses_its_seed(small_socialnav, shuffle_run, tmp_path):
    out, metrics = shuffle_run
    assert metrics["consistency"] is not None
    got = score_cli(small_socialnav, out, tmp_path / "s", "--protocol", "official")
    assert scored(got) == scored(metrics)


def test_score_of_shuffle_samples_beside_their_run_json_uses_its_seed(small_socialnav, shuffle_run, tmp_path):
    out, metrics = shuffle_run
    got = score_cli(small_socialnav, out / "samples.jsonl", tmp_path / "s", "--protocol", "official")
    assert scored(got) == scored(metrics)


def test_score_of_shuffle_samples_without_their_run_json_is_refused(small_socialnav, shuffle_run, tmp_path, capsys):
    out, _ = shuffle_run
    (tmp_path / "alone").mkdir()
    samples_file = tmp_path / "alone" / "samples.jsonl"
    samples_file.write_bytes((out / "samples.jsonl").read_bytes())
    code = cli("score", "-b", "socialnav-sub", "-d", small_socialnav, "-p", samples_file, "-o", tmp_path / "s")
    err = capsys.readouterr().err.strip()
    assert code == 1 and "seed" in err and "run directory" in err and len(err.splitlines()) == 1


# --------------------------------------------------------------------------- compare / report of a metamorphic run


@pytest.fixture(scope="module")
def plain_run(small_socialnav, tmp_path_factory):
    out = tmp_path_factory.mktemp("plain") / "run"
    return out, eval_cli(small_socialnav, out, "-m", "baseline:random", "--limit", "2")


def test_compare_pairs_a_mirror_runs_variants_with_the_plain_questions(mirror_run, plain_run):
    from socialbench.report.compare import compare_runs
    from socialbench.report.loading import load_runs

    (m_out, m_metrics), (p_out, p_metrics) = mirror_run, plain_run
    res = compare_runs(load_runs([m_out, p_out]), n_boot=10, n_perm=10)
    pa = res["pairs"][0]["PA"]
    assert res["n"] == p_metrics["scores"]["model"]["All"]["n"]
    assert pa["a"] == pytest.approx(m_metrics["scores"]["model"]["All"]["PA"])
    assert pa["b"] == pytest.approx(p_metrics["scores"]["model"]["All"]["PA"])


def test_report_item_analyses_of_a_mirror_run_use_the_half_its_scores_cover(mirror_run):
    from socialbench.report.item_data import ItemData
    from socialbench.report.loading import load_runs

    out, metrics = mirror_run
    entries = ItemData(load_runs([out]), None).entries[0]
    assert len(entries) == metrics["scores"]["model"]["All"]["n"] and all("@mirror" in e.question.key for e in entries)
