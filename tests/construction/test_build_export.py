"""Export to the canonical RobotEQ form: the RobotEQ loader (and `datasets`) read it back."""

import importlib.util
import json

import pytest
from PIL import Image

from socialbench.benchmarks.roboteq.loader import load_roboteq
from socialbench.benchmarks.roboteq.schema import TASK_BJ, TASK_SG
from socialbench.construction.export import export_dataset
from socialbench.construction.jsonl import write_jsonl
from socialbench.construction.report import write_build_report


def _aggregated(work):
    (work / "img").mkdir(parents=True)
    Image.new("RGB", (32, 24), (10, 20, 30)).save(work / "img" / "s1.png")
    Image.new("RGB", (32, 24), (200, 20, 30)).save(work / "img" / "r1.jpg")
    Image.new("RGB", (32, 24), (10, 200, 30)).save(work / "img" / "g1.png")
    judgment = [
        {
            "id": "restaurant/b00-1",
            "image": "img/s1.png",
            "subset": "synthetic",
            "question": "You are a restaurant robot. What next?",
            "category": "Retail, Hospitality & Consumer Services",
            "subcategory": "Restaurant",
            "behaviors": [
                {
                    "k": 1,
                    "text": "Refill the water",
                    "label": "proper",
                    "facets": ["politeness"],
                    "votes": ["proper", "proper", "improper"],
                },
                {
                    "k": 3,
                    "text": "Read the bill aloud",
                    "label": "improper",
                    "facets": ["privacy", "politeness"],
                    "votes": ["improper", "improper", "improper"],
                },
            ],
        },
        {
            "id": "real/abc",
            "image": "img/r1.jpg",
            "subset": "real",
            "question": "You are a hotel robot. What next?",
            "category": None,
            "subcategory": None,
            "behaviors": [{"k": 1, "text": "Wait", "label": "proper", "facets": [], "votes": ["proper", "proper"]}],
        },
    ]
    grounding = [
        {
            "id": "g1",
            "image": "img/g1.png",
            "question": "Where should you wait?",
            "answer": ["A", "C"],
            "options": {"A": "door", "B": "table", "C": "aisle", "D": "counter"},
            "votes": [["A", "C"], ["A"], ["A", "C"]],
            "subset": "synthetic",
            "facets": ["proxemics"],
        }
    ]
    return judgment, grounding


def test_export_loads_with_the_roboteq_loader(tmp_path):
    work, dest = tmp_path / "work", tmp_path / "dataset"
    judgment, grounding = _aggregated(work)
    res = export_dataset(
        judgment,
        grounding,
        work,
        dest,
        agreement={
            "judgment": {
                "units": 3,
                "ratings": 8,
                "fleiss_kappa": 0.5,
                "krippendorff_alpha": 0.5,
                "percent_agreement": 0.8,
            }
        },
    )
    assert (res.scenes, res.behaviors, res.questions, res.images) == (2, 3, 1, 3)
    bj = load_roboteq(dest, TASK_BJ, require_images=True)
    items = {i.item_id: i for i in bj.items}
    item = items["restaurant/b00-1"]
    assert [q.key for q in item.questions] == ["b1", "b3"]
    assert item.votes["b1"].counts() == {"proper": 2, "improper": 1}
    assert item.metadata["behaviors"]["b3"]["facets"] == ["privacy", "politeness"]
    assert item.metadata["subset"] == "synthetic" and items["real/abc"].metadata["subset"] == "real"
    sg = load_roboteq(dest, TASK_SG, require_images=True)
    (q,) = sg.items
    assert q.metadata["answer"] == ["A", "C"] and q.votes["sg"].counts()[("A", "C")] == 2
    card = (dest / "README.md").read_text()
    assert "config_name: behavior_judgment" in card and "| privacy | 1 |" in card and "Fleiss' kappa" in card


def test_export_refuses_to_overwrite_without_flag(tmp_path):
    from socialbench.errors import UsageError

    work, dest = tmp_path / "work", tmp_path / "dataset"
    judgment, grounding = _aggregated(work)
    export_dataset(judgment, grounding, work, dest)
    with pytest.raises(UsageError):
        export_dataset(judgment, grounding, work, dest)
    assert export_dataset(judgment[:1], [], work, dest, overwrite=True).scenes == 1
    assert len((dest / "roboteq.jsonl").read_text().splitlines()) == 1


@pytest.mark.skipif(importlib.util.find_spec("datasets") is None, reason="datasets is not installed")
def test_export_loads_with_datasets(tmp_path):
    import datasets

    work, dest = tmp_path / "work", tmp_path / "dataset"
    judgment, grounding = _aggregated(work)
    export_dataset(judgment, grounding, work, dest)
    ds = datasets.load_dataset(str(dest), "behavior_judgment", split="train")
    assert len(ds) == 2 and ds[0]["behaviors"][0]["text"] == "Refill the water"


def test_cli_export_and_dataset_report(cli, tmp_path):
    work, dest = tmp_path / "work", tmp_path / "dataset"
    judgment, grounding = _aggregated(work)
    write_jsonl(work / "aggregated" / "judgment.jsonl", judgment)
    write_jsonl(work / "aggregated" / "grounding.jsonl", grounding)
    (work / "aggregated" / "agreement.json").write_text(
        json.dumps(
            {
                "judgment": {
                    "units": 3,
                    "ratings": 8,
                    "fleiss_kappa": 0.25,
                    "krippendorff_alpha": 0.3,
                    "percent_agreement": 0.7,
                }
            }
        )
    )
    res = cli("export", dest, "--work", work)
    assert res.exit_code == 0, res.output
    assert cli("report", "--work", work, "--dataset", dest).exit_code == 0
    md = (work / "report.md").read_text()
    assert "| export | 3 | 3 |" in md  # stage table: 3 in, 3 out
    assert "| Retail, Hospitality & Consumer Services | 1 | 2 | 66.7 |" in md
    assert "| label proper | 2 |" in md and "| judgment | 3 | 8 | 0.250 | 0.300 | 0.700 |" in md
    doc = json.loads((work / "report.json").read_text())
    assert doc["dataset"]["facets"]["politeness"] == 2 and doc["dataset"]["answer_sizes"] == {"2": 1}
    md_path, _ = write_build_report(work, tmp_path / "r")
    assert md_path.read_text().startswith("# socialbench build report")


def _scene_record(work, rid, colour, subset="synthetic"):
    name = f"src{colour[0]}.png"
    Image.new("RGB", (16, 12), colour).save(work / "img" / name)
    return {
        "id": rid,
        "image": f"img/{name}",
        "subset": subset,
        "question": "You are a robot. What next?",
        "behaviors": [{"k": 1, "text": "Wait", "label": "proper", "facets": [], "votes": ["proper"]}],
    }


def _exported_colours(dest):
    rows = [json.loads(line) for line in (dest / "roboteq.jsonl").read_text().splitlines()]
    return {r["id"]: (r["image"], Image.open(dest / r["image"]).convert("RGB").getpixel((0, 0))) for r in rows}


def test_export_gives_ids_that_sanitise_alike_their_own_image_files(tmp_path):
    work, dest = tmp_path / "work", tmp_path / "dataset"
    (work / "img").mkdir(parents=True)
    ids = ["cafe s-1", "cafe?s-1", "cafe/s-1", "cafe__s-1"]
    colours = [(10 * (i + 1), 0, 0) for i in range(len(ids))]
    judgment = [_scene_record(work, rid, c) for rid, c in zip(ids, colours)]
    res = export_dataset(judgment, [], work, dest)
    got = _exported_colours(dest)
    assert res.images == 4 and len({path for path, _ in got.values()}) == 4
    assert {rid: colour for rid, (_, colour) in got.items()} == dict(zip(ids, colours))


def test_export_keeps_judgment_foo_sg_and_grounding_foo_apart(tmp_path):
    work, dest = tmp_path / "work", tmp_path / "dataset"
    (work / "img").mkdir(parents=True)
    judgment = [_scene_record(work, "foo-sg", (200, 0, 0))]
    Image.new("RGB", (16, 12), (0, 0, 200)).save(work / "img" / "g.png")
    grounding = [
        {
            "id": "foo",
            "image": "img/g.png",
            "question": "Where?",
            "answer": ["A"],
            "options": {"A": "door"},
            "subset": "synthetic",
        }
    ]
    export_dataset(judgment, grounding, work, dest)
    got = _exported_colours(dest)
    assert got["foo-sg"][0] != got["foo"][0]
    assert (got["foo-sg"][1], got["foo"][1]) == ((200, 0, 0), (0, 0, 200))


def test_export_keeps_file_names_of_safe_ids(tmp_path):
    work, dest = tmp_path / "work", tmp_path / "dataset"
    (work / "img").mkdir(parents=True)
    export_dataset([_scene_record(work, "syn-0001", (1, 2, 3))], [], work, dest)
    assert _exported_colours(dest)["syn-0001"][0] == "images/synthetic/syn-0001.png"


def test_the_build_report_never_writes_through_a_link(tmp_path):
    from socialbench.files.atomic_write import LinkRefused

    outside = tmp_path / "outside.md"
    outside.write_text("keep")
    work = tmp_path / "work"
    work.mkdir()
    (work / "report.md").symlink_to(outside)
    with pytest.raises(LinkRefused):
        write_build_report(work, None)
    assert outside.read_text() == "keep"
