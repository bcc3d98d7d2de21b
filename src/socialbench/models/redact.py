"""Credentials in URLs: masking them before anything is written or printed, and hashing
them for identities (README, "Credentials in a base URL").

:func:`redact` masks every URL in any text or JSON-like value: the user info's password
becomes ``***`` (user info without a password is masked whole: a lone token there is the
secret), the value of **every** query parameter becomes ``***`` (a name does not tell
whether its value is secret; :func:`secret_digest` still tells URLs apart), and a fragment
is masked whole. In a malformed URL everything from ``://`` to the last ``@`` before the
query counts as user info, so masking errs towards hiding too much.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
from typing import TypeVar, overload
from urllib.parse import unquote

MASK = "***"
#: Loggers of the HTTP stacks under the SDKs, which log request URLs (query included).
HTTP_LOGGERS = (
    "httpx",
    "httpx2",
    "httpcore",
    "aiohttp.client",
    "openai",
    "openai._base_client",
    "anthropic",
    "anthropic._base_client",
)

#: A URL: scheme, ``://`` and everything up to white space or a quote.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")
#: Where one URL of a comma-separated list ends and the next begins.
_NEXT_URL = re.compile(r",(?=[A-Za-z][A-Za-z0-9+.-]*://)")
#: Fixed salt and work factor of :func:`secret_digest` (slow, so that a short password
#: cannot be found from a stored digest by trying guesses cheaply).
_DIGEST_SALT = b"socialbench-endpoint-identity"
_DIGEST_ROUNDS = 100_000


def _split(url: str) -> tuple[str, str, str, str, str] | None:
    """``(scheme://, userinfo, rest of authority and path, query, fragment)`` of ``url``;
    ``userinfo`` is everything before the last ``@`` ahead of the query, ``query`` and
    ``fragment`` keep their ``?`` and ``#``. None if ``url`` has no ``://``."""
    head, sep, tail = url.partition("://")
    if not sep:
        return None
    fragment = ""
    if "#" in tail:
        tail, hashmark, frag = tail.partition("#")
        fragment = hashmark + frag
    query = ""
    if "?" in tail:
        tail, mark, q = tail.partition("?")
        query = mark + q
    userinfo, at, hostpath = tail.rpartition("@")
    if not at:
        userinfo, hostpath = "", tail
    return head + sep, userinfo, hostpath, query, fragment


def _mask_query(query: str) -> str:
    """``?a=1&b=2`` -> ``?a=***&b=***``; a parameter without ``=`` is masked whole."""
    if len(query) <= 1:
        return query
    parts = []
    for item in re.split(r"([&;])", query[1:]):
        if item in ("&", ";") or item == "":
            parts.append(item)
        elif "=" in item:
            parts.append(item.split("=", 1)[0] + "=" + MASK)
        else:
            parts.append(MASK)
    return "?" + "".join(parts)


def _redact_one(url: str) -> str:
    split = _split(url)
    if split is None:
        return url
    scheme, userinfo, hostpath, query, fragment = split
    if userinfo:
        user, colon, _password = userinfo.partition(":")
        userinfo = (f"{user}:{MASK}" if colon else MASK) + "@"
    return scheme + userinfo + hostpath + _mask_query(query) + ("#" + MASK if fragment else "")


def redact_url(url: str) -> str:
    """``url`` (or a comma-separated list of URLs) with its credentials masked.

    >>> redact_url("http://bob:hunter2@host:8000/v1?api-key=s3cret&deployment=d1")
    'http://bob:***@host:8000/v1?api-key=***&deployment=***'
    """
    return ",".join(_redact_one(part) for part in _NEXT_URL.split(url))


#: A value :func:`redact` walks: what it returns has the type it was given.
_Value = TypeVar("_Value")


@overload
def redact(value: str) -> str: ...
@overload
def redact(value: _Value) -> _Value: ...
def redact(value: object) -> object:
    """``value`` with every URL in every string masked by :func:`redact_url`.

    Strings, lists, tuples and dicts (keys and values) are walked; other values are
    returned as they are.

    >>> redact(["-m", "openai:m@http://u:p@h/v1", "--model-opt", "base_url=https://h?key=k"])
    ['-m', 'openai:m@http://u:***@h/v1', '--model-opt', 'base_url=https://h?key=***']
    """
    if isinstance(value, str):
        return _URL.sub(lambda m: redact_url(m.group(0)), value) if "://" in value else value
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, tuple):
        return tuple(redact(v) for v in value)
    if isinstance(value, dict):
        return {redact(k): redact(v) for k, v in value.items()}
    return value


def url_secrets(url: str) -> list[str]:
    """The secret strings of a URL, raw and percent-decoded: the user info's password (or
    the user info itself when it has no password) and every query value and fragment.
    Used to scrub them from server messages that echo them."""
    split = _split(url)
    if split is None:
        return []
    _, userinfo, _, query, fragment = split
    found: list[str] = []
    if userinfo:
        user, colon, password = userinfo.partition(":")
        found.append(password if colon else user)
    for item in re.split(r"[&;]", query[1:]):
        found.append(item.split("=", 1)[1] if "=" in item else item)
    if fragment:
        found.append(fragment[1:])
    out: list[str] = []
    for text in found:
        for form in (text, unquote(text)):
            if form and form not in out:
                out.append(form)
    return out


def scrub(text: str, secrets: list[str], min_len: int = 4) -> str:
    """``text`` with each of ``secrets`` (at least ``min_len`` characters; shorter ones
    would mask ordinary words) replaced by ``***``, and then every URL redacted."""
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= min_len:
            text = text.replace(secret, MASK)
    return redact(text)


@functools.lru_cache(maxsize=64)
def secret_digest(url: str) -> str:
    """A short, slow salted hash of the credentials of ``url`` (its user info, query and
    fragment), or ``""`` when it has none: what an identity may hold instead of them."""
    split = _split(url)
    if split is None:
        return ""
    _, userinfo, _, query, fragment = split
    if not (userinfo or len(query) > 1 or fragment):
        return ""
    material = "\0".join((userinfo, query, fragment)).encode("utf-8", "surrogatepass")
    return hashlib.pbkdf2_hmac("sha256", material, _DIGEST_SALT, _DIGEST_ROUNDS).hex()[:16]


def mask_record(record: logging.LogRecord) -> None:
    """Replace the message of ``record`` by its text with URL credentials masked, when they differ."""
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a broken format fails in the handler, as without us
        return
    if "://" in message:
        masked = redact(message)
        if masked != message:
            record.msg, record.args = masked, None


_REDACTED_LOGGERS: set[str] = set()
_factory_installed = False


def _covered(name: str) -> bool:
    return any(name == n or name.startswith(n + ".") for n in _REDACTED_LOGGERS)


def install_log_redaction(names: tuple[str, ...] = HTTP_LOGGERS) -> None:
    """Mask URL credentials (:func:`redact`) in every record of the loggers ``names`` and of
    their children; idempotent. The HTTP libraries log request URLs, whose query may hold a
    key, from child loggers (``httpcore.http11``) whose records a filter on the parent never
    sees, so this wraps the log record factory instead of adding logger filters."""
    global _factory_installed
    _REDACTED_LOGGERS.update(names)
    if _factory_installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if _covered(record.name):
            mask_record(record)
        return record

    logging.setLogRecordFactory(factory)
    _factory_installed = True
