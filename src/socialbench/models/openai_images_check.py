"""Whether an OpenAI-compatible server saw a run's images: the probe and its verdict.

After the first answered request with images whose reply reports ``usage.prompt_tokens``,
the backend sends the same messages without the images, for 1 token, and compares the two
counts (:func:`verdict`): images that added no tokens were not seen (a text-only model),
run.json's ``images_seen: false``. The probe is no sample and never fails the run: a failed
probe, or no usage reported, gives ``images_seen: null`` with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TypedDict

from socialbench.types import Request

__all__ = ["ImagesCheck", "merge_checks", "not_known", "probe_body", "verdict"]


class _Finding(TypedDict):
    images_seen: bool | None


class ImagesCheck(_Finding, total=False):
    """What the images probe found (run.json's ``images_seen`` and ``images_check``).

    ``images_seen``: True (the images added prompt tokens), False (they added none), None
    (unknown: ``reason`` says why). The counts are there when the probe answered.
    """

    reason: str
    images: int
    prompt_tokens_with_images: int
    prompt_tokens_without_images: int
    probe_requests: int


def probe_body(request: Request, params: dict[str, object]) -> bytes:
    """The probe's JSON body: ``params`` plus ``request``'s messages with the images left
    out (the system message, then the user message holding only its text part, the same
    content-part form the request had)."""
    messages: list[dict[str, object]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    messages.append({"role": "user", "content": [{"type": "text", "text": request.prompt}]})
    return json.dumps({**params, "messages": messages}, ensure_ascii=False).encode("utf-8")


def verdict(images: int, with_images: int, without_images: int, probe_requests: int) -> ImagesCheck:
    """Seen when the request with ``images`` images counted more prompt tokens than the same
    messages without them; not seen when it counted as many or fewer (the images added
    nothing: the server dropped them).

    >>> verdict(3, 120, 120, 1)["images_seen"], verdict(3, 375, 120, 1)["images_seen"]
    (False, True)
    """
    return {
        "images_seen": with_images > without_images,
        "images": images,
        "prompt_tokens_with_images": with_images,
        "prompt_tokens_without_images": without_images,
        "probe_requests": probe_requests,
    }


def not_known(reason: str, probe_requests: int = 0) -> ImagesCheck:
    """``images_seen: null`` with ``reason``."""
    return {"images_seen": None, "reason": reason, "probe_requests": probe_requests}


def merge_checks(checks: Iterable[ImagesCheck | None]) -> ImagesCheck | None:
    """One finding for several endpoints serving the same model (a pool): the first that
    saw no images, else the first that saw them, else the first unknown one; its
    ``probe_requests`` is the sum over all. None when no endpoint has a finding."""
    found = [c for c in checks if c is not None]
    if not found:
        return None
    rank = {False: 0, True: 1, None: 2}
    merged = min(found, key=lambda c: rank[c["images_seen"]]).copy()
    merged["probe_requests"] = sum(c.get("probe_requests", 0) for c in found)
    return merged
