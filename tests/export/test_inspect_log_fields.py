"""``socialbench export inspect`` fills every field of Inspect's log that the run record has
(issue 42): read back with ``inspect_ai.log.read_eval_log`` and compared field by field with
run.json and samples.jsonl. Also: every epoch of an ``--epochs`` run, and baseline runs whose
requests carry no images (issue 41)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="inspect_ai (optional extra inspect) is not installed")

from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ContentReasoning  # noqa: E402

from socialbench.cli import main  # noqa: E402
from socialbench.export.inspect_format import flatten_numbers  # noqa: E402
from socialbench.export.inspect_log import export_inspect  # noqa: E402

ADAPTED = {"response_format": "the server refused it: sent without"}


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A run sent at temperature 0 with a 1024-token limit, whose replies were cut at the limit
    and carried reasoning and reasoning tokens, and whose server made it adapt (as run.json and
    samples.jsonl record them)."""
    out = tmp_path_factory.mktemp("fields") / "run"
    main(
        ["eval", "-b", "socialnav-waypoint", "-m", "mock:first-option", "--limit", "2"]
        + ["--temperature", "0", "--max-tokens", "1024", "--out", str(out), "--no-cache"]
    )
    records = _lines(out / "samples.jsonl")
    for r in records:
        r.update(finish_reason="length", truncated=True, reasoning="thinking it over")
        r["usage"]["reasoning_tokens"] = 3
    (out / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    meta = json.loads((out / "run.json").read_text())
    meta["generation_adapted"] = ADAPTED
    (out / "run.json").write_text(json.dumps(meta))
    return out


@pytest.fixture(scope="module")
def log(run, tmp_path_factory):
    path = tmp_path_factory.mktemp("fields-log") / "run.eval"
    export_inspect(run, path)
    return read_eval_log(str(path))


def test_token_usage_is_the_runs(run, log):
    meta = json.loads((run / "run.json").read_text())
    records = _lines(run / "samples.jsonl")
    (usage,) = log.stats.model_usage.values()
    assert usage.input_tokens == meta["prompt_tokens"] == sum(r["usage"]["prompt_tokens"] for r in records)
    assert usage.output_tokens == meta["completion_tokens"] == sum(r["usage"]["completion_tokens"] for r in records)
    assert usage.reasoning_tokens == 3 * len(records)
    for sample in log.samples:
        mine = [r for r in records if r["item_id"] == sample.id]
        assert sample.output.usage.input_tokens == sum(r["usage"]["prompt_tokens"] for r in mine)
        assert sample.model_usage[log.eval.model].output_tokens == sum(r["usage"]["completion_tokens"] for r in mine)


def test_every_request_is_a_model_event_with_its_settings_and_stop_reason(run, log):
    records = _lines(run / "samples.jsonl")
    events = [e for s in log.samples for e in s.events if e.event == "model"]
    assert len(events) == len(records)
    assert {e.output.stop_reason for e in events} == {"max_tokens"}  # every reply was "length"
    assert {(e.config.temperature, e.config.max_tokens) for e in events} == {(0.0, 1024)}
    assert sorted(e.output.usage.input_tokens for e in events) == sorted(r["usage"]["prompt_tokens"] for r in records)
    assert all(s.output.stop_reason == "max_tokens" for s in log.samples)


def test_the_generation_settings_sent_are_the_logs(run, log):
    meta = json.loads((run / "run.json").read_text())
    for config in (log.eval.model_generate_config, log.plan.config):
        assert (config.temperature, config.max_tokens) == (
            meta["generation"]["temperature"],
            meta["generation"]["max_tokens"],
        )
    assert log.eval.metadata["socialbench_generation"] == meta["generation"]
    assert log.eval.metadata["generation_adapted"] == ADAPTED


def test_replies_keep_their_reasoning(log):
    replies = [e.output.message for s in log.samples for e in s.events if e.event == "model"]
    assert replies and all(
        [c.reasoning for c in m.content if isinstance(c, ContentReasoning)] == ["thinking it over"] for m in replies
    )


def test_ids_packages_and_revision_come_from_run_json(run, log):
    meta = json.loads((run / "run.json").read_text())
    assert log.eval.task_id and log.eval.run_id and log.eval.eval_id
    assert log.eval.packages == meta["versions"]
    if meta.get("git_commit"):
        assert log.eval.revision.commit == meta["git_commit"]


def test_exporting_again_gives_the_same_ids(run, log, tmp_path):
    export_inspect(run, tmp_path / "again.eval")
    again = read_eval_log(str(tmp_path / "again.eval"))
    assert (again.eval.task_id, again.eval.run_id) == (log.eval.task_id, log.eval.run_id)


def test_every_epoch_of_an_epochs_run_is_exported(tmp_path):
    out = tmp_path / "run"
    main(
        ["eval", "-b", "socialnav-waypoint", "-m", "mock:first-option", "--limit", "2", "--epochs", "2"]
        + ["--out", str(out), "--no-cache"]
    )
    res = export_inspect(out, tmp_path / "epochs.eval")
    log = read_eval_log(str(tmp_path / "epochs.eval"))
    assert res.epochs == 2 and log.eval.config.epochs == 2
    assert sorted((s.epoch, s.id) for s in log.samples) == sorted(
        (e, r["item_id"]) for e in (1, 2) for r in _lines(out / f"epoch-{e}" / "samples.jsonl")
    )
    (score,) = log.results.scores
    own = flatten_numbers(json.loads((out / "metrics.json").read_text()))
    logged = {k.removeprefix("paper/"): m.value for k, m in score.metrics.items() if k.startswith("paper/")}
    assert logged and logged == {k: own[k] for k in logged}


@pytest.mark.parametrize("model", ["baseline:rule-based", "human:oracle"])
def test_an_in_process_baselines_requests_match_its_run(tmp_path, model, capsys):
    out = tmp_path / "run"
    main(["eval", "-b", "socialnav-sim", "-m", model, "--limit", "1", "--out", str(out), "--no-cache"])
    capsys.readouterr()
    main(["export", "inspect", str(out), "--out", str(tmp_path / "b.eval")])
    assert "differ" not in capsys.readouterr().out
    assert all(s.metadata["requests_match_run"] for s in read_eval_log(str(tmp_path / "b.eval")).samples)
