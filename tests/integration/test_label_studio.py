"""Round trip through a real Label Studio server: exported config + tasks -> project ->
annotations posted through the API by three annotators -> JSON export -> import -> aggregate.

Skipped unless ``SOCIALBENCH_LABEL_STUDIO_URL`` (e.g. ``http://127.0.0.1:8089``) and
``SOCIALBENCH_LABEL_STUDIO_TOKEN`` (a legacy API token) are set. Label Studio conflicts with
socialbench's own dependencies, so ``scripts/label_studio_roundtrip.sh`` installs it into its
own virtual environment, starts it on 127.0.0.1, runs this module and stops it.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
import typer
from PIL import Image
from typer.testing import CliRunner

from label_studio_client import NEEDS_SERVER, LabelStudioClient
from socialbench.construction.commands import register
from socialbench.construction.jsonl import read_jsonl, write_jsonl
from socialbench.construction.overlays import render_spec

pytestmark = NEEDS_SERVER


class LS(LabelStudioClient):
    """A few Label Studio API calls (legacy token auth)."""

    def __init__(self) -> None:
        super().__init__(timeout_s=60)

    def project(self, title: str, config: str) -> int:
        return self.call("POST", "/api/projects/", json={"title": title, "label_config": config})["id"]

    def user(self, tag: str) -> int:
        email = f"{tag}-{uuid.uuid4().hex[:8]}@example.org"
        return self.call("POST", "/api/users/", json={"email": email, "username": email, "first_name": tag})["id"]

    def tasks(self, project: int) -> list[dict]:
        doc = self.call("GET", "/api/tasks/", params={"project": project, "page_size": 1000})
        return doc["tasks"] if isinstance(doc, dict) else doc

    def annotate(self, task: int, user: int, result: list[dict]) -> None:
        self.call(
            "POST",
            f"/api/tasks/{task}/annotations/",
            json={"result": result, "completed_by": user, "was_cancelled": False},
        )

    def export(self, project: int) -> list[dict]:
        return self.call("GET", f"/api/projects/{project}/export", params={"exportType": "JSON"})


@pytest.fixture(scope="module")
def ls():
    client = LS()
    client.created: list[int] = []  # type: ignore[attr-defined]
    yield client
    for pid in client.created:  # type: ignore[attr-defined]
        client.http.delete(f"/api/projects/{pid}/")
    client.http.close()


@pytest.fixture
def cli():
    app = typer.Typer()
    register(app)
    runner = CliRunner()

    def invoke(*args):
        res = runner.invoke(app, ["build", *[str(a) for a in args]])
        assert res.exit_code == 0, res.output + repr(res.exception)
        return res

    return invoke


def _work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "img").mkdir(parents=True)
    for name, colour in (("s1", (120, 80, 40)), ("s2", (40, 90, 140))):
        Image.new("RGB", (64, 48), colour).save(work / "img" / f"{name}.png")
    write_jsonl(
        work / "behaviors.jsonl",
        [
            {
                "id": sid,
                "image": f"img/{sid}.png",
                "subset": "synthetic",
                "question": "You are a hotel robot. What next?",
                "category": "Retail, Hospitality & Consumer Services",
                "subcategory": "Hotel",
                "behaviors": [
                    {"k": 1, "text": f"{sid}: hold the door", "suggested_label": "proper", "facets": ["politeness"]},
                    {"k": 2, "text": f"{sid}: push past", "suggested_label": "improper", "facets": ["safety"]},
                ],
            }
            for sid in ("s1", "s2")
        ],
    )
    return work


# planned labels per (scene, k) for annotators 0, 1, 2
PLAN = {
    ("s1", 1): ["proper", "proper", "improper"],
    ("s1", 2): ["improper", "improper", "improper"],
    ("s2", 1): ["invalid", "invalid", "proper"],
    ("s2", 2): ["proper", "improper", "invalid"],
}


def test_judgment_round_trip_through_label_studio(ls, cli, tmp_path):
    work = _work(tmp_path)
    cli("annotate", "export", "--kind", "judgment", "--work", work, "--image-refs", "data-uri")
    config = (work / "annotation" / "judgment" / "config.xml").read_text()
    tasks = json.loads((work / "annotation" / "judgment" / "tasks.json").read_text())
    pid = ls.project(f"socialbench judgment {uuid.uuid4().hex[:6]}", config)
    ls.created.append(pid)
    ls.call("POST", f"/api/projects/{pid}/import", json=tasks)
    users = [ls.user(f"ann{i}") for i in range(3)]
    server_tasks = ls.tasks(pid)
    assert len(server_tasks) == 4
    for t in server_tasks:
        key = (t["data"]["item_id"], int(t["data"]["k"]))
        for user, label in zip(users, PLAN[key]):
            ls.annotate(
                t["id"],
                user,
                [
                    {"from_name": "label", "to_name": "behavior", "type": "choices", "value": {"choices": [label]}},
                    {
                        "from_name": "facets",
                        "to_name": "behavior",
                        "type": "choices",
                        "value": {"choices": ["cooperation"]},
                    },
                ],
            )
    export = ls.export(pid)
    (tmp_path / "export.json").write_text(json.dumps(export))
    cli("annotate", "import", tmp_path / "export.json", "--work", work)
    assert len(read_jsonl(work / "annotation" / "judgment" / "annotations.jsonl")) == 12
    cli("aggregate", "--work", work)
    scenes = {s["id"]: s for s in read_jsonl(work / "aggregated" / "judgment.jsonl")}
    assert [(b["k"], b["label"], b["facets"]) for b in scenes["s1"]["behaviors"]] == [
        (1, "proper", ["cooperation"]),
        (2, "improper", ["cooperation"]),
    ]
    assert "s2" not in scenes  # b1 invalid, b2 a three-way split
    removed = {r["id"]: r["reason"] for r in read_jsonl(work / "aggregated" / "judgment.removed.jsonl")}
    assert removed["s2#b1"] == "invalid"
    assert [e["id"] for e in read_jsonl(work / "aggregated" / "escalations.judgment.jsonl")] == ["s2#b2"]
    agreement = json.loads((work / "aggregated" / "agreement.json").read_text())["judgment"]
    assert agreement["units"] == 4 and agreement["ratings"] == 12


def test_grounding_round_trip_through_label_studio(ls, cli, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    Image.new("RGB", (160, 120), (90, 90, 90)).save(work / "scene.png")
    rec, problems = render_spec(
        {
            "id": "g1",
            "image": "scene.png",
            "question": "Where should you wait?",
            "options": {"A": "door", "B": "table", "C": "aisle", "D": "counter"},
            "regions": [
                {"label": x, "shape": "box", "box": [0.05 + 0.23 * i, 0.3, 0.2 + 0.23 * i, 0.8]}
                for i, x in enumerate("ABCD")
            ],
        },
        work,
        work / "overlays",
    )
    assert not problems
    write_jsonl(work / "grounding_items.jsonl", [rec])
    cli("annotate", "export", "--kind", "grounding", "--work", work, "--image-refs", "data-uri")
    pid = ls.project(
        f"socialbench grounding {uuid.uuid4().hex[:6]}", (work / "annotation" / "grounding" / "config.xml").read_text()
    )
    ls.created.append(pid)
    ls.call(
        "POST",
        f"/api/projects/{pid}/import",
        json=json.loads((work / "annotation" / "grounding" / "tasks.json").read_text()),
    )
    users = [ls.user(f"g{i}") for i in range(3)]
    (task,) = ls.tasks(pid)
    for user, sel in zip(users, (["A", "C"], ["A"], ["A", "C"])):
        ls.annotate(
            task["id"],
            user,
            [{"from_name": "regions", "to_name": "image", "type": "choices", "value": {"choices": sel}}],
        )
    (tmp_path / "export.json").write_text(json.dumps(ls.export(pid)))
    cli("annotate", "import", tmp_path / "export.json", "--work", work)
    cli("aggregate", "--work", work)
    (q,) = read_jsonl(work / "aggregated" / "grounding.jsonl")
    assert q["answer"] == ["A", "C"] and sorted(map(tuple, q["votes"])) == [("A",), ("A", "C"), ("A", "C")]
