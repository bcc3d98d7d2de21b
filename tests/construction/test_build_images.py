"""The images stage against the local OpenAI-images-API server."""

import hashlib
import json

from PIL import Image

from socialbench.construction.file_names import unique_name
from socialbench.construction.images import ImageResult, save_image
from socialbench.construction.jsonl import read_jsonl, write_jsonl


def _prompts(work, n=3):
    write_jsonl(
        work / "image_prompts.jsonl",
        [
            {
                "id": f"restaurant/b00-{i}",
                "image_prompt": f"First-person view of table {i}.",
                "scenario": {"title": f"T{i}"},
            }
            for i in range(1, n + 1)
        ],
    )


def _args(work, srv, *extra):
    return [
        "images",
        "--work",
        work,
        "--image-model",
        f"img-model@{srv.base_url}",
        "--size",
        "48x32",
        "--max-attempts",
        "3",
        "--retry-delay",
        "0.01",
        *extra,
    ]


def test_one_candidate_per_prompt_saved_with_provenance(cli, work, images_server):
    _prompts(work)
    res = cli(*_args(work, images_server))
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in read_jsonl(work / "images.jsonl")}
    assert len(rows) == 3 and images_server.count == 3
    r = rows["restaurant/b00-2"]
    assert r["image"] == f"images/{unique_name('restaurant/b00-2')}/round0.png"
    assert r["image"].startswith("images/restaurant__b00-2-")
    data = (work / r["image"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == r["sha256"]
    assert Image.open(work / r["image"]).size == (48, 32) == (r["width"], r["height"])
    prov = json.loads((work / r["provenance"]).read_text())
    assert prov["prompt"] == "First-person view of table 2." and prov["model"] == "img-model"
    assert prov["endpoint"] == images_server.base_url and prov["kind"] == "generation" and prov["sha256"] == r["sha256"]
    sent = {q["prompt"]: q for q in images_server.requests}
    assert sent["First-person view of table 2."]["size"] == "48x32" and sent["First-person view of table 2."]["n"] == 1


def test_server_errors_and_malformed_bodies_are_retried(cli, work, images_server):
    _prompts(work, 1)
    images_server.push_status(503, retry_after=0)
    images_server.push_malformed()
    res = cli(*_args(work, images_server))
    assert res.exit_code == 0, res.output
    assert images_server.count == 3 and len(read_jsonl(work / "images.jsonl")) == 1
    summary = json.loads((work / "summaries" / "images.json").read_text())
    assert summary["retries"] == 2 and summary["images_generated"] == 1


def test_a_rejected_request_is_recorded_and_retried_on_rerun(cli, work, images_server):
    _prompts(work, 2)
    images_server.push_status(400)
    res = cli(*_args(work, images_server, "--concurrency", "1"))
    assert res.exit_code == 2
    (fail,) = read_jsonl(work / "images.failures.jsonl")
    assert fail["kind"] == "bad_request"
    assert len(read_jsonl(work / "images.jsonl")) == 1
    before = images_server.count
    assert cli(*_args(work, images_server)).exit_code == 0
    assert images_server.count - before == 1
    assert {r["id"] for r in read_jsonl(work / "images.jsonl")} == {"restaurant/b00-1", "restaurant/b00-2"}


def test_url_replies_are_downloaded(cli, work, tmp_path):
    from socialbench.testing.images_server import ScriptedImagesServer

    _prompts(work, 1)
    with ScriptedImagesServer(response="url") as srv:
        res = cli(*_args(work, srv, "--response-format", "none"))
        assert res.exit_code == 0, res.output
        assert srv.requests[0]["response_format"] is None
    (row,) = read_jsonl(work / "images.jsonl")
    assert Image.open(work / row["image"]).size == (48, 32)


def test_ids_with_the_same_safe_form_get_separate_image_folders(tmp_path):
    result_a = ImageResult(data=b"\x89PNG-a", mime="image/png", width=1, height=1)
    result_b = ImageResult(data=b"\x89PNG-b", mime="image/png", width=1, height=1)
    a = save_image(tmp_path, "cafe s-1", 1, result_a, {})
    b = save_image(tmp_path, "cafe?s-1", 1, result_b, {})
    c = save_image(tmp_path, "cafe/round1.png", 1, result_b, {})
    assert len({a["image"], b["image"], c["image"]}) == 3
    assert (tmp_path / a["image"]).read_bytes() == b"\x89PNG-a"
    assert (tmp_path / b["image"]).read_bytes() == b"\x89PNG-b"


def test_a_file_name_safe_id_names_its_image_folder_as_it_is(tmp_path):
    out = save_image(tmp_path, "bus-station_s-003", 2, ImageResult(data=b"x", mime="image/png", width=1, height=1), {})
    assert out["image"] == "images/bus-station_s-003/round2.png"
