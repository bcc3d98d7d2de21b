"""RobotEQ prompts, reply parsing and token estimates.

Prompts (written for socialbench; the paper shows the format in Figures 18 and 20)
-----------------------------------------------------------------------------------
*Per scene* (default): the role question, the numbered candidate behaviors ``[k] text``
and a request for one JSON object ``{"answer": {"k": "proper" | "improper", ...}}``.
*Per behavior* (``--per-behavior``): the role question and one behavior, answered
``{"answer": "proper"}`` or ``{"answer": "improper"}``.
*Grounding*: the question, the optional region descriptions and a request for
``{"answer": ["A", ...]}`` (one or more of A-D).

Strategies change the prompt as follows: ``cot`` asks for step-by-step reasoning in a
``"reasoning"`` field written before the ``"answer"`` field of the same JSON object (so JSON
mode stays on; the reply may be longer: max_tokens 2048); ``no-image`` replaces the sentence
that points at the image with one saying there is no image; ``rag`` prepends the retrieved
social-norm documents.

Reply parsing (per-scene judgments)
-----------------------------------
Every top-level JSON object in the reply is decoded (fenced or not); the *last* one that
holds judgments wins (CoT replies reason first). Judgments are read from its ``answer``
(or ``judgments`` / ``labels``) value, or from the object itself when some of its keys are
behavior numbers (other keys are extras): a ``{k: label}`` object (keys such as ``"1"``,
``"[1]"``, ``"b1"``, ``"behavior 1"``), a list of ``{"k"|"id"|"behavior": k,
"label"|"judgment"|"answer": ...}`` objects, a plain list of labels when its length equals
the number of behaviors, or a single label when the scene has one behavior. An ``answer``
value of no such form (``{"answer": "done"}``) holds no judgments: an earlier object is
used, and when none holds judgments the reply is invalid (the text is not searched).
Without JSON, numbered lines are read (method ``lenient``): the label right after the
number (``[1] proper``, ``2: improper``, ``3 - proper: because ...``), or else the one
label word of the line (``Behavior 3 - step back: proper``). A numbered line that names a
label in any other way (``[1] Proper greeting would be improper``, ``2. Walking in is
improper, while knocking is proper``, a negation) makes that behavior invalid.

Each behavior is judged on its own: a behavior with no judgment, with a value that is not
proper/improper, or with an extra judgment (judged twice in the JSON reply, e.g.
``{"2": "proper", "2": "proper"}``; in plain lines only a conflicting repeat counts) is
*invalid* (``None``); the other behaviors of the scene keep their answers. Judgments for
numbers the scene does not have are ignored.

Reply parsing (grounding)
-------------------------
See :func:`parse_grounding`: an explicit answer decides, nothing is guessed from prose.

Token estimates (used for accounting and ``perf/roboteq_cost.py``)
------------------------------------------------------------------------
* text: ``approx_tokens(text) = ceil(len(text) / 4)``, the usual ~4 characters per token of
  English BPE vocabularies (cl100k / o200k are within ~15 % on this kind of prose);
* images: :func:`image_tokens` (see there).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from socialbench.benchmarks.roboteq.fields import parse_letters
from socialbench.benchmarks.roboteq.options import STRATEGIES
from socialbench.benchmarks.roboteq.schema import LABELS, LETTERS, normalise_label

__all__ = [
    "STRATEGIES",
    "ParsedJudgments",
    "scene_prompt",
    "behavior_prompt",
    "grounding_prompt",
    "rag_block",
    "parse_judgments",
    "parse_grounding",
    "parse_grounding_letters",
    "approx_tokens",
    "image_tokens",
]

_LOOK = "Look at the first-person image from your camera."
_NO_IMAGE = "No image is available; judge from the text alone."
_COT = (
    "Think step by step before answering: consider the people in the scene, their states and "
    'needs, and the social norms that apply. Put this reasoning in the "reasoning" field of '
    'your JSON reply, before the "answer" field.'
)


def _reply(strategy: str, what: str, answer_example: str) -> str:
    """The reply-format line: ``{"answer": ...}``, or ``{"reasoning": ..., "answer": ...}`` for CoT."""
    if strategy == "cot":
        return f'Reply with one JSON object {what}, for example: {{"reasoning": "<your reasoning>", "answer": {answer_example}}}'
    return f'Reply with one JSON object {what}, for example: {{"answer": {answer_example}}}'


def _intro(strategy: str) -> str:
    return _NO_IMAGE if strategy == "no-image" else _LOOK


def rag_block(documents: Sequence[tuple[str, str]]) -> str:
    """The retrieved-knowledge preamble for ``(title, text)`` documents ("" for none)."""
    if not documents:
        return ""
    parts = ["Reference social norms (retrieved from a knowledge base; apply them only where relevant):"]
    for title, text in documents:
        parts.append(f"--- {title} ---\n{text.strip()}")
    return "\n\n".join(parts) + "\n\n"


def scene_prompt(role: str, behaviors: Sequence[tuple[int, str]], strategy: str, knowledge: str = "") -> str:
    """One request for all behaviors of a scene (Figure 18 format)."""
    listing = "\n".join(f"[{k}] {text}" for k, text in behaviors)
    example = ", ".join(f'"{k}": "<proper|improper>"' for k, _ in behaviors[:2])
    lines = [
        knowledge + role.strip(),
        "",
        f"{_intro(strategy)} For each candidate behavior below, decide whether you should perform it "
        'in this scene ("proper") or should not ("improper"). Judge every behavior on its own; '
        "any number of them may be proper.",
        "",
        "Candidate behaviors:",
        listing,
        "",
    ]
    if strategy == "cot":
        lines += [_COT, ""]
    lines.append(
        _reply(strategy, 'whose "answer" maps every behavior number to "proper" or "improper"', f"{{{example}}}")
    )
    return "\n".join(lines)


def behavior_prompt(role: str, behavior: str, strategy: str, knowledge: str = "") -> str:
    """One request for one behavior (``--per-behavior``)."""
    lines = [
        knowledge + role.strip(),
        "",
        f"{_intro(strategy)} Decide whether you should perform the following behavior in this scene.",
        "",
        f"Behavior: {behavior.strip()}",
        "",
        'Answer "proper" if you should perform it and "improper" if you should not.',
    ]
    if strategy == "cot":
        lines += [_COT]
    lines += [
        'Possible answers: "proper", "improper"',
        _reply(strategy, 'whose "answer" is "proper" or "improper"', '"<proper|improper>"'),
    ]
    return "\n".join(lines)


def grounding_prompt(question: str, options: Mapping[str, str], strategy: str, knowledge: str = "") -> str:
    """One spatial-grounding request (multiple select over regions A-D, Figure 20 format)."""
    look = (
        _NO_IMAGE
        if strategy == "no-image"
        else "The image from your camera is marked with four candidate regions labelled A, B, C and D."
    )
    lines = [
        knowledge + question.strip(),
        "",
        f"{look} Select every region that answers the question; one or more may be correct.",
    ]
    if options:
        lines += ["", "Regions:"] + [f"{letter}: {options[letter]}" for letter in LETTERS if letter in options]
    lines.append("")
    if strategy == "cot":
        lines += [_COT]
    lines += [
        "Possible answers: " + ", ".join(f'"{o}"' for o in LETTERS),
        _reply(strategy, 'whose "answer" lists the selected letters', '["A", "C"]'),
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class ParsedJudgments:
    """Per-behavior judgments of one reply: ``values[k]`` is a label or None (invalid)."""

    values: dict[int, str | None]
    method: str | None  # "json" | "lenient" | None (nothing found)
    extra: tuple[str, ...] = ()  # keys for behaviors the scene does not have


class _Pairs(dict):
    """A decoded JSON object that remembers every (key, value) pair, duplicates included."""

    pairs: list[tuple[str, Any]]


def _pairs_hook(pairs: list[tuple[str, Any]]) -> _Pairs:
    obj = _Pairs(pairs)
    obj.pairs = list(pairs)
    return obj


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_hook)


#: ``{`` positions that may fail to start an object before the search stops: bounds the
#: work on a brace-heavy reply (each failed attempt costs time linear in the text)
MAX_FAILED_STARTS = 256


def _json_objects(text: str) -> list[Any]:
    """Top-level JSON objects in ``text``, in order (never raises: text nested too deeply
    to decode holds no object; the search stops after :data:`MAX_FAILED_STARTS` failures)."""
    out: list[Any] = []
    pos = 0
    failed = 0
    while failed < MAX_FAILED_STARTS:
        start = text.find("{", pos)
        if start < 0:
            return out
        try:
            obj, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            pos = start + 1
            failed += 1
            continue
        if isinstance(obj, dict):
            out.append(obj)
        pos = end
    return out


def _behavior_number(key: Any) -> int | None:
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key
    # at most 9 digits: a longer number is no behavior's (and int() refuses > 4300 digits)
    m = re.fullmatch(r"\s*\[?\s*(?:b|behaviou?r|option|action)?\s*#?\s*(\d{1,9})\s*\]?\s*", str(key), re.IGNORECASE)
    return int(m.group(1)) if m else None


def _label(value: Any) -> str | None:
    if isinstance(value, dict):
        for name in ("label", "judgment", "judgement", "answer", "verdict"):
            if name in value:
                return _label(value[name])
        return None
    return normalise_label(value) if isinstance(value, str) else None


def _pairs_of(obj: Any) -> list[tuple[str, Any]]:
    return list(getattr(obj, "pairs", None) or (obj.items() if isinstance(obj, dict) else []))


_ANSWER_FIELDS = ("answer", "judgments", "judgements", "labels", "answers")


def _has_number_key(pairs: Sequence[tuple[Any, Any]]) -> bool:
    return any(_behavior_number(k) is not None for k, _ in pairs)


def _answer_pairs(value: Any, ks: Sequence[int]) -> list[tuple[Any, Any]] | None:
    """(behavior key, value) pairs of an ``answer`` value, or None when the value is not a
    judgment structure (e.g. ``"done"``, or a list whose length is not the behavior count)."""
    if isinstance(value, dict):
        pairs = _pairs_of(value)
        return pairs if _has_number_key(pairs) else None
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            out = []
            for v in value:
                key = next((v[f] for f in ("k", "id", "behavior", "behaviour", "number", "index") if f in v), None)
                out.append((key, v))
            return out if _has_number_key(out) else None
        if len(value) == len(ks):
            return list(zip(ks, value))
        return None
    if isinstance(value, str) and len(ks) == 1:
        return [(ks[0], value)]
    return None


def _judgment_pairs(obj: Any, ks: Sequence[int]) -> tuple[list[tuple[Any, Any]] | None, bool]:
    """(behavior key, value) pairs held by one decoded object (None if it holds none), and
    whether the object has an explicit answer field."""
    if not isinstance(obj, dict):
        return None, False
    for name in _ANSWER_FIELDS:
        if name in obj:
            # several "answer" keys in one object: the last, as json.loads keeps
            return _answer_pairs(obj[name], ks), True
    pairs = _pairs_of(obj)
    return (pairs if _has_number_key(pairs) else None), False


# One way to match any line: ``\W*`` already takes a ``[`` and white space before the number
# (``\W*\[?\s*`` and ``\s*\[?\s*`` backtrack quadratically on a long run of spaces).
_LINE_NUMBER = re.compile(r"^\W*(?:behaviou?r\s*(?:\[\s*)?)?(\d+)\s*\]?(.*)$", re.IGNORECASE)
_LEAD_LABEL = re.compile(r"^[\s:.)\-=*–—]*(improper|proper)\b\**(.*)$", re.IGNORECASE)
_LABEL_WORD = re.compile(r"\b(improper|proper)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)


def _line_judgment(line: str) -> tuple[str, str | None] | None:
    """(behavior number, label or None) from one plain-text line, or None when the line
    is not a numbered line that names a label.

    Accepted: the label right after the number (optionally after ``:``, ``-``, ``.``,
    ``)``, ``=``), followed by nothing or by punctuation and no opposite label
    (``[1] proper``, ``2: improper - she is busy``); or a line naming exactly one label
    word and no negation (``Behavior 3 - step back: proper``). Any other numbered line
    that names a label gives None for that behavior (invalid, never guessed)."""
    m = _LINE_NUMBER.match(line.strip())
    if not m:
        return None
    number, rest = m.group(1), m.group(2)
    words = [w.casefold() for w in _LABEL_WORD.findall(rest)]
    if not words:
        return None
    lead = _LEAD_LABEL.match(rest)
    if lead:
        label, tail = lead.group(1).casefold(), lead.group(2)
        other = "improper" if label == "proper" else "proper"
        clean_start = not tail.strip() or not re.match(r"\s*\w", tail)
        if clean_start and other not in [w.casefold() for w in _LABEL_WORD.findall(tail)]:
            return number, label
        return number, None
    if len(words) == 1 and not _NEGATION.search(rest):
        return number, words[0]
    return number, None


def _collect(
    pairs: list[tuple[Any, Any]], ks: Sequence[int], *, strict: bool
) -> tuple[dict[int, str | None], list[str]]:
    """Labels per behavior from (key, value) pairs. A behavior judged twice is invalid when
    ``strict`` (JSON: an extra judgment), else only when the two judgments conflict."""
    found: dict[int, list[str | None]] = {}
    extra: list[str] = []
    for key, value in pairs:
        k = _behavior_number(key)
        if k is None or k not in ks:
            extra.append(str(key))
            continue
        found.setdefault(k, []).append(_label(value))
    values: dict[int, str | None] = {}
    for k in ks:
        got = found.get(k)
        if not got or any(v is None for v in got) or len(set(got)) > 1 or (strict and len(got) > 1):
            values[k] = None  # missing, not a label, judged twice (JSON) or conflicting
        else:
            values[k] = got[0]
    return values, extra


def parse_judgments(text: str | None, ks: Sequence[int]) -> ParsedJudgments:
    """Per-behavior labels for behavior numbers ``ks`` from a per-scene reply."""
    empty: dict[int, str | None] = {k: None for k in ks}
    if not text or not text.strip():
        return ParsedJudgments(empty, None)
    explicit = False
    for obj in reversed(_json_objects(text)):
        pairs, has_answer = _judgment_pairs(obj, ks)
        explicit = explicit or has_answer
        if pairs is None:
            continue
        values, extra = _collect(pairs, ks, strict=True)
        return ParsedJudgments(values, "json", tuple(extra))
    if explicit:  # an explicit answer field without judgments decides: invalid
        return ParsedJudgments(empty, None)
    pairs = [j for line in text.splitlines() if (j := _line_judgment(line)) is not None]
    if pairs:
        values, extra = _collect(pairs, ks, strict=False)
        return ParsedJudgments(values, "lenient", tuple(extra))
    return ParsedJudgments(empty, None)


# Grounding: "answer(s) is/are/:" phrases followed by a letter list that ends the phrase.
_ANSWER_PHRASE = re.compile(r"\banswers?\b[\"'`*]*\s*(?:(?:is|are)\b\s*[:：=]?|[:：=])", re.IGNORECASE)
_QUOTE = r"[\"'`]"
# A separator between letters: a mark (, ; / & and) or white space, each with optional
# white space and quotes around it. Written so that a text has one way to match (no
# adjacent \s* runs): an ambiguous pattern backtracks for minutes on a long run of spaces.
_SEP = (
    r"(?:\s*(?:" + _QUOTE + r"\s*)?(?:[,;/&]|\band\b)\s*(?:" + _QUOTE + r"\s*)?"
    r"|(?:\s*" + _QUOTE + r")?\s+(?:" + _QUOTE + r"\s*)?)"
)
_PHRASE_LETTERS = re.compile(
    r"[\s\[(\"'`*]*([A-D](?:" + _SEP + r"[A-D])*)[\"'`\])*]*(?=\s*$|\s*\n|\s*[.!;:,]|\s+[-–—(])"
)
_WHOLE_LETTERS = re.compile(r"[A-Da-d](?:" + _SEP + r"[A-Da-d])*")


def _letters_in(span: str) -> list[str]:
    found = {c.upper() for c in re.findall(r"\b[A-Da-d]\b", span)}
    return [o for o in LETTERS if o in found]


def parse_grounding_letters(text: str | None, *, quoted_key_only: bool = False) -> list[str] | None:
    """Letters A-D from a grounding reply without a decodable JSON answer: the last
    explicit ``answer(s) is ...`` / ``Answer: A, C`` phrase whose letter list (case-sensitive
    letters) ends the phrase (end of line, punctuation or a dash). Region/option words and
    letters elsewhere never count (``Answer: A person near region C`` is no answer). With
    ``quoted_key_only`` only a ``"answer": ...`` key counts. None if there is none."""
    if not text:
        return None
    found: list[str] | None = None
    for m in _ANSWER_PHRASE.finditer(text):
        if quoted_key_only and not (m.start() > 0 and text[m.start() - 1] in "\"'"):
            continue
        lm = _PHRASE_LETTERS.match(text, m.end())
        if lm:
            found = _letters_in(lm.group(1)) or found
    return found


def _answer_value_letters(value: Any) -> list[str] | None:
    """Letters of a JSON ``answer`` value: a letter list (``["A", "C"]``) or a string such
    as ``"A, C"`` or ``"AC"`` (read by :func:`parse_letters`); None if it names none or
    anything else."""
    if isinstance(value, str):
        s = value.strip().strip("\"'`*").strip().rstrip(".").strip()
        letters, err = parse_letters(s)
        return None if err or not letters else list(letters)
    if isinstance(value, (list, tuple)) and value:
        out: set[str] = set()
        for v in value:
            got = _answer_value_letters(v) if isinstance(v, str) else None
            if got is None:
                return None
            out.update(got)
        return [o for o in LETTERS if o in out]
    return None


def parse_grounding(text: str | None) -> tuple[list[str] | None, str | None]:
    """Selected regions of a grounding reply and the parse method (``json`` | ``strict``).

    An explicit answer decides and nothing is guessed:

    1. the last JSON object with an ``"answer"`` key: its value (a letter list, or a string
       such as ``"A, C"`` / ``"AC"``) is the answer; anything else (``[]``, ``["E"]``,
       ``"none"``) makes the reply invalid -- the reasoning is never searched;
    2. a reply that is JSON but cannot be decoded (e.g. cut off): only a ``"answer": ...``
       key counts;
    3. plain text: the last explicit ``answer is`` / ``Answer:`` phrase followed by a letter
       list (:func:`parse_grounding_letters`), or a reply that is only a letter list
       (``A, C``);

    otherwise ``(None, None)`` (invalid).
    """
    if not text or not text.strip():
        return None, None
    for obj in reversed(_json_objects(text)):
        key = next((k for k in obj if isinstance(k, str) and k.strip().casefold() == "answer"), None)
        if key is not None:
            letters = _answer_value_letters(obj[key])
            return (letters, "json") if letters else (None, None)
    stripped = text.strip()
    if stripped.startswith(("{", "```")):
        letters = parse_grounding_letters(text, quoted_key_only=True)
        return (letters, "strict") if letters else (None, None)
    letters = parse_grounding_letters(text)
    if letters:
        return letters, "strict"
    whole = stripped.strip("\"'`*").strip().rstrip(".").strip()
    if _WHOLE_LETTERS.fullmatch(whole):
        return _letters_in(whole), "strict"
    return None, None


# --------------------------------------------------------------------------- token estimates


def approx_tokens(text: str) -> int:
    """``ceil(len(text) / 4)``: ~4 characters per token for English text."""
    return math.ceil(len(text) / 4)


def image_tokens(width: int, height: int, scheme: str = "tiles") -> int:
    """Estimated prompt tokens of one image of ``width`` x ``height`` pixels.

    ``tiles`` (OpenAI high-detail images, e.g. GPT-4o): scale to fit in 2048 x 2048, then so
    that the shorter side is at most 768; cost = 85 + 170 x (number of 512 px tiles),
    tiles = ceil(w / 512) * ceil(h / 512). A 768 x 432 image costs 85 + 170 x 2 = 425.

    ``patch28`` (Qwen2-VL / Qwen2.5-VL style): one token per 28 x 28 pixel patch,
    ceil(w / 28) * ceil(h / 28) (a 768 x 432 image: 28 x 16 = 448).
    """
    if width <= 0 or height <= 0:
        raise ValueError(f"image size must be positive, got {width} x {height}")
    if scheme == "patch28":
        return math.ceil(width / 28) * math.ceil(height / 28)
    if scheme != "tiles":
        raise ValueError(f"unknown image token scheme {scheme!r}; use tiles or patch28")
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        s = 2048 / max(w, h)
        w, h = w * s, h * s
    if min(w, h) > 768:
        s = 768 / min(w, h)
        w, h = w * s, h * s
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


__all__ += ["LABELS"]
