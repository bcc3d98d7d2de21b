"""The note under every table that says what the runs sent the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from socialbench.report.data_source import label_tables
from socialbench.report.generation_note import describe_generation, generation_notes
from socialbench.report.run_dir import RunDir
from socialbench.report.table import Table

PAPER_ROBOTEQ = {"max_tokens": 1024, "temperature": 0.0, "json_mode": True}
OFFICIAL_SOCIALNAV = {"json_mode": True}
ADAPTED = {
    "max_tokens": "sent as max_completion_tokens; HTTP 400 unsupported_parameter: Unsupported parameter: ...",
    "temperature": "not sent (0.0 refused, the server's default applies); HTTP 400 unsupported_value: ...",
}


def _run(name: str, **run: Any) -> RunDir:
    return RunDir(Path("runs") / name, run, {}, label=name)


def test_settings_are_named_with_their_values() -> None:
    assert describe_generation(PAPER_ROBOTEQ) == "temperature 0, max_tokens 1024, JSON mode"


def test_settings_not_sent_are_said_to_be_the_providers() -> None:
    assert (
        describe_generation(OFFICIAL_SOCIALNAV) == "no sampling setting, no token limit (provider defaults), JSON mode"
    )


def test_adaptations_are_named_without_the_servers_words() -> None:
    text = describe_generation(PAPER_ROBOTEQ, ADAPTED)
    assert text.endswith(
        "; adapted: max_tokens sent as max_completion_tokens, temperature not sent (0.0 refused, "
        "the server's default applies)"
    )


def test_runs_that_agree_get_one_note() -> None:
    runs = [_run("a", generation=PAPER_ROBOTEQ), _run("b", generation=PAPER_ROBOTEQ)]
    assert generation_notes(runs) == ("Sent: temperature 0, max_tokens 1024, JSON mode.",)


def test_runs_that_differ_are_named() -> None:
    runs = [_run("a", generation=PAPER_ROBOTEQ), _run("b", generation=OFFICIAL_SOCIALNAV), _run("c")]
    notes = generation_notes(runs)
    assert [n.split(":")[0] for n in notes] == ["Sent by a", "Sent by b", "Sent by c"]
    assert notes[2] == "Sent by c: not recorded."


def test_runs_that_record_nothing_get_no_note() -> None:
    assert generation_notes([_run("old")]) == ()


def test_every_table_carries_the_note() -> None:
    (table,) = label_tables([Table("t", "T", ("x",), (), ())], [_run("a", generation=PAPER_ROBOTEQ)])
    assert table.notes[-1] == "Sent: temperature 0, max_tokens 1024, JSON mode."


def test_images_not_seen_is_in_the_note() -> None:
    check = {"images": 3, "prompt_tokens_with_images": 120, "prompt_tokens_without_images": 120}
    (note,) = generation_notes([_run("a", generation=PAPER_ROBOTEQ, images_seen=False, images_check=check)])
    assert note.endswith("; images NOT seen (3 images: 120 prompt tokens with them, 120 without; a text-only model?).")


def test_images_seen_unknown_gives_the_reason() -> None:
    check = {"reason": "unknown: 4 replies to requests with images reported no usage.prompt_tokens"}
    (note,) = generation_notes([_run("a", generation=PAPER_ROBOTEQ, images_seen=None, images_check=check)])
    assert note.endswith("; whether the images were seen: " + check["reason"] + ".")


def test_images_seen_adds_nothing() -> None:
    (note,) = generation_notes([_run("a", generation=PAPER_ROBOTEQ, images_seen=True, images_check={"images": 3})])
    assert note == "Sent: temperature 0, max_tokens 1024, JSON mode."


def test_the_note_names_the_image_policy() -> None:
    policy = {"max_side": 0, "format": "JPEG", "quality": 95, "size": [512, 512], "resample": "opencv-linear"}
    (note,) = generation_notes([_run("a", generation=OFFICIAL_SOCIALNAV, image_policy=policy)])
    assert note.endswith("; images 512×512 (squashed, OpenCV bilinear), JPEG quality 95.")
