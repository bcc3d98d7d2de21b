"""Loading RobotEQ from the published layout, CSV, the canonical JSONL form and the hub id."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from roboteq_fixtures import GROUNDING_ROWS, JUDGMENT_ROWS, build_release, draw_image
from socialbench.benchmarks.roboteq.loader import load_roboteq
from socialbench.benchmarks.roboteq.scan import scan_roboteq
from socialbench.benchmarks.roboteq.schema import TASK_BJ, TASK_SG, Behavior, JudgmentScene
from socialbench.benchmarks.roboteq.write import write_canonical


def test_judgment_items_have_one_question_per_behavior(release: Path) -> None:
    ds = load_roboteq(release, TASK_BJ, require_images=True)
    assert [i.item_id for i in ds.items] == ["s1", "s2", "r1"]
    assert [q.key for q in ds.items[1].questions] == ["b1", "b2", "b3"]
    assert all(q.options == ("proper", "improper") and q.kind == "single" for i in ds.items for q in i.questions)
    assert sum(len(i.questions) for i in ds.items) == 7


def test_behavior_text_label_and_facets_come_from_the_row(release: Path) -> None:
    s1 = load_roboteq(release, TASK_BJ, require_images=False).items[0]
    b2 = s1.metadata["behaviors"]["b2"]
    assert b2["text"] == "Announce the bill total loudly."
    assert b2["label"] == "improper"
    assert b2["facets"] == ["privacy", "politeness"]
    assert s1.metadata["role"].startswith("You are a restaurant service robot")
    assert Path(s1.metadata["image"]).is_file()


def test_scene_level_facets_apply_to_every_behavior(release: Path) -> None:
    s2 = load_roboteq(release, TASK_BJ, require_images=False).items[1]
    assert {k: v["facets"] for k, v in s2.metadata["behaviors"].items()} == {
        "b1": ["privacy"],
        "b2": ["privacy"],
        "b3": ["privacy"],
    }


def test_votes_become_the_human_distribution(release: Path) -> None:
    s2 = load_roboteq(release, TASK_BJ, require_images=False).items[1]
    v = s2.votes["b3"]
    assert v.n == 3
    assert v.probability("improper") == pytest.approx(2 / 3)
    assert v.probability("proper") == pytest.approx(1 / 3)


def test_without_votes_the_majority_label_is_the_distribution(make_release) -> None:
    rows = [{k: v for k, v in r.items() if k != "votes"} for r in JUDGMENT_ROWS]
    item = load_roboteq(make_release(judgment=rows), TASK_BJ, require_images=False).items[2]
    assert item.votes["b1"].answers == ("improper",)
    assert item.votes["b1"].n == 1
    assert item.metadata["behaviors"]["b1"]["has_votes"] is False


def test_option_texts_only_rows_are_numbered_from_one(release: Path) -> None:
    r1 = load_roboteq(release, TASK_BJ, require_images=False).items[2]
    assert [(q.key, q.text) for q in r1.questions] == [
        ("b1", "Walk through the middle of the tour group."),
        ("b2", "Wait behind the group until it moves on."),
    ]


def test_grounding_items_hold_a_multi_select_question(release: Path) -> None:
    ds = load_roboteq(release, TASK_SG, require_images=True)
    assert [i.item_id for i in ds.items] == ["g1", "g2", "g3"]
    q = ds.items[0].questions[0]
    assert (q.key, q.kind, q.options) == ("sg", "multi", ("A", "B", "C", "D"))
    assert [i.metadata["answer"] for i in ds.items] == [["A", "C"], ["B"], ["A", "D"]]
    assert ds.items[1].metadata["options"]["C"] == "through the queue"


def test_grounding_votes_are_set_distributions(release: Path) -> None:
    g1 = load_roboteq(release, TASK_SG, require_images=False).items[0]
    assert g1.votes["sg"].probability(("A", "C")) == pytest.approx(2 / 3)
    assert g1.votes["sg"].mode(g1.questions[0].choices) == ("A", "C")


def test_subset_is_inferred_from_a_folder_named_real(tmp_path: Path) -> None:
    rows = [{k: v for k, v in JUDGMENT_ROWS[0].items() if k not in ("subset", "id")}]
    rows[0]["file_name"] = "real/images/x.png"
    root = build_release(tmp_path / "d", judgment=rows, grounding=[])
    item = load_roboteq(root, TASK_BJ, require_images=True).items[0]
    assert item.metadata["subset"] == "real"
    assert item.item_id == "behavior_judgment/real/images/x"  # image path relative to the root


def test_rows_sharing_an_image_get_numbered_ids(make_release) -> None:
    rows = [dict(GROUNDING_ROWS[0]), dict(GROUNDING_ROWS[1])]
    for r in rows:
        r.pop("id")
        r["file_name"] = "images/same.png"
    ds = load_roboteq(make_release(judgment=[], grounding=rows), TASK_SG, require_images=True)
    assert [i.item_id for i in ds.items] == ["spatial_grounding/images/same#1", "spatial_grounding/images/same#2"]


def test_limit_keeps_the_first_items(release: Path) -> None:
    assert [i.item_id for i in load_roboteq(release, TASK_BJ, require_images=False, limit=2).items] == ["s1", "s2"]


def test_csv_metadata_with_json_list_columns_loads(tmp_path: Path) -> None:
    root = tmp_path / "csvds"
    (root / "images").mkdir(parents=True)
    draw_image(root / "images" / "a.png", 1)
    with open(root / "metadata.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file_name", "question", "labels", "option_texts", "gt_labels", "subset"])
        w.writerow(
            [
                "images/a.png",
                "You are a robot.",
                "[1] proper: Wave.\n[2] improper: Shout.",
                json.dumps(["Wave.", "Shout."]),
                json.dumps(["proper", "improper"]),
                "real",
            ]
        )
    item = load_roboteq(root, TASK_BJ, require_images=True).items[0]
    assert [(q.key, item.metadata["behaviors"][q.key]["label"]) for q in item.questions] == [
        ("b1", "proper"),
        ("b2", "improper"),
    ]


def test_canonical_jsonl_round_trips(release: Path, tmp_path: Path) -> None:
    scan = scan_roboteq(release)
    out = tmp_path / "canon"
    out.mkdir()
    for rec in scan.scenes + scan.questions:
        target = out / rec.image
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((release / rec.image).read_bytes())
    assert write_canonical(out / "roboteq.jsonl", scan.scenes + scan.questions) == 6
    for task in (TASK_BJ, TASK_SG):
        a = load_roboteq(release, task, require_images=True)
        b = load_roboteq(out, task, require_images=True)
        assert [(i.item_id, i.questions, dict(i.votes)) for i in a.items] == [
            (i.item_id, i.questions, dict(i.votes)) for i in b.items
        ]
        assert [i.metadata["subset"] for i in a.items] == [i.metadata["subset"] for i in b.items]


# --- regressions: mixed CSV rows, canonical per-behavior votes and facets


def test_mixed_csv_grounding_row_with_an_empty_labels_column_is_grounding(tmp_path: Path) -> None:
    root = tmp_path / "mixed"
    root.mkdir()
    draw_image(root / "a.png", 1)
    draw_image(root / "b.png", 2, letters=True)
    with open(root / "metadata.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file_name", "question", "labels", "option_texts", "gt_labels"])
        w.writerow(
            [
                "a.png",
                "You are a robot.",
                "[1] proper: Wave.\n[2] improper: Shove.",
                json.dumps(["Wave.", "Shove."]),
                json.dumps(["proper", "improper"]),
            ]
        )
        w.writerow(
            [
                "b.png",
                "Which region is the exit?",
                "",
                json.dumps(["door", "window", "wall", "floor"]),
                json.dumps(["A", "C"]),
            ]
        )
    scan = scan_roboteq(root)
    assert scan.problems == []
    assert [(q.image, q.answer, q.options[0]) for q in scan.questions] == [("b.png", ("A", "C"), ("A", "door"))]


def _canonical(root: Path, behaviors: list[dict]) -> Path:
    root.mkdir()
    draw_image(root / "a.png", 1)
    row = {
        "id": "s1",
        "task": "behavior_judgment",
        "image": "a.png",
        "question": "You are a robot.",
        "subset": "real",
        "behaviors": behaviors,
    }
    (root / "roboteq.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    return root


def test_canonical_votes_null_for_one_behavior_means_no_votes_for_it(tmp_path: Path) -> None:
    root = _canonical(
        tmp_path / "c",
        [
            {"k": 1, "text": "Wave.", "label": "proper", "votes": {"proper": 2, "improper": 1}},
            {"k": 2, "text": "Shove.", "label": "improper", "votes": None},
        ],
    )
    item = load_roboteq(root, TASK_BJ, require_images=True).items[0]
    assert [item.metadata["behaviors"][k]["has_votes"] for k in ("b1", "b2")] == [True, False]
    assert (item.votes["b1"].n, item.votes["b2"].answers, item.votes["b2"].n) == (3, ("improper",), 1)


def test_write_canonical_with_a_behavior_without_votes_loads_back(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    draw_image(root / "a.png", 1)
    scene = JudgmentScene(
        "s1",
        "a.png",
        "You are a robot.",
        (
            Behavior(1, "Wave.", "proper", ("safety",), (("proper", 2), ("improper", 1))),
            Behavior(2, "Shove.", "improper", ("safety",), None),
        ),
        subset="real",
    )
    write_canonical(root / "roboteq.jsonl", [scene])
    assert scan_roboteq(root).scenes[0].behaviors == scene.behaviors


def test_canonical_string_facets_stay_with_their_behavior(tmp_path: Path) -> None:
    root = _canonical(
        tmp_path / "f",
        [
            {"k": 1, "text": "Wave.", "label": "proper", "facets": "safety"},
            {"k": 2, "text": "Peek at the screen.", "label": "improper", "facets": "privacy, sensitivity"},
            {"k": 3, "text": "Wait.", "label": "proper"},
        ],
    )
    beh = load_roboteq(root, TASK_BJ, require_images=True).items[0].metadata["behaviors"]
    assert [beh[k]["facets"] for k in ("b1", "b2", "b3")] == [["safety"], ["privacy", "sensitivity"], []]


def test_csv_python_literal_facets_and_votes_load(tmp_path: Path) -> None:
    root = tmp_path / "pandas"
    root.mkdir()
    draw_image(root / "a.png", 1)
    with open(root / "metadata.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file_name", "question", "option_texts", "gt_labels", "facets", "votes"])
        w.writerow(
            [
                "a.png",
                "You are a robot.",
                "['Wave.', 'Shove.']",
                "['proper', 'improper']",
                "[['safety'], ['privacy']]",
                "[['proper', 'proper', 'improper'], ['improper']]",
            ]
        )
    item = load_roboteq(root, TASK_BJ, require_images=True).items[0]
    assert [item.metadata["behaviors"][k]["facets"] for k in ("b1", "b2")] == [["safety"], ["privacy"]]
    assert (item.votes["b1"].n, item.votes["b1"].probabilities) == (3, (2 / 3, 1 / 3))


# --- votes without the image (Figure 6(a))


def test_canonical_votes_no_image_reach_the_behavior_metadata(tmp_path: Path) -> None:
    root = _canonical(
        tmp_path / "n",
        [
            {
                "k": 1,
                "text": "Wave.",
                "label": "proper",
                "votes": ["proper"] * 3,
                "votes_no_image": ["improper", "proper"],
            },
            {"k": 2, "text": "Shove.", "label": "improper", "votes": ["improper"] * 3},
        ],
    )
    item = load_roboteq(root, TASK_BJ, require_images=True).items[0]
    beh = item.metadata["behaviors"]
    assert beh["b1"]["votes_no_image"] == {"proper": 1, "improper": 1} and "votes_no_image" not in beh["b2"]
    assert item.votes["b1"].n == 3  # the with-image votes are untouched


def test_malformed_votes_no_image_name_their_field(tmp_path: Path) -> None:
    from socialbench.errors import DataError

    root = _canonical(tmp_path / "m", [{"k": 1, "text": "Wave.", "label": "proper", "votes_no_image": ["maybe"]}])
    with pytest.raises(DataError) as exc:
        load_roboteq(root, TASK_BJ, require_images=True)
    assert any(p.field == "votes_no_image" and "maybe" in p.message for p in exc.value.problems)


def test_write_canonical_keeps_votes_no_image(tmp_path: Path) -> None:
    root = tmp_path / "wn"
    root.mkdir()
    draw_image(root / "a.png", 1)
    b = Behavior(1, "Wave.", "proper", (), (("proper", 3),), (("proper", 1), ("improper", 2)))
    write_canonical(root / "roboteq.jsonl", [JudgmentScene("s1", "a.png", "You are a robot.", (b,), subset="real")])
    assert scan_roboteq(root).scenes[0].behaviors == (b,)
