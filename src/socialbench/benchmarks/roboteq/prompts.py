"""RobotEQ prompts (written for socialbench; the paper shows the format in Figures 18 and 20).

*Per scene* (default): the role question, the numbered behaviors ``[k] text`` and a request
for ``{"answer": {"k": "proper" | "improper", ...}}``. *Per behavior*: the role question and
one behavior, answered ``{"answer": "proper"}``. *Grounding*: the question, the optional
region descriptions and a request for ``{"answer": ["A", ...]}``. ``cot`` asks for a
``"reasoning"`` field before ``"answer"`` in the same JSON object (JSON mode stays on);
``no-image`` says there is no image; ``rag`` prepends the retrieved documents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from socialbench.benchmarks.roboteq.schema import LETTERS

__all__ = ["scene_prompt", "behavior_prompt", "grounding_prompt", "rag_block"]

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
