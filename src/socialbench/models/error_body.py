"""The message of an HTTP error body, whatever shape the server gives it (:func:`error_info`).

Shapes read: OpenAI's ``{"error": {"message", "type", "param", "code"}}``, Gemini's list
``[{"error": {...}}]``, ``{"message": ...}`` and ``{"error": "text"}`` (older vLLM,
llama.cpp, LiteLLM), FastAPI's ``{"detail": "text"}`` and pydantic's ``{"detail": [{"loc",
"msg", "type"}]}``, Anthropic's ``{"type": "error", "error": {...}}``, plain text and HTML
pages. Any other body gives its own text, shortened: a record always says what the server
answered.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: The longest message kept from a body (the record's error_message is shorter still).
MAX_MESSAGE_CHARS = 500
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")
_HTML_DROP = re.compile(r"<(script|style|head)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ErrorInfo:
    """What an error body says: its message, the request field it names (``param``) and
    its ``code`` (``unsupported_parameter``, ``unsupported_value``, ...), '' when absent."""

    message: str
    param: str = ""
    code: str = ""


def _one_line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()[:MAX_MESSAGE_CHARS]


def html_text(text: str) -> str:
    """The readable text of an HTML page: its title and body text, tags and scripts removed.

    >>> html_text("<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>nginx</body></html>")
    '502 Bad Gateway: 502 Bad Gateway nginx'
    """
    title_match = _TITLE.search(text)
    title = _one_line(html.unescape(_TAG.sub(" ", title_match.group(1)))) if title_match else ""
    body = _one_line(html.unescape(_TAG.sub(" ", _HTML_DROP.sub(" ", text))))
    return f"{title}: {body}" if title and body else (title or body)


def _looks_like_html(text: str) -> bool:
    head = text.lstrip()[:200].lower()
    return head.startswith(("<!doctype html", "<html", "<head", "<body")) or ("<html" in head and ">" in head)


def _detail_items(items: list[Any]) -> tuple[str, str]:
    """(message, param) of pydantic's validation list ``[{"loc", "msg", "type"}, ...]``:
    each entry as ``loc.path: msg``; the param is the first field named under ``body``."""
    parts: list[str] = []
    param = ""
    for entry in items:
        if not isinstance(entry, Mapping):
            parts.append(str(entry))
            continue
        loc = entry.get("loc")
        path = [str(p) for p in loc] if isinstance(loc, list | tuple) else []
        fields = path[1:] if path[:1] == ["body"] else path
        if not param and fields:
            param = fields[0]
        msg = str(entry.get("msg") or entry.get("message") or entry.get("type") or "")
        parts.append(f"{'.'.join(fields)}: {msg}" if fields else msg)
    return "; ".join(p for p in parts if p), param


def error_info(body: Any, fallback: str) -> ErrorInfo:
    """The message, param and code of an error body of any shape (see the module
    docstring); ``body`` is the decoded JSON value or the body's text. ``fallback`` when
    the body says nothing (empty).

    >>> error_info({"detail": "Model not loaded"}, "HTTP 400").message
    'Model not loaded'
    >>> info = error_info({"detail": [{"loc": ["body", "response_format"], "msg": "bad", "type": "x"}]}, "")
    >>> (info.message, info.param)
    ('response_format: bad', 'response_format')
    >>> error_info("", "HTTP 502").message
    'HTTP 502'
    """
    if isinstance(body, list) and body and isinstance(body[0], Mapping) and "error" in body[0]:
        body = body[0]  # Gemini
    message, param, code = "", "", ""
    if isinstance(body, Mapping):
        err = body.get("error")
        detail = body.get("detail")
        if isinstance(err, Mapping):
            message = str(err.get("message") or err.get("detail") or "")
            param = str(err.get("param") or "")
            raw_code = err.get("code")
            code = raw_code if isinstance(raw_code, str) else ""
        elif isinstance(err, str) and err:
            message = err
        elif isinstance(detail, str) and detail:
            message = detail
        elif isinstance(detail, list) and detail:
            message, param = _detail_items(detail)
        elif isinstance(detail, Mapping):
            return error_info(detail, fallback)
        elif body.get("message"):
            message = str(body["message"])
        if not param and isinstance(body.get("param"), str):
            param = body["param"]
        if not code and isinstance(body.get("code"), str):
            code = body["code"]
        if not message and body:
            message = json.dumps(body, ensure_ascii=False)
    elif isinstance(body, list) and body:
        message = json.dumps(body, ensure_ascii=False)
    elif isinstance(body, str):
        message = html_text(body) if _looks_like_html(body) else body
    elif body is not None:
        message = str(body)
    return ErrorInfo(_one_line(message) or fallback, param, code)
