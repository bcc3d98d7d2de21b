"""``socialbench eval -b socialnav-waypoint`` on the bundled scenes: baselines offline, a
scripted OpenAI-compatible server, the four contexts and Table 3."""

from __future__ import annotations

import json

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.cli import main
from socialbench.models.mock import MockModel
from socialbench.models.openai_compat import OpenAICompatModel
from socialbench.models.registry import ModelOptions, create_model
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, run_eval
from socialbench.testing.openai_server import ScriptedOpenAIServer
from socialbench.vision.images import ImagePolicy

LIMIT = 3


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
    assert res.metrics["overall"]["accuracy"]["value"] == 1.0 and res.metrics["overall"]["accuracy"]["n"] == LIMIT


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
    assert res.metrics["overall"]["accuracy"]["value"] == pytest.approx(answers.count("A") / LIMIT)


def test_an_invalid_answer_scores_zero_and_is_counted(tmp_path):
    res = run(tmp_path, MockModel("mock:x", lambda r: '{"answer": "Z"}'))
    assert res.metrics["n_invalid"] == LIMIT and res.metrics["overall"]["accuracy"]["value"] == 0.0


def test_human_oracle_context_is_in_the_prompt(tmp_path):
    model = MockModel("mock:first-option", lambda r: '{"answer": "A"}')
    run(tmp_path, model, context="human-oracle")
    assert all("Scene context:" in r.prompt for r in model.calls)


def test_no_context_sends_no_context_block(tmp_path):
    model = MockModel("mock:first-option", lambda r: '{"answer": "A"}')
    run(tmp_path, model)
    assert not any("Scene context:" in r.prompt for r in model.calls)


def test_a_model_run_with_human_answers_gives_the_oracle_context(tmp_path):
    sub, data = get_benchmark("socialnav-sim")
    req = RunRequest(
        "socialnav-sim", data, "human:oracle", tmp_path / "sub", EvalOptions(limit=LIMIT), show_progress=False
    )
    run_eval(req, sub, create_model("human:oracle", ModelOptions()))
    a = MockModel("mock:first-option", lambda r: '{"answer": "A"}')
    b = MockModel("mock:first-option", lambda r: '{"answer": "A"}')
    run(tmp_path, a, "a", context=f"model:{tmp_path / 'sub'}")
    run(tmp_path, b, "b", context="human-oracle")
    assert sorted(r.prompt for r in a.calls) == sorted(r.prompt for r in b.calls)


def test_a_scripted_server_is_asked_once_per_sample(tmp_path):
    with ScriptedOpenAIServer() as srv:
        model = OpenAICompatModel("m", srv.base_url, ModelOptions(timeout_s=10))
        res = run(tmp_path, model, context="random")
        bodies = list(srv.requests)
    assert res.complete and len(bodies) == LIMIT
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
    from socialbench.errors import UsageError

    with pytest.raises(UsageError, match="--method"):
        get_benchmark("socialnav-waypoint")[0].check_options(EvalOptions(method="cot"))
