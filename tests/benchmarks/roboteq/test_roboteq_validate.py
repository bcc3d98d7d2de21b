"""``validate`` lists every malformed RobotEQ row with its row number and field."""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path

import pytest

from roboteq_fixtures import GROUNDING_ROWS, JUDGMENT_ROWS, build_release
from socialbench.benchmarks.roboteq.loader import load_roboteq
from socialbench.benchmarks.roboteq.schema import TASK_BJ, TASK_SG
from socialbench.benchmarks.roboteq.validate import validate_roboteq
from socialbench.errors import DataError


def rows_with(index: int, **changes: object) -> list[dict]:
    rows = copy.deepcopy(JUDGMENT_ROWS)
    rows[index].update(changes)
    return rows


def only(problems, field: str):
    found = [p for p in problems if p.field == field]
    assert found, f"no problem with field {field!r} in {[str(p) for p in problems]}"
    return found


def test_clean_release_has_no_problems(release: Path) -> None:
    assert validate_roboteq(release, TASK_BJ) == []
    assert validate_roboteq(release, TASK_SG) == []


def test_unparseable_label_line_names_row_and_field(make_release) -> None:
    bad = "[1] proper: Wave.\nproper - shout at them"
    root = make_release(judgment=rows_with(1, labels=bad))
    (p,) = only(validate_roboteq(root, TASK_BJ), "labels")
    assert p.line == 2 and p.file.endswith("metadata.jsonl")
    assert "line 2 of labels" in p.message and "shout at them" in p.message


def test_option_label_count_mismatch_is_reported(make_release) -> None:
    root = make_release(judgment=rows_with(2, gt_labels=["improper"]))
    (p,) = only(validate_roboteq(root, TASK_BJ), "option_texts")
    assert p.line == 3
    assert "count mismatch" in p.message and "2 option_texts but 1 gt_labels" in p.message


def test_labels_and_option_texts_of_different_length_are_reported(make_release) -> None:
    root = make_release(
        judgment=rows_with(
            0, option_texts=["Approach the table and ask if the guests need water."], gt_labels=["proper"]
        )
    )
    (p,) = only(validate_roboteq(root, TASK_BJ), "labels")
    assert "labels has 2 lines but option_texts has 1" in p.message


def test_labels_disagreeing_with_gt_labels_is_reported(make_release) -> None:
    root = make_release(judgment=rows_with(0, gt_labels=["improper", "improper"]))
    (p,) = only(validate_roboteq(root, TASK_BJ), "gt_labels")
    assert "[1] is proper in labels but improper in gt_labels" in p.message


def test_unknown_facet_is_reported_with_the_known_ones(make_release) -> None:
    root = make_release(judgment=rows_with(0, facets=[["politeness"], ["etiquette"]]))
    (p,) = only(validate_roboteq(root, TASK_BJ), "facets")
    assert p.line == 1 and "'etiquette'" in p.message and "sensitivity" in p.message


def test_missing_image_is_reported(release: Path) -> None:
    (release / "behavior_judgment" / "images" / "s2.png").unlink()
    (p,) = only(validate_roboteq(release, TASK_BJ), "image")
    assert p.line == 2 and "missing" in p.message


def test_unreadable_image_is_reported(release: Path) -> None:
    (release / "spatial_grounding" / "images" / "g3.png").write_bytes(b"not a png at all")
    (p,) = only(validate_roboteq(release, TASK_SG), "image")
    assert p.line == 3 and "cannot be decoded" in p.message


@pytest.mark.parametrize("path", ["../../outside.png", "/etc/passwd"])
def test_path_escaping_the_dataset_is_reported(make_release, path: str) -> None:
    root = make_release(judgment=rows_with(1, file_name=path))
    (p,) = only(validate_roboteq(root, TASK_BJ), "image")
    assert p.line == 2 and "escapes the dataset folder" in p.message


def test_symlink_leading_outside_is_reported(make_release, tmp_path: Path) -> None:
    root = make_release()
    outside = tmp_path / "secret.png"
    outside.write_bytes((root / "behavior_judgment" / "images" / "s1.png").read_bytes())
    link = root / "behavior_judgment" / "images" / "s1.png"
    link.unlink()
    link.symlink_to(outside)
    (p,) = only(validate_roboteq(root, TASK_BJ), "image")
    assert "escapes" in p.message


def test_every_problem_is_listed_not_just_the_first(make_release) -> None:
    rows = copy.deepcopy(JUDGMENT_ROWS)
    rows[0]["facets"] = "kindness"
    rows[1]["labels"] = "[1] maybe: Wave."
    rows[2]["gt_labels"] = ["improper"]
    root = make_release(judgment=rows)
    problems = validate_roboteq(root, TASK_BJ)
    assert sorted((p.line, p.field) for p in problems) == [(1, "facets"), (2, "labels"), (3, "option_texts")]


def test_load_raises_the_same_problems(make_release) -> None:
    root = make_release(judgment=rows_with(0, facets="kindness"))
    with pytest.raises(DataError) as info:
        load_roboteq(root, TASK_BJ, require_images=False)
    assert [p.field for p in info.value.problems] == ["facets"]


def test_grounding_problems_do_not_block_judgment(make_release) -> None:
    rows = copy.deepcopy(GROUNDING_ROWS)
    rows[1]["answer"] = ["E"]
    root = make_release(grounding=rows)
    assert validate_roboteq(root, TASK_BJ) == []
    (p,) = only(validate_roboteq(root, TASK_SG), "answer")
    assert p.line == 2 and "'E'" in p.message


def test_invalid_json_line_is_reported(release: Path) -> None:
    meta = release / "behavior_judgment" / "metadata.jsonl"
    meta.write_text(meta.read_text() + "{not json\n")
    (p,) = only(validate_roboteq(release, TASK_BJ), "json")
    assert p.line == 4


def test_csv_rows_are_numbered_by_their_first_line(tmp_path: Path) -> None:
    root = tmp_path / "c"
    root.mkdir()
    with open(root / "metadata.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file_name", "question", "labels"])
        w.writerow(["a.png", "Role.", "[1] proper: A.\n[2] improper: B."])  # lines 2-3
        w.writerow(["b.png", "Role.", "[1] perhaps: C."])  # line 4
    problems = validate_roboteq(root, TASK_BJ)
    assert sorted((p.line, p.field) for p in problems) == [(2, "image"), (4, "image"), (4, "labels")]


def test_missing_metadata_is_one_clear_problem(tmp_path: Path) -> None:
    (p,) = validate_roboteq(tmp_path, TASK_BJ)
    assert "metadata.jsonl" in p.message


def test_json_rows_must_be_objects(tmp_path: Path) -> None:
    build_release(tmp_path / "x")
    meta = tmp_path / "x" / "behavior_judgment" / "metadata.jsonl"
    meta.write_text(meta.read_text() + json.dumps(["a", "list"]) + "\n")
    (p,) = only(validate_roboteq(tmp_path / "x", TASK_BJ), "json")
    assert "JSON object" in p.message


# --- hardening: what eval/score rely on is checked (issue 11, "Bad input")


def test_lone_surrogate_is_reported_with_its_field(release: Path) -> None:
    meta = release / "behavior_judgment" / "metadata.jsonl"
    rows = rows_with(0, category="Retail\ud800")
    meta.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")  # escaped: valid UTF-8
    (p,) = only(validate_roboteq(release, TASK_BJ), "category")
    assert p.line == 1 and "lone surrogate" in p.message


def test_vote_count_over_the_limit_is_reported(make_release) -> None:
    root = make_release(judgment=rows_with(1, votes={"1": {"proper": 10**40}, "2": ["proper"], "3": ["improper"]}))
    (p,) = only(validate_roboteq(root, TASK_BJ), "votes")
    assert "behavior 1" in p.message and "0 to 10,000" in p.message


def test_fifo_label_file_is_reported_without_being_opened(release: Path) -> None:
    import os

    meta = release / "spatial_grounding" / "metadata.jsonl"
    meta.unlink()
    os.mkfifo(meta)
    problems = validate_roboteq(release, TASK_SG)
    assert any(p.file == str(meta) and "not a regular file" in p.message for p in problems)


def test_csv_field_over_the_csv_limit_is_reported_with_its_line(tmp_path: Path) -> None:
    root = tmp_path / "csv"
    (root / "behavior_judgment").mkdir(parents=True)
    (root / "behavior_judgment" / "metadata.csv").write_text(
        'file_name,question,labels\na.png,q,"' + "x" * 200_000 + '"\n', encoding="utf-8"
    )
    (p,) = only(validate_roboteq(root, TASK_BJ), "csv")
    assert p.line == 2 and "field larger than field limit" in p.message


def test_deeply_nested_json_line_is_reported(release: Path) -> None:
    meta = release / "behavior_judgment" / "metadata.jsonl"
    meta.write_text(meta.read_text() + "[" * 100_000 + "]" * 100_000 + "\n")
    (p,) = only(validate_roboteq(release, TASK_BJ), "json")
    assert p.line == 4 and "nested too deeply" in p.message
