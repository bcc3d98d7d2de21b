"""Deterministic responders for the scripted servers: a function from a chat request body to
the reply text, chosen by name with :func:`get_responder` (the servers' ``--responder``).

``first-option`` (:func:`first_option_responder`) answers the first option of the
``Possible answers:`` line, else ``{"answer": "ok"}``. ``valid`` (:func:`valid_responder`)
gives a well-formed answer to every prompt socialbench sends (each ``socialbench build``
stage's through :mod:`socialbench.testing.build_replies`), depending only on the prompt
text; docs/models.md, "Dry runs against local scripted servers", lists what it answers.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable, Mapping

from socialbench.testing.build_replies import build_reply

__all__ = [
    "RESPONDERS",
    "Responder",
    "get_responder",
    "valid_responder",
    "first_option_responder",
    "scene_labels",
    "message_text",
    "last_user_text",
    "parse_possible_answers",
    "sampling_responder",
]

Responder = Callable[[Mapping[str, object]], str]

_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def message_text(message: Mapping[str, object]) -> str:
    """The text of a chat message whose content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text")
    return ""


def last_user_text(request_json: Mapping[str, object]) -> str:
    """Text of the last ``user`` message of a chat-completions request ("" if none)."""
    messages = request_json.get("messages")
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            return message_text(message)
    return ""


def parse_possible_answers(line: str) -> list[str]:
    """Options of a ``Possible answers: "a", "b"`` line (quoted, else comma-separated)."""
    rest = line.split(":", 1)[1] if ":" in line else ""
    quoted = [m.group(1).replace('\\"', '"') for m in _QUOTED.finditer(rest)]
    if quoted:
        return quoted
    return [part.strip() for part in rest.split(",") if part.strip()]


def first_option_responder(request_json: Mapping[str, object]) -> str:
    """The first option of the last user message's last ``Possible answers:`` line as JSON
    (a one-element list when a list is asked for), like the official dummy model; else
    ``{"answer": "ok"}``."""
    options, as_list = _options_asked(request_json)
    if not options:
        return json.dumps({"answer": "ok"})
    return json.dumps({"answer": [options[0]] if as_list else options[0]})


_BEHAVIOR_LINE = re.compile(r"^\[(\d+)\]\s*(.*)$")


def _label(text: str) -> str:
    """``proper`` or ``improper`` from a hash of the behavior text (stable across runs)."""
    return "proper" if hashlib.sha256(text.strip().encode()).digest()[0] % 2 == 0 else "improper"


def scene_labels(prompt: str) -> dict[str, str] | None:
    """Behavior number -> label for a per-scene judgment prompt (None if it is not one)."""
    lines = prompt.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Candidate behaviors:")
    except StopIteration:
        return None
    labels: dict[str, str] = {}
    for line in lines[start + 1 :]:
        m = _BEHAVIOR_LINE.match(line.strip())
        if not m:
            break
        labels[m.group(1)] = _label(m.group(2))
    return labels or None


def _wants_reasoning(prompt: str) -> bool:
    return '{"reasoning":' in prompt


def _with_reasoning(prompt: str, reply: str) -> str:
    if not _wants_reasoning(prompt):
        return reply
    obj = json.loads(reply)
    return json.dumps({"reasoning": "Scripted reasoning: the people's states and the applicable norms.", **obj})


def valid_responder(request_json: Mapping[str, object]) -> str:
    """A valid, deterministic reply to any prompt socialbench sends (see the module docstring)."""
    prompt = last_user_text(request_json)
    built = build_reply(prompt)
    if built is not None:
        return built
    labels = scene_labels(prompt)
    if labels is not None:
        return _with_reasoning(prompt, json.dumps({"answer": labels}))
    return _with_reasoning(prompt, first_option_responder(request_json))


def _options_asked(request_json: Mapping[str, object]) -> tuple[list[str], bool]:
    """The options of the last ``Possible answers:`` line and whether a list is asked for."""
    lines = last_user_text(request_json).splitlines()
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].strip().startswith("Possible answers:"):
            return parse_possible_answers(lines[index].strip()), '"answer": ["' in "\n".join(lines[index:])
    return [], False


def sampling_responder(seed: int = 0) -> Responder:
    """A model that samples. At the request's ``temperature`` (absent: the provider default,
    1) above 0 it answers an option of the ``Possible answers:`` line drawn at random (a
    one-element list when a list is asked for); at temperature 0 it answers like
    :func:`valid_responder`, every time the same. The draw depends on ``seed``, the prompt
    and how many times the prompt was asked before, never on arrival order: a run repeated
    (``eval --epochs``) gets other answers, the same runs again get the same ones."""
    asked: dict[str, int] = {}
    lock = threading.Lock()

    def respond(request_json: Mapping[str, object]) -> str:
        temperature = request_json.get("temperature", 1.0)
        options, as_list = _options_asked(request_json)
        if not options or not isinstance(temperature, (int, float)) or temperature <= 0:
            return valid_responder(request_json)
        prompt = last_user_text(request_json)
        with lock:
            turn = asked.get(prompt, 0)
            asked[prompt] = turn + 1
        digest = hashlib.sha256(f"{seed}\0{turn}\0{prompt}".encode()).digest()
        choice = options[int.from_bytes(digest[:8], "big") % len(options)]
        return json.dumps({"answer": [choice] if as_list else choice})

    return respond


#: Responders selectable by name (``--responder``).
RESPONDERS: dict[str, Responder] = {"valid": valid_responder, "first-option": first_option_responder}


def get_responder(name: str) -> Responder:
    """The responder called ``name`` (``sampling``: a new :func:`sampling_responder`);
    ValueError naming the choices for an unknown one."""
    if name == "sampling":
        return sampling_responder()
    try:
        return RESPONDERS[name]
    except KeyError:
        raise ValueError(f"unknown responder {name!r} (choose from {', '.join(RESPONDERS)}, sampling)") from None
