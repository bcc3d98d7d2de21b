"""``socialbench eval -b socialnav-waypoint`` on the bundled scenes: baselines offline, a
scripted OpenAI-compatible server, the four contexts and Table 3."""

from __future__ import annotations

import json

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.cli import main
from socialbench.errors import UsageError
from socialbench.models.mock import MockModel
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions, create_model
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, run_eval
from socialbench.testing.openai_server import ScriptedOpenAIServer
from socialbench.vision.images import ImagePolicy

LIMIT = 3


def n_items() -> int:
    """How many of the first LIMIT bundled samples have candidates (a sample that fits no
    group of five is left out, see candidates.py)."""
    bench = get_benchmark("socialnav-waypoint")[0]
    return len(bench.load(bench.default_data(), require_images=False, limit=LIMIT).items)


def run(tmp_path, model, name="r", **opts):
    bench, _ = get_benchmark("socialnav-waypoint")
    extra = {"context": opts.pop("context")} if "context" in opts else {}
    req = RunRequest(
        "socialnav-waypoint",
        bench.default_data(),
        model.spec,
        tmp_path / name,
        EvalOptions(limit=LIMIT, extra=extra, **opts),
        concurrency=2,
        show_progress=False,
        image_workers=0,
        retry=RetryPolicy(max_attempts=2, base_delay_s=0.01, timeout_s=30),
        image_policy=ImagePolicy(max_side=160),
    )
    return run_eval(req, bench, model)


def test_the_operator_oracle_scores_every_item(tmp_path):
    res = run(tmp_path, create_model("human:oracle", ModelOptions()))
    assert res.metrics["overall"]["accuracy"]["value"] == 1.0 and res.metrics["overall"]["accuracy"]["n"] == n_items()


def test_a_model_sees_the_clip_and_the_candidate_image(tmp_path):
    model = MockModel("mock:first-option", lambda r: '{"answer": "A"}')
    run(tmp_path, model)
    assert {len(r.images) for r in model.calls} == {11}


def test_accuracy_counts_the_items_whose_answer_is_chosen(tmp_path):
    model = MockModel("mock:first-option", lambda r: '{"answer": "A"}')
    res = run(tmp_path, model)
    answers = [
        it.votes["q_waypoint"].answers[0]
        for it in get_benchmark("socialnav-waypoint")[0]
        .load(get_benchmark("socialnav-waypoint")[0].default_data(), require_images=False, limit=LIMIT)
        .items
    ]
    assert res.metrics["overall"]["accuracy"]["value"] == pytest.approx(answers.count("A") / len(answers))


def test_an_invalid_answer_scores_zero_and_is_counted(tmp_path):
    res = run(tmp_path, MockModel("mock:x", lambda r: '{"answer": "Z"}'))
    assert res.metrics["n_invalid"] == n_items() and res.metrics["overall"]["accuracy"]["value"] == 0.0


def test_human_oracle_context_is_in_the_prompt(tmp_path):
    model = MockModel("mock:first-option", lambda r: '{"answer": "A"}')
    run(tmp_path, model, context="human-oracle")
    assert all("Scene context:" in r.prompt for r in model.calls)


def test_no_context_sends_no_context_block(tmp_path):
    model = MockModel("mock:first-option", lambda r: '{"answer": "A"}')
    run(tmp_path, model)
    assert not any("Scene context:" in r.prompt for r in model.calls)


def socialnav_run(tmp_path, model, name="sub"):
    """A finished socialnav-sim run of ``model`` on the first LIMIT bundled scenes."""
    sub, data = get_benchmark("socialnav-sim")
    req = RunRequest(
        "socialnav-sim",
        data,
        model.spec,
        tmp_path / name,
        EvalOptions(limit=LIMIT),
        show_progress=False,
        image_workers=0,
        image_policy=ImagePolicy(max_side=160),
    )
    run_eval(req, sub, model)
    return tmp_path / name


def test_the_same_models_run_gives_its_own_answers_as_context(tmp_path):
    sub = socialnav_run(tmp_path, create_model("mock:first-option", ModelOptions()))
    model = create_model("mock:first-option", ModelOptions())
    res = run(tmp_path, model, context=f"model:{sub}")
    lines = [x for r in model.calls for x in r.prompt.splitlines() if x.startswith("- ")]
    # the mock's SocialNav-SUB answers are each question's first option: "yes", "avoid"
    assert lines and all(x.endswith("goal? yes") or " should avoid person " in x for x in lines)
    assert res.metrics["context_run"]["model"] == "mock:first-option"


def test_another_models_run_is_refused_before_any_request_or_folder(tmp_path):
    sub = socialnav_run(tmp_path, create_model("human:oracle", ModelOptions()))
    model = MockModel("mock:first-option", lambda r: '{"answer": "A"}')
    with pytest.raises(
        UsageError, match="holds the answers of human:oracle, not of this run's model mock:first-option"
    ):
        run(tmp_path, model, context=f"model:{sub}")
    assert model.calls == [] and not (tmp_path / "r").exists()


def test_a_killed_run_is_refused_before_the_data_loads(tmp_path):
    sub = socialnav_run(tmp_path, create_model("human:oracle", ModelOptions()))
    record = json.loads((sub / "run.json").read_text())
    (sub / "run.json").write_text(json.dumps({**record, "status": "running"}))
    with pytest.raises(UsageError, match="did not finish"):
        get_benchmark("socialnav-waypoint")[0].check_options(EvalOptions(context=f"model:{sub}"))


def test_score_keeps_the_context_the_run_was_made_with(tmp_path):
    sub = socialnav_run(tmp_path, create_model("mock:first-option", ModelOptions()))
    run(tmp_path, create_model("mock:first-option", ModelOptions()), context=f"model:{sub}")
    written = json.loads((tmp_path / "r" / "metrics.json").read_text())
    main(["score", "-b", "socialnav-waypoint", "-p", str(tmp_path / "r"), "--out", str(tmp_path / "s")])
    rescored = json.loads((tmp_path / "s" / "metrics.json").read_text())
    assert (rescored["context"], rescored["context_run"]) == (written["context"], written["context_run"])


def test_a_scripted_server_is_asked_once_per_sample(tmp_path):
    with ScriptedOpenAIServer() as srv:
        model = OpenAICompatModel("m", srv.base_url, ModelOptions(timeout_s=10))
        res = run(tmp_path, model, context="random")
        # the questions' bodies: all but the images probe (1 token, no response_format)
        bodies = [b for b in srv.requests if "response_format" in b]
    assert res.complete and len(bodies) == n_items() == len(srv.requests) - 1
    content = bodies[0]["messages"][-1]["content"]
    assert sum(1 for part in content if part.get("type") == "image_url") == 11


def test_epochs_and_contexts_make_table3(tmp_path):
    for context in ("none", "random", "human-oracle"):
        main(
            [
                "eval",
                "-b",
                "socialnav-waypoint",
                "-m",
                "baseline:random",
                "--limit",
                "2",
                "--epochs",
                "2",
                "--context",
                context,
                "--out",
                str(tmp_path / context),
                "--no-progress",
                "--no-cache",
                "--no-render-cache",
            ]
        )
    main(
        [
            "report",
            *(str(tmp_path / c) for c in ("none", "random", "human-oracle")),
            "--out",
            str(tmp_path / "rep"),
            "--format",
            "csv",
            "--no-plots",
        ]
    )
    rows = (tmp_path / "rep" / "tables" / "socialnav_table3_waypoints.csv").read_text().splitlines()
    assert rows[0].startswith("Model,No Context,No Context SE,Random,Random SE,Same-Model")
    assert rows[1].split(",")[0] == "Random" and len(rows) == 2
    m = json.loads((tmp_path / "none" / "metrics.json").read_text())
    assert m["epochs"]["n"] == 2 and "se" in m["overall"]["accuracy"]


def test_other_methods_are_refused(tmp_path):
    with pytest.raises(UsageError, match="--method"):
        get_benchmark("socialnav-waypoint")[0].check_options(EvalOptions(method="cot"))


def test_the_left_out_samples_are_one_warning_line_per_run_of_epochs(tmp_path, caplog):
    import logging

    from socialbench.benchmarks.socialnav_waypoint import benchmark

    benchmark.WARNED.clear()  # a fresh process: earlier tests of this session ran eval on these scenes
    bench = get_benchmark("socialnav-waypoint")[0]
    with caplog.at_level(logging.WARNING, logger="socialbench"):
        bench.load(bench.default_data(), require_images=False, limit=None)  # as report, score and export do
        assert not [r for r in caplog.records if "left out of the waypoint task" in r.getMessage()]
        main(
            ["eval", "-b", "socialnav-waypoint", "-m", "baseline:waypoint-nearest", "--epochs", "2"]
            + ["--out", str(tmp_path / "e"), "--no-progress", "--no-cache", "--no-render-cache"]
        )
    lines = [r.getMessage() for r in caplog.records if "left out of the waypoint task" in r.getMessage()]
    assert len(lines) == 1 and lines[0].startswith("10 of 20 samples left out")
