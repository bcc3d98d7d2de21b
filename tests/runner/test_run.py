"""A run end to end: run directory, resume without re-asking, errors recorded, methods."""

import json

import pytest

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.models.registry import ModelOptions, create_model
from socialbench.runner.engine import RetryPolicy
from socialbench.runner.run import RunRequest, run_eval

N_QUESTIONS = 81
FAST = RetryPolicy(max_attempts=2, base_delay_s=0.001, timeout_s=5)


def mock() -> MockModel:
    return MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))


def request(data, out, **opts) -> RunRequest:
    return RunRequest(
        benchmark_name="socialnav-sub",
        data=data,
        model_spec="mock",
        out=out,
        options=EvalOptions(**opts),
        concurrency=4,
        retry=FAST,
        cache_path=None,
        show_progress=False,
    )


def test_run_writes_the_three_files(small_socialnav, tmp_path):
    run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), mock())
    assert {p.name for p in (tmp_path / "run").iterdir()} >= {"run.json", "samples.jsonl", "metrics.json"}


def test_samples_have_the_interface_fields(small_socialnav, tmp_path):
    run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), mock())
    lines = [json.loads(x) for x in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert len(lines) == N_QUESTIONS
    assert {"item_id", "question_key", "raw", "parsed", "parse_method", "error", "latency_s", "usage"} <= set(lines[0])


def test_metrics_have_all_rows_for_each_scorer(small_socialnav, tmp_path):
    res = run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), mock())
    scores = res.metrics["scores"]
    assert set(scores) == {"model", "human:average", "human:oracle"}
    rows = set(scores["model"])
    assert {"All", "Spatial reasoning", "Spatiotemporal reasoning", "Social reasoning"} <= rows
    assert len(rows) == 4 + 15
    assert set(scores["model"]["All"]) == {"PA", "CWPA", "PA_se", "CWPA_se", "n"}


def test_rerun_into_same_directory_makes_zero_requests(small_socialnav, tmp_path):
    m = mock()
    run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), m)
    calls = len(m.calls)
    res = run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), m)
    assert calls == N_QUESTIONS and len(m.calls) == calls and res.stats["requests"] == 0


def test_model_errors_are_recorded_and_retried_on_resume(small_socialnav, tmp_path):
    m = mock()
    m.script.extend([FatalModelError("refusal")] * 5)
    first = run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), m)
    assert first.metrics["run"]["model_errors"] == 5 and not first.complete
    second = run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), m)
    assert second.stats["requests"] == 5 and second.complete


def test_failed_answers_are_never_a_parsed_option(small_socialnav, tmp_path):
    m = mock()
    m.script.extend([FatalModelError("refusal")] * 3)
    run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), m)
    failed = [json.loads(x) for x in (tmp_path / "run" / "samples.jsonl").read_text().splitlines() if '"refusal"' in x]
    assert len(failed) == 3 and all(r["parsed"] is None and r["raw"] is None for r in failed)


def test_resuming_with_a_different_model_is_refused(small_socialnav, tmp_path):
    run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), mock())
    other = create_model("baseline:random", ModelOptions())
    with pytest.raises(UsageError, match="different run"):
        run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), other)


def test_run_json_records_the_benchmarks_options_and_variant(small_socialnav, tmp_path):
    run_eval(request(small_socialnav, tmp_path / "run", method="cot", images="img", limit=1), SocialNavSub(), mock())
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert (record["method"], record["images"], record["options"], record["variant"]) == ("cot", "img", {}, "cot-img")


def test_resuming_with_other_benchmark_options_is_refused_naming_them(small_socialnav, tmp_path):
    run_eval(request(small_socialnav, tmp_path / "run", limit=1), SocialNavSub(), mock())
    with pytest.raises(UsageError, match=r"\(images differ\)"):
        run_eval(request(small_socialnav, tmp_path / "run", images="bev", limit=1), SocialNavSub(), mock())


def test_resuming_a_complete_run_with_a_smaller_limit_is_refused_and_changes_nothing(small_socialnav, tmp_path):
    run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), mock())
    before = {n: (tmp_path / "run" / n).read_bytes() for n in ("run.json", "metrics.json", "samples.jsonl")}
    with pytest.raises(UsageError, match=r"holds a run of every item \(no --limit\); --limit 2 would"):
        run_eval(request(small_socialnav, tmp_path / "run", limit=2), SocialNavSub(), mock())
    assert {n: (tmp_path / "run" / n).read_bytes() for n in before} == before


def test_resuming_a_limited_run_without_the_limit_completes_every_item(small_socialnav, tmp_path):
    run_eval(request(small_socialnav, tmp_path / "run", limit=1), SocialNavSub(), mock())
    res = run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), mock())
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert (res.metrics["run"]["answered"], record["limit"], record["status"]) == (N_QUESTIONS, None, "complete")


def test_cot_injects_earlier_answers_as_json(small_socialnav, tmp_path):
    m = mock()
    run_eval(request(small_socialnav, tmp_path / "run", method="cot", limit=1), SocialNavSub(), m)
    end_prompt = next(r.prompt for r in m.calls if r.question.key == "q_person_spatial_position_end_p1")
    assert '{"answer": "ahead of"}' in end_prompt


def test_cot_gt_does_not_ask_spatial_questions(small_socialnav, tmp_path):
    m = mock()
    run_eval(request(small_socialnav, tmp_path / "run", method="cot-gt", limit=1), SocialNavSub(), m)
    asked = {r.question.category for r in m.calls}
    lines = [json.loads(x) for x in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert asked == {"Social reasoning"}
    assert all(
        r["parse_method"] == "human-mode"
        for r in lines
        if not r["question_key"].startswith(
            (
                "q_robot_affected",
                "q_robot_action",
                "q_person_affected",
                "q_person_action",
                "q_robot_suggested",
                "q_human_future",
            )
        )
    )


def test_baseline_runs_without_images(small_socialnav, tmp_path):
    res = run_eval(
        request(small_socialnav, tmp_path / "run"), SocialNavSub(), create_model("human:oracle", ModelOptions())
    )
    assert res.metrics["scores"]["model"]["All"]["PA"] == pytest.approx(
        res.metrics["scores"]["human:oracle"]["All"]["PA"]
    )


def test_requests_carry_ten_images(small_socialnav, tmp_path):
    m = mock()
    run_eval(request(small_socialnav, tmp_path / "run", limit=1), SocialNavSub(), m)
    assert all(len(r.images) == 10 for r in m.calls)


def test_cot_does_not_ask_dependents_of_a_failed_question(small_socialnav, tmp_path):
    class FailsOnce(MockModel):
        failed = False

        async def generate(self, request):
            if request.question.key == "q_person_spatial_position_begin_p1" and not self.failed:
                self.failed = True
                raise FatalModelError("refusal")
            return await super().generate(request)

    m = FailsOnce("mock:first-option", lambda r: first_option_answer(r.prompt))
    first = run_eval(request(small_socialnav, tmp_path / "run", method="cot", limit=1), SocialNavSub(), m)
    lines = [json.loads(x) for x in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    by_key = {r["question_key"]: r for r in lines}
    assert by_key["q_person_spatial_position_end_p1"]["error"] == "dependency_error"
    assert not any(r.question.key == "q_person_spatial_position_end_p1" for r in m.calls)
    second = run_eval(request(small_socialnav, tmp_path / "run", method="cot", limit=1), SocialNavSub(), m)
    end_prompt = next(r.prompt for r in m.calls if r.question.key == "q_person_spatial_position_end_p1")
    assert not first.complete and second.complete and '{"answer": null}' not in end_prompt


def test_a_broken_item_is_recorded_and_the_others_are_answered(small_socialnav, tmp_path):
    import shutil

    data = tmp_path / "data"
    shutil.copytree(small_socialnav, data)
    broken = json.loads((data / "prompts" / "sample_info.json").read_text())["samples"][1]["folderpath"]
    for f in (data / "prompts" / broken).glob("sample_with_bev_*.png"):
        f.unlink()
    # a frame cut short: its header loads (eval checks headers only), rendering it fails
    frame = sorted((data / "front_view" / broken).glob("*.jpg"))[0]
    frame.write_bytes(frame.read_bytes()[: frame.stat().st_size // 2])
    res = run_eval(request(data, tmp_path / "run"), SocialNavSub(), mock())
    lines = [json.loads(x) for x in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    errors = {r["item_id"] for r in lines if r["error"] == "item_error"}
    assert errors == {broken} and res.metrics["run"]["answered"] == N_QUESTIONS - 27


def test_a_run_directory_in_use_is_refused(small_socialnav, tmp_path):
    from socialbench.runner.store import RunStore

    holder = RunStore(tmp_path / "run")
    holder.lock()
    try:
        with pytest.raises(UsageError, match="in use"):
            run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), mock())
    finally:
        holder.unlock()


class FirstItemBroken(SocialNavSub):
    """SocialNav-SUB whose first item fails while its prompts are prepared."""

    async def solve(self, item, dataset, ctx):
        if item is dataset.items[0]:
            raise ValueError("broken item")
        await super().solve(item, dataset, ctx)


def test_error_kinds_are_counted_from_the_records(small_socialnav, tmp_path):
    res = run_eval(request(small_socialnav, tmp_path / "run"), FirstItemBroken(), mock())
    assert res.metrics["run"]["model_errors"] > 0
    assert res.metrics["run"]["error_kinds"] == {"item_error": res.metrics["run"]["model_errors"]}


def _disk_full_after(n_writes):
    """store._write_all that works n_writes times, then writes half a line and fails with ENOSPC."""
    import errno

    import socialbench.runner.store as store_module

    real = store_module._write_all
    calls = []

    def write(fd, data):
        calls.append(1)
        if len(calls) > n_writes:
            real(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd, data)

    return write


def test_a_full_disk_stops_the_run_with_a_storage_error(small_socialnav, tmp_path, monkeypatch):
    import socialbench.runner.store as store_module
    from socialbench.errors import StorageError

    monkeypatch.setattr(store_module, "_write_all", _disk_full_after(40))
    with pytest.raises(StorageError, match="free some space"):
        run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), mock())


def test_a_run_stopped_by_a_full_disk_resumes_to_the_uninterrupted_result(small_socialnav, tmp_path, monkeypatch):
    import socialbench.runner.store as store_module
    from socialbench.errors import StorageError

    reference = run_eval(request(small_socialnav, tmp_path / "ref"), SocialNavSub(), mock())
    monkeypatch.setattr(store_module, "_write_all", _disk_full_after(40))
    with pytest.raises(StorageError):
        run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), mock())
    monkeypatch.undo()  # space freed
    m = mock()
    kept = len(store_module.RunStore(tmp_path / "run").load_samples())
    res = run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), m)
    assert kept > 0 and len(m.calls) == N_QUESTIONS - kept  # nothing written before is asked again
    assert res.complete and res.metrics["scores"] == reference.metrics["scores"]


def test_run_json_requests_count_what_the_model_was_sent(small_socialnav, tmp_path):
    m = mock()
    m.script.extend([FatalModelError("refusal")] * 5)
    run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), m)
    run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), m)
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["requests"] == len(m.calls) and [s["requests"] for s in run["sessions"]] == [N_QUESTIONS, 5]


def test_a_run_resumed_after_run_json_was_removed_counts_only_its_own_requests(small_socialnav, tmp_path):
    run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), mock())
    (tmp_path / "run" / "run.json").unlink()
    run_eval(request(small_socialnav, tmp_path / "run"), SocialNavSub(), mock())  # every answer is on disk
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["requests"] == 0


def test_a_single_run_into_a_folder_of_epochs_is_refused(small_socialnav, tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.json").write_text(json.dumps({"status": "complete", "epochs": 2, "epoch_dirs": ["epoch-1", "epoch-2"]}))
    with pytest.raises(UsageError):
        run_eval(request(small_socialnav, out), SocialNavSub(), mock())
    assert not (out / "samples.jsonl").exists()
