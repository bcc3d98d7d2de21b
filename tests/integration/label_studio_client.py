"""What the Label Studio round-trip tests share: the server they are given (environment
variables set by scripts/label_studio_roundtrip.sh), the skip without one, and the client of
its API (legacy token auth)."""

from __future__ import annotations

import os
from typing import Any

import pytest

URL = os.environ.get("SOCIALBENCH_LABEL_STUDIO_URL", "").rstrip("/")
TOKEN = os.environ.get("SOCIALBENCH_LABEL_STUDIO_TOKEN", "")

#: The marks of a module that needs the server: skipped, with the allowed reason, without one.
NEEDS_SERVER = [
    pytest.mark.label_studio,
    pytest.mark.skipif(
        not (URL and TOKEN),
        reason="set SOCIALBENCH_LABEL_STUDIO_URL and SOCIALBENCH_LABEL_STUDIO_TOKEN "
        "(scripts/label_studio_roundtrip.sh does)",
    ),
]


class LabelStudioClient:
    """Calls of Label Studio's API; a status of 300 or more fails the test with the reply."""

    def __init__(self, timeout_s: float) -> None:
        import httpx

        self.http = httpx.Client(base_url=URL, headers={"Authorization": f"Token {TOKEN}"}, timeout=timeout_s)

    def call(self, method: str, path: str, **kw: Any) -> Any:
        r = self.http.request(method, path, **kw)
        assert r.status_code < 300, f"{method} {path}: {r.status_code} {r.text[:800]}"
        return r.json() if r.content else None
