"""Metamorphic variants of a question: the same question after a transformation whose effect
on the right answer is known, so a model's two answers can be compared (mapped back).

A variant of question ``K`` is asked under the key ``K@<name>`` (:func:`variant_key`); it is
described by ``forward`` (the option map original -> variant) and the variant question's
``options`` order and ``text``. ``mirror`` swaps the whole words "left" and "right" (options
keep their original order in the prompt); ``shuffle-options`` lists the options in a
permutation drawn from SHA-256 over (seed, item id, question key), independent of call
order. :func:`transform_votes` re-keys the human distribution through ``forward``. See
README.md, "Metamorphic robustness".
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from socialbench.types import Answer, HumanVotes, Item, Question

__all__ = [
    "TRANSFORMS",
    "SEEDED",
    "SEPARATOR",
    "Variant",
    "variant_key",
    "split_variant",
    "mirror_text",
    "make_variant",
    "map_answer",
    "transform_votes",
    "with_variants",
]

TRANSFORMS: tuple[str, ...] = ("mirror", "shuffle-options")
#: Transformations whose variant depends on the run's seed (``shuffle-options``' order).
SEEDED: frozenset[str] = frozenset({"shuffle-options"})
#: Separates a question key from the transformation name in a variant's key.
SEPARATOR = "@"

_LEFT_RIGHT = re.compile(r"\b(left|right|Left|Right|LEFT|RIGHT)\b")
_SWAP = {"left": "right", "right": "left", "Left": "Right", "Right": "Left", "LEFT": "RIGHT", "RIGHT": "LEFT"}


def variant_key(key: str, name: str) -> str:
    """The key under which the ``name`` variant of question ``key`` is asked."""
    return f"{key}{SEPARATOR}{name}"


def split_variant(key: str) -> tuple[str, str | None]:
    """``("K", "mirror")`` for ``"K@mirror"``; ``("K", None)`` for a plain key."""
    base, sep, name = key.partition(SEPARATOR)
    return (base, name) if sep else (key, None)


def mirror_text(text: str) -> str:
    """``text`` with the whole words left and right swapped (case kept)."""
    return _LEFT_RIGHT.sub(lambda m: _SWAP[m.group(0)], text)


@dataclass(frozen=True)
class Variant:
    """One question and its transformed counterpart."""

    name: str
    original: Question
    question: Question  # key ``K@name``, options in prompt order, transformed text
    forward: Mapping[str, str]  # original option -> variant option

    @property
    def backward(self) -> dict[str, str]:
        return {v: k for k, v in self.forward.items()}

    def to_variant(self, answer: object) -> Answer | None:
        """An answer to the original, expressed as the answer to the variant."""
        return map_answer(answer, self.forward, self.original, self.question)

    def to_original(self, answer: object) -> Answer | None:
        """An answer to the variant, mapped back to the original question."""
        return map_answer(answer, self.backward, self.question, self.original)


def _permutation(n: int, seed: int, salt: str) -> list[int]:
    """A permutation of range(n) other than the identity (when n > 1), seeded by ``salt``."""
    rng = random.Random(int.from_bytes(hashlib.sha256(f"{seed}\0{salt}".encode()).digest()[:8], "big"))
    order = list(range(n))
    if n < 2:
        return order
    while order == list(range(n)):
        rng.shuffle(order)
    return order


def make_variant(question: Question, name: str, *, seed: int = 0, item_id: str = "") -> Variant:
    """The ``name`` variant of ``question`` (see the module docstring). Raises ValueError
    for an unknown transformation."""
    options = question.options
    if name == "mirror":
        forward = {o: (mirror_text(o) if mirror_text(o) in options else o) for o in options}
        new_q = replace(question, key=variant_key(question.key, name), text=mirror_text(question.text))
    elif name == "shuffle-options":
        forward = {o: o for o in options}
        perm = _permutation(len(options), seed, f"{item_id}\0{question.key}")
        new_q = replace(question, key=variant_key(question.key, name), options=tuple(options[i] for i in perm))
    else:
        raise ValueError(f"unknown transformation {name!r}; known: {', '.join(TRANSFORMS)}")
    if sorted(forward.values()) != sorted(options):
        raise ValueError(f"{question.key}: the {name} map of {options} is not a permutation")
    return Variant(name, question, new_q, forward)


def map_answer(answer: object, mapping: Mapping[str, str], source: Question, target: Question) -> Answer | None:
    """``answer`` (valid for ``source``) through ``mapping``, canonical for ``target``;
    ``None`` when the answer is not a valid answer to ``source``."""
    canon = source.canonical(list(answer) if isinstance(answer, tuple) else answer)
    if canon is None:
        return None
    if isinstance(canon, tuple):
        return target.canonical([mapping[o] for o in canon])
    return target.canonical(mapping[canon])


def transform_votes(votes: HumanVotes, variant: Variant) -> HumanVotes:
    """The human distribution of the variant: each answer moved through ``forward``."""
    mapped = [variant.to_variant(a) for a in votes.answers]
    answers = tuple(a for a in mapped if a is not None)
    if len(answers) != len(mapped):
        raise ValueError(f"{variant.original.key}: a human answer is not an option of the question")
    return HumanVotes(answers=answers, probabilities=votes.probabilities, n=votes.n)


def with_variants(item: Item, name: str, seed: int = 0) -> Item:
    """``item`` with the ``name`` variant of each question appended (after all originals)
    and the variants' human distributions (:func:`transform_votes`) added to its votes."""
    variants = [make_variant(q, name, seed=seed, item_id=item.item_id) for q in item.questions]
    votes = dict(item.votes)
    for v in variants:
        if v.original.key in item.votes:
            votes[v.question.key] = transform_votes(item.votes[v.original.key], v)
    return replace(item, questions=item.questions + tuple(v.question for v in variants), votes=votes)
