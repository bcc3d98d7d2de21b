"""run.json's provenance and session accounting: the library versions and git commit a run
records, the time stamps, what the model adapted or found out in a session, and each
session's request counts with the run's totals over all sessions."""

from __future__ import annotations

import datetime as _dt
import subprocess
import sys
from pathlib import Path
from typing import Any

from socialbench import __version__
from socialbench.models.base import Model
from socialbench.runner.engine import EngineStats
from socialbench.runner.store import RunStore
from socialbench.versions import installed_version

#: Counters of run.json that add up every session's engine statistics.
SESSION_TOTALS = ("requests", "cache_hits", "retries", "prompt_tokens", "completion_tokens", "reasoning_tokens")


def library_versions() -> dict[str, str]:
    """The versions of socialbench, Python and the libraries installed of those a run may use."""
    out = {"socialbench": __version__, "python": sys.version.split()[0]}
    for pkg in ("numpy", "pillow", "openai", "anthropic", "transformers", "torch"):
        version = installed_version(pkg)
        if version is not None:
            out[pkg] = version
    return out


def git_commit() -> str | None:
    """The commit of the socialbench checkout this runs from, or None outside a git checkout."""
    try:
        here = Path(__file__).resolve().parent
        res = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
        return res.stdout.strip() or None if res.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def record_adaptations(record: dict[str, Any], model: Model) -> None:
    """Add to run.json what the model found out this session, for a model that tells:
    ``generation_adapted`` (settings the server refused as asked, kept across sessions),
    the session's ``json_mode_sent``, ``extra_requests`` (requests sent beside the engine's
    attempts) and ``probe_requests``, and ``images_seen``/``images_check``."""
    adapted = getattr(model, "adaptations", None)
    changes = dict(adapted()) if callable(adapted) else {}
    if changes:
        record["generation_adapted"] = {**record.get("generation_adapted", {}), **changes}
    # what this session actually sent for JSON mode (the config says what was asked)
    json_sent = getattr(model, "json_mode_sent", None)
    if callable(json_sent):
        record["sessions"][-1]["json_mode_sent"] = dict(json_sent())
    # whether the server saw the images (the openai: backend's probe, models/openai_images_check.py);
    # an unknown finding does not replace an earlier session's true or false
    extra = getattr(model, "extra_requests", None)
    if callable(extra):
        record["sessions"][-1]["extra_requests"] = dict(extra())
    check = getattr(model, "images_check", None)
    found = check() if callable(check) else None
    if found is not None:
        record["sessions"][-1]["probe_requests"] = found.get("probe_requests", 0)
        if found["images_seen"] is not None or record.get("images_seen") is None:
            record["images_seen"] = found["images_seen"]
            record["images_check"] = {k: v for k, v in found.items() if k != "images_seen"}


def add_up_sessions(record: dict[str, Any], store: RunStore) -> None:
    """Fill each session's request and retry counts from requests.log (counted as sent, so
    true for sessions that were killed) and the run's totals over all sessions."""
    sends = store.read_sends()
    sessions = record["sessions"]
    for i, s in enumerate(sessions):
        if i in sends:
            s.update(sends[i])
    for name in SESSION_TOTALS:
        record[name] = sum(_count(s, name) for s in sessions)
    causes: dict[str, int] = {}
    for s in sessions:
        s["requests_by_cause"] = requests_by_cause(s)
        s["requests_sent"] = sum(s["requests_by_cause"].values())
        for cause, n in s["requests_by_cause"].items():
            causes[cause] = causes.get(cause, 0) + n
    record["requests_by_cause"] = causes
    record["requests_sent"] = sum(causes.values())


def _count(session: dict[str, Any], name: str) -> int:
    """A session's counter: from requests.log (true for killed sessions), else its engine's."""
    value = session[name] if name in session else session.get("engine", {}).get(name, 0)
    return int(value) if isinstance(value, int) else 0


def requests_by_cause(session: dict[str, Any]) -> dict[str, int]:
    """Every request a session sent, by cause: each question's ``first_attempts``, the
    engine's ``retries``, ``refusals_learned`` (a request the server refused, sent again
    adapted), ``stream_fallbacks`` (a streamed request whose stream lost the reply, sent
    again whole) and ``probes`` (the images probe). They add up to ``requests_sent``."""
    requests, retries = _count(session, "requests"), _count(session, "retries")
    extra = session.get("extra_requests")
    extra = extra if isinstance(extra, dict) else {}
    probes = session.get("probe_requests", 0)
    return {
        "first_attempts": max(0, requests - retries),
        "retries": retries,
        "refusals_learned": int(extra.get("refusals_learned", 0)),
        "stream_fallbacks": int(extra.get("stream_fallbacks", 0)),
        "probes": probes if isinstance(probes, int) else 0,
    }


def close_session(record: dict[str, Any], store: RunStore, status: str, stats: EngineStats, wall: float) -> None:
    """Write run.json with this session's end, its engine statistics and the run's totals."""
    record["sessions"][-1].update({"ended": now(), "wall_time_s": round(wall, 3), "engine": stats.as_dict()})
    add_up_sessions(record, store)
    record.update({"status": status, "ended": now()})
    store.write_run(record)
