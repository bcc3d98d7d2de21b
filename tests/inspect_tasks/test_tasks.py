"""socialbench's benchmarks as Inspect AI tasks: Inspect's metrics are socialbench's own
``score`` of the answers, both ways (issue 31 §1)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="inspect_ai (optional extra inspect) is not installed")

from inspect_ai.model import ChatMessageUser, ContentImage  # noqa: E402

from inspect_helpers import mock_model, prompt_text, run_inspect, varied_answer  # noqa: E402
from socialbench.benchmarks.base import get_benchmark  # noqa: E402
from socialbench.cli import main  # noqa: E402
from socialbench.errors import UsageError  # noqa: E402
from socialbench.export.inspect_format import RECORDS_KEY, epochs_of, flatten_numbers  # noqa: E402
from socialbench.inspect_tasks.tasks import roboteq_bj, roboteq_sg, socialnav_sub, socialnav_waypoint  # noqa: E402
from socialbench.metrics.protocols import PROTOCOL_NAMES  # noqa: E402
from socialbench.models.mock import first_option_answer  # noqa: E402

_FIXTURES = Path(__file__).resolve().parents[1] / "benchmarks" / "roboteq" / "roboteq_fixtures.py"


def _records(metadatas):
    """The records in per-epoch sample scores' metadata, in sample order (one epoch each)."""
    (records,) = epochs_of(metadatas)
    return records


def _release(root: Path) -> Path:
    spec = importlib.util.spec_from_file_location("roboteq_fixtures_for_inspect", _FIXTURES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_release(root)


def _logged_metrics(log) -> dict[str, float]:
    (score,) = log.results.scores
    return {name: m.value for name, m in score.metrics.items()}


def _socialbench_metrics(benchmark: str, data: Path | None, log, limit: int | None = None) -> dict[str, float]:
    """socialbench's own score of the answers in the Inspect log, flattened as Inspect's."""
    bench, bundled = get_benchmark(benchmark)
    dataset = bench.load(data or bundled or bench.default_data(), require_images=True, limit=limit)
    records = _records(s.scores["item_records"].metadata for s in log.samples)
    out: dict[str, float] = {}
    for protocol in PROTOCOL_NAMES:
        flat = flatten_numbers(bench.score(dataset, records, protocol).to_json())
        out.update({f"{protocol}/{k}": v for k, v in flat.items()})
    return out


def test_socialnav_cot_metrics_are_socialbench_scores_of_its_answers(tmp_path):
    log = run_inspect(socialnav_sub(method="cot", limit=2), mock_model(varied_answer), tmp_path)
    metrics = _logged_metrics(log)
    assert metrics == _socialbench_metrics("socialnav-sim", None, log, limit=2)
    assert {"paper/scores/model/All/CWPA", "official/scores/model/All/CWPA"} <= set(metrics)
    assert "paper/scores/model/Social reasoning/PA" in metrics  # per-category breakdown


def test_cot_prompts_carry_the_models_earlier_answers(tmp_path):
    log = run_inspect(socialnav_sub(method="cot", limit=1), mock_model(varied_answer), tmp_path)
    sample = log.samples[0]
    records = sample.scores["item_records"].metadata[RECORDS_KEY]
    prompts = [prompt_text([m]) for m in sample.messages[1:] if isinstance(m, ChatMessageUser)]
    assert len(prompts) == len(records)  # one question at a time, in the chain's order
    bench, data = get_benchmark("socialnav-sim")
    item = bench.load(data, require_images=False, limit=1).items[0]
    parsed = {r["question_key"]: r["parsed"] for r in records}
    fed = 0
    for record, prompt in zip(records, prompts):
        for dep in item.question(record["question_key"]).depends_on:
            assert json.dumps({"answer": parsed[dep]}) in prompt
            fed += 1
    assert fed > 0


def test_requests_carry_the_clips_images(tmp_path):
    log = run_inspect(socialnav_sub(images="img", limit=1), mock_model(varied_answer), tmp_path)
    users = [m for m in log.samples[0].messages[1:] if isinstance(m, ChatMessageUser)]
    assert users and all(sum(isinstance(c, ContentImage) for c in m.content) == 10 for m in users)


def test_inspect_eval_gives_socialbench_evals_requests_and_numbers(tmp_path):
    out = tmp_path / "run"
    main(["eval", "-b", "socialnav-sim", "-m", "mock:first-option", "--limit", "2", "--out", str(out)])
    own = flatten_numbers(json.loads((out / "metrics.json").read_text()))
    log = run_inspect(socialnav_sub(limit=2), mock_model(first_option_answer), tmp_path / "logs")
    metrics = _logged_metrics(log)
    paper = {k.removeprefix("paper/"): v for k, v in metrics.items() if k.startswith("paper/")}
    assert paper == {k: own[k] for k in paper}
    sent = {(r["item_id"], r["question_key"]): r["request_hash"] for r in map(json.loads, open(out / "samples.jsonl"))}
    asked = {
        (r.item_id, r.question_key): r.request_hash
        for r in _records(s.scores["item_records"].metadata for s in log.samples)
    }
    assert asked == sent  # same prompts, images and settings, question by question


def test_waypoint_metrics_are_socialbench_scores_of_its_answers(tmp_path):
    log = run_inspect(socialnav_waypoint(limit=3), mock_model(varied_answer), tmp_path)
    assert _logged_metrics(log) == _socialbench_metrics("socialnav-waypoint", None, log, limit=3)


@pytest.mark.parametrize("task,name", [(roboteq_bj, "roboteq-bj"), (roboteq_sg, "roboteq-sg")])
def test_roboteq_metrics_are_socialbench_scores_of_its_answers(tmp_path, task, name):
    data = _release(tmp_path / "release")
    log = run_inspect(task(data=str(data)), mock_model(varied_answer), tmp_path / "logs")
    metrics = _logged_metrics(log)
    assert metrics and metrics == _socialbench_metrics(name, data, log)


def test_an_option_value_outside_its_choices_is_refused():
    with pytest.raises(UsageError, match="method"):
        socialnav_sub(method="telepathy", limit=1)


def test_epochs_are_scored_each_and_combined_as_socialbench_combines_them(tmp_path):
    from inspect_ai import eval

    from socialbench.runner.epochs import combine_metrics

    asked: dict[str, int] = {}

    def changing(prompt: str) -> str:  # a different option each time the same prompt comes
        asked[prompt] = asked.get(prompt, 0) + 1
        return varied_answer(prompt + "#" * asked[prompt])

    (log,) = eval(
        socialnav_waypoint(limit=3), model=mock_model(changing), epochs=2, log_dir=str(tmp_path), display="none"
    )
    bench, _ = get_benchmark("socialnav-waypoint")
    dataset = bench.load(bench.default_data(), require_images=True, limit=3)
    by_epoch = {e: _records(s.scores["item_records"].metadata for s in log.samples if s.epoch == e) for e in (1, 2)}
    expected: dict[str, float] = {}
    for protocol in PROTOCOL_NAMES:
        trees = [bench.score(dataset, by_epoch[e], protocol).to_json() for e in (1, 2)]
        expected.update({f"{protocol}/{k}": v for k, v in flatten_numbers(combine_metrics(trees)).items()})
    assert _logged_metrics(log) == expected


def test_records_keep_why_the_reply_ended(tmp_path):
    log = run_inspect(socialnav_waypoint(limit=2), mock_model(varied_answer), tmp_path)
    records = _records(s.scores["item_records"].metadata for s in log.samples)
    assert records and {r.finish_reason for r in records} == {"stop"}  # mockllm's stop_reason


# issue 41/42: what an Inspect user meets -------------------------------------------------


def test_a_bad_task_argument_is_one_line_from_inspects_command_line(tmp_path):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "socialbench/socialnav_sub", "-T", "method=cott"]
        + ["--model", "mockllm/model", "--log-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = (done.stdout + done.stderr).strip()
    assert done.returncode != 0
    assert "Traceback" not in said
    message = "socialbench/socialnav_sub: --method must be one of independent, cot, cot-gt, scene-context (got 'cott')"
    assert " ".join(said.split()) == message  # the message alone (the terminal may wrap it)


def test_a_sample_whose_every_question_failed_is_a_failed_sample(tmp_path):
    from inspect_ai import eval
    from inspect_ai.model import get_model

    def broken(messages, tools, tool_choice, config):
        raise TypeError("'NoneType' object is not iterable")  # what the Responses API gives a chat server

    (log,) = eval(
        socialnav_waypoint(limit=1),
        model=get_model("mockllm/model", custom_outputs=broken),
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error"
    (sample,) = log.samples
    assert sample.error is not None and "all 1 questions failed" in sample.error.message


def test_a_samples_score_is_its_pa_against_the_human_answers(tmp_path):
    log = run_inspect(socialnav_sub(limit=2), mock_model(varied_answer), tmp_path)
    bench, data = get_benchmark("socialnav-sim")
    items = {i.item_id: i for i in bench.load(data, require_images=False, limit=2).items}
    for sample in log.samples:
        item = items[sample.id]
        records = sample.scores["item_records"].metadata[RECORDS_KEY]
        shares = [
            item.votes[r["question_key"]].probability(item.question(r["question_key"]).canonical(r["parsed"]))
            for r in records
        ]
        assert sample.scores["item_records"].value == pytest.approx(sum(shares) / len(shares))
        assert len(sample.target) == len(item.questions)
        q = item.questions[0]
        mode = item.votes[q.key].mode(q.choices)
        assert f"{q.key}={'|'.join(mode) if isinstance(mode, tuple) else mode}" in sample.target


def test_inspects_limit_scores_only_the_samples_it_ran(tmp_path):
    from inspect_ai import eval

    (log,) = eval(socialnav_waypoint(), model=mock_model(varied_answer), limit=2, log_dir=str(tmp_path), display="none")
    metrics = _logged_metrics(log)
    assert metrics["paper/n_missing"] == 0
    assert metrics["paper/overall/accuracy/n"] == 2


def _cached_renders() -> int:
    from socialbench.vision.render_cache import default_render_cache_dir

    root = default_render_cache_dir()
    return sum(1 for p in root.rglob("*") if p.is_file()) if root.exists() else 0


def test_the_tasks_keep_their_images_in_socialbench_evals_render_cache(tmp_path):
    before = _cached_renders()
    run_inspect(socialnav_sub(images="img", limit=1, max_side=333), mock_model(varied_answer), tmp_path)
    assert _cached_renders() > before  # a size no other test asks for: new entries


def test_render_cache_false_leaves_the_render_cache_alone(tmp_path):
    before = _cached_renders()
    run_inspect(
        socialnav_sub(images="img", limit=1, max_side=334, render_cache=False), mock_model(varied_answer), tmp_path
    )
    assert _cached_renders() == before


# issue 41: the Inspect front end at socialbench's speed -----------------------------------


def _in_flight_eval(tmp_path, method: str, max_connections: int):
    from inspect_ai import eval

    from inspect_helpers import InFlight

    model = mock_model(varied_answer)
    counter = InFlight(model, cap=max_connections)
    (log,) = eval(
        socialnav_sub(method=method, limit=1),
        model=model,
        max_connections=max_connections,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    return counter, log


def test_independent_questions_of_a_sample_are_in_flight_together_within_the_connection_limit(tmp_path):
    counter, log = _in_flight_eval(tmp_path, "independent", max_connections=4)
    (sample,) = log.samples
    assert len(sample.scores["item_records"].metadata[RECORDS_KEY]) > 4
    assert counter.peak == 4  # several at once, never more than Inspect's --max-connections


def test_cot_asks_one_question_at_a_time_after_the_answers_it_depends_on(tmp_path):
    counter, log = _in_flight_eval(tmp_path, "cot", max_connections=4)
    assert counter.peak == 1
    bench, data = get_benchmark("socialnav-sim")
    item = bench.load(data, require_images=False, limit=1).items[0]
    asked = [r["question_key"] for r in log.samples[0].scores["item_records"].metadata[RECORDS_KEY]]
    for n, key in enumerate(asked):
        assert set(item.question(key).depends_on) <= set(asked[:n]), key


def test_a_records_latency_is_inspects_time_of_the_call_not_its_wait_for_a_connection(tmp_path):
    from inspect_ai.log import read_eval_log

    _, log = _in_flight_eval(tmp_path, "cot", max_connections=1)  # one call at a time: events in order
    (sample,) = read_eval_log(log.location).samples
    records = sample.scores["item_records"].metadata[RECORDS_KEY]
    calls = [e.output.time for e in sample.events if e.event == "model"]
    assert len(calls) == len(records) > 1
    assert [r["latency_s"] for r in records] == [round(t, 6) for t in calls]
