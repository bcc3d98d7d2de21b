"""run.json records what was sent for JSON mode (issue 28 §4): a RobotEQ eval against a
server that refuses ``response_format`` with TGI's plain-text 422 completes, and says so."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from socialbench.cli import main
from socialbench.testing.openai_server import Rejection, ScriptedOpenAIServer, ServedModel
from socialbench.testing.responders import valid_responder

TGI_422 = (
    "Failed to deserialize the JSON body into the target type: response_format: unknown variant "
    "`json_object`, expected `json` or `regex` at line 1 column 312"
)


def _tgi_like(request: Mapping[str, Any]) -> Rejection | None:
    return Rejection(422, TGI_422) if "response_format" in request else None


def _eval(release: Path, out: Path, url: str, *flags: str) -> dict[str, Any]:
    args = ["eval", "-b", "roboteq-bj", "-d", str(release), "-m", f"openai:m@{url}", "--out", str(out)]
    main([*args, "--no-progress", "--no-cache", "--no-render-cache", "--concurrency", "1", *flags])
    return json.loads((out / "run.json").read_text())


def test_a_refused_json_mode_is_recorded_as_adapted_with_what_each_request_sent(release: Path, tmp_path: Path) -> None:
    with ScriptedOpenAIServer(responder=valid_responder, served=ServedModel("tgi", _tgi_like)) as srv:
        run = _eval(release, tmp_path / "run", srv.base_url)
    assert (run["status"], run["generation"]["json_mode"]) == ("complete", True)
    assert run["generation_adapted"]["response_format"].startswith("not sent (JSON mode off); HTTP 422")
    assert run["sessions"][-1]["json_mode_sent"] == {
        "with_response_format": 1,
        "without_response_format": 3,
        "replies_not_json": 0,
    }


def test_model_opt_json_mode_false_is_recorded(release: Path, tmp_path: Path) -> None:
    with ScriptedOpenAIServer(responder=valid_responder) as srv:
        run = _eval(release, tmp_path / "run", srv.base_url, "--model-opt", "json_mode=false")
        sent = srv.requests
    assert not any("response_format" in body for body in sent)
    assert run["sessions"][-1]["json_mode_sent"]["with_response_format"] == 0
    assert "json_mode=false" in run["generation_adapted"]["response_format"]
