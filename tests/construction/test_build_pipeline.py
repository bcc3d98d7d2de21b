"""The whole pipeline offline: taxonomy -> scenarios -> image prompts -> images -> review ->
behaviors -> Label Studio tasks -> (annotations) -> import -> aggregate -> export -> eval."""

import json
import subprocess
import sys

from socialbench.benchmarks.roboteq.loader import load_roboteq
from socialbench.benchmarks.roboteq.schema import TASK_BJ
from socialbench.construction.jsonl import read_jsonl


def test_pipeline_end_to_end(cli, work, chat_server, images_server, llm_args, tmp_path):
    llm = llm_args(chat_server)
    img = ["--image-model", f"img@{images_server.base_url}", "--size", "48x36", "--retry-delay", "0.01"]
    for args in (
        ["scenarios", *llm, "--beams", "2", "-k", "2", "--only", "restaurant"],
        ["image-prompts", *llm],
        ["images", *img],
        ["review", *llm, *img],
        ["behaviors", *llm, "--proper", "1", "--improper", "1"],
        ["annotate", "export", "--kind", "judgment"],
    ):
        res = cli(*args, "--work", work)
        assert res.exit_code == 0, (args[0], res.output, res.exception)
    tasks = json.loads((work / "annotation" / "judgment" / "tasks.json").read_text())
    scenes = read_jsonl(work / "behaviors.jsonl")
    assert len(tasks) == 2 * len(scenes) == 2 * 2  # 2 beams x 2 scenarios, minus merge and near-copy removals
    # three annotators agree with the suggestion except annotator 3 on improper behaviors
    export = []
    for i, t in enumerate(tasks):
        scene = next(s for s in scenes if s["id"] == t["data"]["item_id"])
        suggested = scene["behaviors"][t["data"]["k"] - 1]["suggested_label"]
        anns = []
        for who in (1, 2, 3):
            label = "proper" if (who == 3 and suggested == "improper") else suggested
            anns.append(
                {
                    "id": 10 * i + who,
                    "completed_by": who,
                    "was_cancelled": False,
                    "result": [
                        {"from_name": "label", "to_name": "behavior", "type": "choices", "value": {"choices": [label]}}
                    ],
                }
            )
        export.append({"id": i, "data": t["data"], "annotations": anns})
    (tmp_path / "ls.json").write_text(json.dumps(export))
    assert cli("annotate", "import", tmp_path / "ls.json", "--work", work).exit_code == 0
    assert cli("aggregate", "--work", work).exit_code == 0
    dest = tmp_path / "dataset"
    res = cli("export", dest, "--work", work)
    assert res.exit_code == 0, res.output
    data = load_roboteq(dest, TASK_BJ, require_images=True)
    assert len(data.items) == 2 and all(len(i.questions) == 2 for i in data.items)
    item = data.items[0]
    assert item.votes["b2"].counts() == {"improper": 2, "proper": 1}
    assert (
        item.metadata["category"] == "Retail, Hospitality & Consumer Services"
        and item.metadata["subset"] == "synthetic"
    )
    agreement = json.loads((work / "aggregated" / "agreement.json").read_text())["judgment"]
    assert agreement["units"] == 4 and agreement["fleiss_kappa"] is not None
    assert cli("report", "--work", work, "--dataset", dest).exit_code == 0
    md = (work / "report.md").read_text()
    for stage in ("scenarios", "image-prompts", "images", "review", "behaviors", "aggregate", "export"):
        assert f"| {stage} |" in md
    run = tmp_path / "run"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "socialbench",
            "eval",
            "--benchmark",
            "roboteq-bj",
            "--data",
            str(dest),
            "--model",
            "baseline:random",
            "--out",
            str(run),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    samples = [json.loads(x) for x in (run / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == 4
    # the image-necessity filter reads that run's samples.jsonl as a "text-only" run
    assert cli("aggregate", "--work", work, "--text-only", run).exit_code == 0
    gold = {(i.item_id, q.key): i.metadata["behaviors"][q.key]["label"] for i in data.items for q in i.questions}
    right = {
        f"{s['item_id']}#{s['question_key']}" for s in samples if s["parsed"] == gold[(s["item_id"], s["question_key"])]
    }
    dropped = {
        d["id"]
        for d in read_jsonl(work / "aggregated" / "image_necessity.dropped.jsonl", require_id=False)
        if d["reason"] == "image_necessity"
    }
    assert dropped == right
    kept = sum(len(s["behaviors"]) for s in read_jsonl(work / "aggregated" / "judgment.jsonl"))
    assert kept == 4 - len(right)
