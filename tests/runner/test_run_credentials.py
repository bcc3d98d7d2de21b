"""No credential of a base URL lands in a run folder, the cache, a report or the console,
and URLs that differ only in credentials or query do not share cache entries."""

from __future__ import annotations

import base64
import logging
import sqlite3
import sys
from pathlib import Path

import pytest

from socialbench.cli import main
from socialbench.testing.openai_server import ScriptedOpenAIServer, status

PASSWORD = "pw-SECRET-4417"
KEY = "key-SECRET-9931"
BASIC = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()  # the Authorization value
SECRETS = (PASSWORD, KEY, BASIC)


def _cli(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    """Run the CLI as the shell would (``sys.argv`` too: run.json records it)."""
    monkeypatch.setattr(sys, "argv", ["socialbench", *args])
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
        raise SystemExit(0)
    return int(exit_info.value.code or 0)


def _leaks(folder: Path) -> list[str]:
    """Files under ``folder`` whose bytes hold a secret."""
    return [
        f"{path}: {secret}"
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        for secret in SECRETS
        if secret.encode() in path.read_bytes()
    ]


def _eval(monkeypatch: pytest.MonkeyPatch, data: Path, url: str, out: Path, cache: Path) -> int:
    return _cli(
        monkeypatch,
        "eval",
        "-b",
        "socialnav-sub",
        "-d",
        str(data),
        "-m",
        f"openai:m@{url}",
        "--model-opt",
        f"api_key_env={url}",  # an option value holding the URL: masked in argv too
        "-o",
        str(out),
        "--cache",
        str(cache),
        "--no-progress",
        "--limit",
        "1",
        "--concurrency",
        "1",
        "--max-attempts",
        "1",
    )


def test_run_with_url_credentials_writes_and_prints_none_of_them(
    small_socialnav: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    work = tmp_path / "work"
    with ScriptedOpenAIServer() as srv:
        # One answer is an error whose message echoes both secrets (it is recorded).
        srv.push(status(401, body={"error": {"message": f"bad key {KEY} for user pw {PASSWORD}"}}))
        url = srv.base_url.replace("http://", f"http://alice:{PASSWORD}@", 1) + f"?api-key={KEY}"
        code = _eval(monkeypatch, small_socialnav, url, work / "run", work / "cache.sqlite")
        paths = srv.request_paths
    report_code = _cli(monkeypatch, "report", str(work / "run"), "-o", str(work / "report"), "-f", "md,csv,html")
    captured = capsys.readouterr()
    # ran: 14 answers, 1 auth error, and the images probe (sent to the same URL, secrets and all)
    assert code == 2 and report_code == 0 and len(paths) == 16
    assert (work / "run" / "run.json").is_file() and (work / "report").is_dir()
    assert _leaks(work) == []
    console = captured.out + captured.err + caplog.text
    assert [s for s in SECRETS if s in console] == []


def test_urls_differing_only_in_query_do_not_share_cache_entries(
    small_socialnav: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache.sqlite"
    with ScriptedOpenAIServer() as srv:
        assert _eval(monkeypatch, small_socialnav, f"{srv.base_url}?api-key={KEY}", tmp_path / "a", cache) == 0
        first = srv.count
        assert _eval(monkeypatch, small_socialnav, f"{srv.base_url}?api-key=other-{KEY}", tmp_path / "b", cache) == 0
        second = srv.count - first
    with sqlite3.connect(cache) as db:
        models = {row[0] for row in db.execute("SELECT model FROM responses")}
    assert first == second == 15 + 1 and len(models) == 2  # each run: 15 questions and its images probe


def test_cache_file_holds_no_url_secret(small_socialnav: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache.sqlite"
    with ScriptedOpenAIServer() as srv:
        url = srv.base_url.replace("http://", f"http://alice:{PASSWORD}@", 1) + f"?api-key={KEY}"
        assert _eval(monkeypatch, small_socialnav, url, tmp_path / "run", cache) == 0
    assert _leaks(tmp_path) == []


def test_backend_error_message_masks_url_credentials() -> None:
    import asyncio

    from socialbench.models.mock import MockModel
    from socialbench.runner.engine import Engine, RetryPolicy
    from socialbench.types import Request

    class Broken(MockModel):
        async def generate(self, request: Request):  # type: ignore[override]
            raise ValueError(f"cannot send to http://alice:{PASSWORD}@h/v1?api-key={KEY}")

    engine = Engine(Broken("mock:broken", str), retry=RetryPolicy(max_attempts=1))
    out = asyncio.run(engine.run(Request(prompt="hi")))
    assert out.error == "backend_error" and "alice:***@h/v1?api-key=***" in (out.error_message or "")
