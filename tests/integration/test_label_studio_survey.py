"""The SocialNav-SUB survey round trip through a real Label Studio server: `build
socialnav-survey` -> project from project.json (K = 5 annotations per task) -> tasks
imported -> five annotators answer every scenario through the API -> JSON export -> `build
socialnav-answers` -> the answer distributions equal what was entered, and `eval` scores
against them.

Skipped unless ``SOCIALBENCH_LABEL_STUDIO_URL`` and ``SOCIALBENCH_LABEL_STUDIO_TOKEN`` are
set; ``scripts/label_studio_roundtrip.sh`` starts a server and runs this module."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from label_studio_client import NEEDS_SERVER, LabelStudioClient
from socialbench.cli import main
from socialbench.testing.label_studio_survey import (
    distribution_of,
    expected_distributions,
    ls_result,
    plan,
    simulated_dataset,
)

K = 5

pytestmark = NEEDS_SERVER


class LS(LabelStudioClient):
    """The Label Studio API calls of the round trip (legacy token auth)."""

    def __init__(self) -> None:
        super().__init__(timeout_s=120)

    def user(self, tag: str) -> int:
        email = f"{tag}-{uuid.uuid4().hex[:8]}@example.org"
        return self.call("POST", "/api/users/", json={"email": email, "username": email, "first_name": tag})["id"]

    def tasks(self, project: int) -> list[dict]:
        doc = self.call("GET", "/api/tasks/", params={"project": project, "page_size": 1000})
        return doc["tasks"] if isinstance(doc, dict) else doc


@pytest.fixture(scope="module")
def ls():
    client = LS()
    created: list[int] = []
    yield client, created
    for pid in created:
        client.http.delete(f"/api/projects/{pid}/")
    client.http.close()


def _socialbench(*args: object) -> None:
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        assert not exc.code, f"socialbench {' '.join(map(str, args))} exited {exc.code}"


def test_survey_round_trip_through_label_studio(ls, tmp_path: Path) -> None:
    client, created = ls
    data = simulated_dataset(tmp_path / "data", scenes=3)
    survey = tmp_path / "survey"
    _socialbench("build", "socialnav-survey", "--data", data, "--out", survey, "--image-refs", "data-uri")
    project = json.loads((survey / "project.json").read_text())
    project["title"] = f"{project['title']} {uuid.uuid4().hex[:6]}"
    pid = client.call("POST", "/api/projects/", json=project)["id"]
    created.append(pid)
    stored = client.call("GET", f"/api/projects/{pid}/")
    assert stored["maximum_annotations"] == K and stored["overlap_cohort_percentage"] == 100
    tasks = json.loads((survey / "tasks.json").read_text())
    client.call("POST", f"/api/projects/{pid}/import", json=tasks)

    server_tasks = client.tasks(pid)
    assert sorted(t["data"]["sample_id"] for t in server_tasks) == sorted(t["data"]["sample_id"] for t in tasks)
    answers = plan([{"data": t["data"]} for t in server_tasks], K, seed=3)
    users = [client.user(f"survey{i}") for i in range(K)]
    for t in server_tasks:
        for j, (user, entered) in enumerate(zip(users, answers[t["data"]["sample_id"]])):
            assert not client.call("GET", f"/api/tasks/{t['id']}/")["is_labeled"], f"labeled after {j} of {K}"
            client.call(
                "POST",
                f"/api/tasks/{t['id']}/annotations/",
                json={"result": ls_result(entered), "completed_by": user, "was_cancelled": False},
            )
        assert client.call("GET", f"/api/tasks/{t['id']}/")["is_labeled"]  # K annotations complete a task

    export = tmp_path / "export.json"
    export.write_text(json.dumps(client.call("GET", f"/api/projects/{pid}/export", params={"exportType": "JSON"})))
    _socialbench("build", "socialnav-answers", export, "--data", data)

    expected = expected_distributions([{"data": t["data"]} for t in server_tasks], answers)
    for sid, per in expected.items():
        common = json.loads((data / "human_labels" / sid / "common_answers.json").read_text())
        for key, counts in per.items():
            assert distribution_of(common, key) == ({a: c / K for a, c in counts.items()}, K), (sid, key)

    _socialbench("eval", "-b", "socialnav-sub", "-d", data, "-m", "human:oracle", "--out", tmp_path / "run")
    shares = [max(c.values()) / K for per in expected.values() for c in per.values()]
    scores = json.loads((tmp_path / "run" / "metrics.json").read_text())["scores"]["model"]["All"]
    assert scores["n"] == len(shares) and scores["PA"] == pytest.approx(sum(shares) / len(shares))
