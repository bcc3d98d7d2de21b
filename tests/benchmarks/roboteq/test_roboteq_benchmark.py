"""End to end: ``run_eval`` on the tiny release through the real engine, store and scoring."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from socialbench.benchmarks.base import benchmark_names, get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.models.registry import ModelOptions, create_model
from socialbench.runner.run import RunRequest, run_eval
from socialbench.types import Request

_NUMBERED = re.compile(r"^\[(\d+)\] ", re.MULTILINE)


def all_proper(request: Request) -> str:
    """A scripted model: every listed behavior is proper (per scene), else the first option."""
    ks = _NUMBERED.findall(request.prompt)
    if ks and request.question is None:
        return json.dumps({"answer": {k: "proper" for k in ks}})
    return first_option_answer(request.prompt)


def run(bench_name: str, data: Path, out: Path, model, **options) -> dict:
    bench, _ = get_benchmark(bench_name)
    req = RunRequest(
        bench_name, data, model.spec, out, EvalOptions(**options), concurrency=4, cache_path=None, show_progress=False
    )
    result = run_eval(req, bench, model)
    assert result.complete
    return json.loads((out / "metrics.json").read_text())


def samples(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def test_both_benchmarks_are_registered() -> None:
    assert {"roboteq-bj", "roboteq-sg"} <= set(benchmark_names())


def test_per_scene_run_sends_one_request_per_scene(release: Path, tmp_path: Path) -> None:
    model = MockModel("mock:all-proper", all_proper)
    metrics = run("roboteq-bj", release, tmp_path / "run", model)
    assert len(model.calls) == 3
    rows = samples(tmp_path / "run")
    assert [(r["item_id"], r["question_key"]) for r in rows] == [
        ("s1", "b1"),
        ("s1", "b2"),
        ("s2", "b1"),
        ("s2", "b2"),
        ("s2", "b3"),
        ("r1", "b1"),
        ("r1", "b2"),
    ]
    assert {r["parsed"] for r in rows} == {"proper"} and {r["parse_method"] for r in rows} == {"json"}
    assert len({r["request_hash"] for r in rows}) == 3
    assert metrics["requests"]["requests"] == 3


def test_metrics_match_hand_computed_pa_cwpa_and_accuracy(release: Path, tmp_path: Path) -> None:
    metrics = run("roboteq-bj", release, tmp_path / "run", MockModel("mock:all-proper", all_proper))
    overall = metrics["overall"]
    assert metrics["cwpa_basis"] == "votes"
    assert overall["n"] == 7
    # p_h(proper) per behavior: 2/3, 0, 2/3, 1, 1/3, 1/3, 1 -> PA 4/7; CWPA 1, 0, 1, 1, .5, .5, 1 -> 5/7
    assert overall["pa"]["value"] == pytest.approx(4 / 7)
    assert overall["cwpa"]["value"] == pytest.approx(5 / 7)
    assert overall["accuracy"]["value"] == pytest.approx(4 / 7)  # 4 of 7 gold labels are proper
    assert overall["invalid_rate"]["value"] == 0.0
    # proper: TP 4, FP 3 -> F1 8/11; improper: TP 0, FN 3 -> 0; macro 4/11
    assert overall["macro_f1"]["value"] == pytest.approx(4 / 11)
    assert metrics["table1"]["synthetic"]["PA"] == round(100 * (2 / 3 + 0 + 2 / 3 + 1 + 1 / 3) / 5, 2)


def test_breakdowns_by_subset_category_and_facet(release: Path, tmp_path: Path) -> None:
    metrics = run("roboteq-bj", release, tmp_path / "run", MockModel("mock:all-proper", all_proper))
    assert {k: v.get("n") for k, v in metrics["by_subset"].items()} == {"synthetic": 5, "real": 2, "average": None}
    avg = metrics["by_subset"]["average"]["accuracy"]["value"]
    assert avg == pytest.approx((3 / 5 + 1 / 2) / 2)
    assert metrics["by_category"]["Cultural, Ceremonial & Religious Spaces"]["n"] == 2
    # privacy: s1 b2 and all three of s2; politeness: both of s1
    assert {k: v["n"] for k, v in metrics["by_facet"].items()} == {"politeness": 2, "privacy": 4}
    assert metrics["by_subcategory"]["Hotel"]["n"] == 3


def test_per_behavior_option_sends_one_request_per_behavior(release: Path, tmp_path: Path) -> None:
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    metrics = run("roboteq-bj", release, tmp_path / "run", model, per_behavior=True)
    assert len(model.calls) == 7
    assert all(c.question is not None and c.question.text in c.prompt for c in model.calls)
    assert metrics["overall"]["accuracy"]["value"] == pytest.approx(4 / 7)


def test_missing_judgment_is_invalid_for_that_behavior_only(release: Path, tmp_path: Path) -> None:
    def skip_second(request: Request) -> str:
        ks = [k for k in _NUMBERED.findall(request.prompt) if k != "2" or "hotel" not in request.prompt]
        return json.dumps({"answer": {k: "proper" for k in ks}})

    metrics = run("roboteq-bj", release, tmp_path / "run", MockModel("mock:skip", skip_second))
    invalid = [(r["item_id"], r["question_key"]) for r in samples(tmp_path / "run") if r["parsed"] is None]
    assert invalid == [("s2", "b2")]
    assert metrics["overall"]["invalid_rate"]["value"] == pytest.approx(1 / 7)
    assert metrics["parse_methods"] == {"invalid": 1, "json": 6}


def test_no_image_strategy_sends_no_images(release: Path, tmp_path: Path) -> None:
    model = MockModel("mock:all-proper", all_proper)
    run("roboteq-bj", release, tmp_path / "run", model, strategy="no-image")
    assert all(c.images == () for c in model.calls)
    assert all("No image is available" in c.prompt for c in model.calls)


def test_standard_strategy_sends_the_scene_image(release: Path, tmp_path: Path) -> None:
    model = MockModel("mock:all-proper", all_proper)
    run("roboteq-bj", release, tmp_path / "run", model)
    assert [len(c.images) for c in model.calls] == [1, 1, 1]
    assert {(c.images[0].width, c.images[0].height) for c in model.calls} == {(120, 80)}


def test_cot_strategy_doubles_max_tokens(release: Path, tmp_path: Path) -> None:
    model = MockModel("mock:all-proper", all_proper)
    run("roboteq-bj", release, tmp_path / "run", model, strategy="cot")
    assert {c.config.max_tokens for c in model.calls} == {2048}
    assert {c.config.temperature for c in model.calls} == {0.0}


def test_rag_strategy_records_added_tokens_and_retrieval_time(release: Path, tmp_path: Path) -> None:
    model = MockModel("mock:all-proper", all_proper)
    metrics = run("roboteq-bj", release, tmp_path / "run", model, strategy="rag")
    assert all(c.prompt.startswith("Reference social norms") for c in model.calls)
    rows = samples(tmp_path / "run")
    assert all(r["usage"]["rag_added_tokens"] > 0 and r["usage"]["rag_retrieval_us"] >= 0 for r in rows)
    rag = metrics["requests"]["rag"]
    assert rag["queries"] == 3 and rag["added_prompt_tokens_per_query"] > 0


def test_human_oracle_baseline_scores_full_accuracy(release: Path, tmp_path: Path) -> None:
    model = create_model("human:oracle", ModelOptions())
    metrics = run("roboteq-bj", release, tmp_path / "run", model)
    assert metrics["overall"]["accuracy"]["value"] == 1.0
    assert metrics["requests"]["requests"] == 7  # baselines are asked per behavior


def test_perturbation_changes_the_sent_image(release: Path, tmp_path: Path) -> None:
    clean = MockModel("mock:all-proper", all_proper)
    run("roboteq-bj", release, tmp_path / "clean", clean)
    blurred = MockModel("mock:all-proper", all_proper)
    run("roboteq-bj", release, tmp_path / "blur", blurred, perturb="blur", perturb_strength=2.0)
    clean_images = {c.item.item_id: c.images[0] for c in clean.calls}
    blurred_images = {c.item.item_id: c.images[0] for c in blurred.calls}
    assert clean_images.keys() == blurred_images.keys() == {"s1", "s2", "r1"}
    assert all(clean_images[k].sha256 != blurred_images[k].sha256 for k in clean_images)
    assert all(clean_images[k].width == blurred_images[k].width for k in clean_images)


def test_rerun_resumes_without_new_requests(release: Path, tmp_path: Path) -> None:
    run("roboteq-bj", release, tmp_path / "run", MockModel("mock:all-proper", all_proper))
    again = MockModel("mock:all-proper", all_proper)
    run("roboteq-bj", release, tmp_path / "run", again)
    assert again.calls == []


def test_failed_scene_request_is_recorded_and_retried_next_run(release: Path, tmp_path: Path) -> None:
    def refuse_hotel(request: Request) -> str:
        if "hotel" in request.prompt:
            raise FatalModelError("refusal", "no")
        return all_proper(request)

    bench, _ = get_benchmark("roboteq-bj")
    req = RunRequest(
        "roboteq-bj",
        release,
        "mock:t",
        tmp_path / "run",
        EvalOptions(),
        concurrency=1,
        cache_path=None,
        show_progress=False,
    )
    first = run_eval(req, bench, MockModel("mock:t", refuse_hotel))
    assert not first.complete
    assert first.metrics["overall"]["error_rate"]["value"] == pytest.approx(3 / 7)  # the 3 behaviors of s2
    assert {r["item_id"] for r in samples(tmp_path / "run") if r["error"] == "refusal"} == {"s2"}
    retry = MockModel("mock:t", all_proper)
    second = run_eval(req, bench, retry)
    assert second.complete and len(retry.calls) == 1 and "hotel" in retry.calls[0].prompt


def test_grounding_run_scores_sets(release: Path, tmp_path: Path) -> None:
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    metrics = run("roboteq-sg", release, tmp_path / "sg", model)
    assert [r["parsed"] for r in samples(tmp_path / "sg")] == [["A"], ["A"], ["A"]]
    overall = metrics["overall"]
    assert overall["exact_match"]["value"] == 0.0
    assert overall["jaccard"]["value"] == pytest.approx((1 / 2 + 0 + 1 / 2) / 3)
    # option A: TP 2 (g1, g3), FP 1 (g2); B: FN 1; C: FN 1; D: FN 1 -> micro 2*2/(4+1+3)
    assert overall["micro_f1"]["value"] == pytest.approx(4 / 8)
    assert overall["per_option"]["A"]["precision"] == pytest.approx(2 / 3)


def test_grounding_text_answer_is_read_from_the_answer_phrase(release: Path, tmp_path: Path) -> None:
    model = MockModel("mock:text", lambda r: "A robot should wait here.\nFinal answer: B, D")
    run("roboteq-sg", release, tmp_path / "sg", model)
    assert {(r["parse_method"], tuple(r["parsed"])) for r in samples(tmp_path / "sg")} == {("strict", ("B", "D"))}


def test_grounding_reply_without_an_answer_is_invalid(release: Path, tmp_path: Path) -> None:
    metrics = run("roboteq-sg", release, tmp_path / "sg", MockModel("mock:text", lambda r: "A robot should wait here."))
    assert {r["parsed"] for r in samples(tmp_path / "sg")} == {None}
    assert metrics["overall"]["invalid_rate"]["value"] == 1.0


def test_grounding_empty_json_answer_is_invalid_even_when_reasoning_names_a_letter(
    release: Path, tmp_path: Path
) -> None:
    reply = json.dumps({"reasoning": "The answer is B since region B is by the door.", "answer": []})
    metrics = run("roboteq-sg", release, tmp_path / "sg", MockModel("mock:text", lambda r: reply))
    assert {r["parsed"] for r in samples(tmp_path / "sg")} == {None}
    assert metrics["overall"]["invalid_rate"]["value"] == 1.0


@pytest.mark.parametrize(
    "bench_name, options, message",
    [
        ("roboteq-bj", {"strategy": "magic"}, "--strategy"),
        ("roboteq-sg", {"per_behavior": True}, "roboteq-bj only"),
        ("roboteq-bj", {"method": "cot"}, "SocialNav-SUB option"),
        ("roboteq-bj", {"protocol": "official"}, "one metric protocol"),
        ("roboteq-bj", {"perturb": "rain"}, "unknown perturbation"),
        ("roboteq-bj", {"perturb": "blur", "strategy": "no-image"}, "no effect"),
    ],
)
def test_bad_options_are_usage_errors(bench_name: str, options: dict, message: str) -> None:
    bench, _ = get_benchmark(bench_name)
    with pytest.raises(UsageError, match=message):
        bench.check_options(EvalOptions(**options))


def test_default_options_are_accepted_for_scoring() -> None:
    for name in ("roboteq-bj", "roboteq-sg"):
        get_benchmark(name)[0].check_options(EvalOptions())


def test_score_from_samples_file_reproduces_metrics(release: Path, tmp_path: Path) -> None:
    metrics = run("roboteq-bj", release, tmp_path / "run", MockModel("mock:all-proper", all_proper))
    bench, _ = get_benchmark("roboteq-bj")
    records = bench.read_predictions(tmp_path / "run")
    again = bench.score(bench.load(release, require_images=False, limit=None), records, "paper")
    assert again["overall"] == metrics["overall"]


def test_fingerprint_changes_when_labels_change(release: Path) -> None:
    bench, _ = get_benchmark("roboteq-bj")
    before = bench.fingerprint(release)
    meta = release / "behavior_judgment" / "metadata.jsonl"
    meta.write_text(meta.read_text().replace("Announce the bill total loudly.", "Announce the bill total quietly."))
    assert bench.fingerprint(release) != before


def test_registered_first_option_mock_answers_every_scene_behavior_validly(release: Path, tmp_path: Path) -> None:
    model = create_model("mock:first-option", ModelOptions())
    metrics = run("roboteq-bj", release, tmp_path / "run", model, strategy="cot")
    rows = samples(tmp_path / "run")
    assert {r["parsed"] for r in rows} == {"proper"} and metrics["requests"]["requests"] == 3
