"""Near-duplicate texts: the local filter of the scenarios stage (pure functions).

:func:`near_duplicates` compares texts with character n-gram Jaccard similarity
(:func:`shingles`, :func:`jaccard`; exact all-pairs, or MinHash signatures + LSH banding
(:func:`minhash_signatures`) for large pools) or, given an embedding function, cosine
similarity, and greedily drops later near-copies of earlier texts.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["shingles", "jaccard", "minhash_signatures", "DedupResult", "near_duplicates"]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", text.casefold())).strip()


def shingles(text: str, n: int = 5) -> frozenset[str]:
    """Character n-grams of the normalised text (lower case, punctuation removed)."""
    t = _norm(text)
    if len(t) <= n:
        return frozenset([t]) if t else frozenset()
    return frozenset(t[i : i + n] for i in range(len(t) - n + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


_PRIME = (1 << 31) - 1  # a*h + b < 2**63 for a, h, b < 2**31: exact in uint64


def minhash_signatures(sets: Sequence[frozenset[str]], num_perm: int = 128, seed: int = 1) -> np.ndarray:
    """MinHash signatures (``len(sets) x num_perm``): universal hashes ``(a*h + b) mod p``
    with p = 2^31 - 1 over 31-bit BLAKE2b hashes of the shingles."""
    rng = np.random.default_rng(seed)
    a = rng.integers(1, _PRIME, size=num_perm, dtype=np.uint64)
    b = rng.integers(0, _PRIME, size=num_perm, dtype=np.uint64)
    sig = np.full((len(sets), num_perm), _PRIME, dtype=np.uint64)
    for i, s in enumerate(sets):
        if not s:
            continue
        h = np.fromiter(
            (int.from_bytes(hashlib.blake2b(x.encode(), digest_size=4).digest(), "little") % _PRIME for x in s),
            dtype=np.uint64,
            count=len(s),
        )
        sig[i] = ((np.multiply.outer(h, a) + b) % np.uint64(_PRIME)).min(axis=0)
    return sig


@dataclass(frozen=True)
class DedupResult:
    keep: tuple[int, ...]
    removed: tuple[tuple[int, int, float], ...]  # (index, index of the kept duplicate, similarity)


def _lsh_neighbours(sets: Sequence[frozenset[str]], bands: int = 32, rows: int = 4) -> list[set[int]]:
    """For each index, the earlier indices sharing at least one LSH band bucket."""
    sig = minhash_signatures(sets, num_perm=bands * rows)
    neighbours: list[set[int]] = [set() for _ in sets]
    for band in range(bands):
        buckets: dict[bytes, list[int]] = {}
        for i in range(len(sets)):
            key = sig[i, band * rows : (band + 1) * rows].tobytes()
            members = buckets.setdefault(key, [])
            neighbours[i].update(members)
            members.append(i)
    return neighbours


def near_duplicates(
    texts: Sequence[str],
    *,
    threshold: float = 0.5,
    method: str = "ngram",
    n: int = 5,
    embed: Callable[[Sequence[str]], np.ndarray] | None = None,
) -> DedupResult:
    """Greedy near-duplicate removal: keep texts in order, drop one whose similarity to an
    already kept text is >= ``threshold``.

    ``method``: ``ngram`` (exact character n-gram Jaccard against every kept text, through
    an inverted index of n-grams), ``minhash`` (MinHash LSH proposes candidates, exact
    Jaccard confirms them; approximate, for very large pools) or ``embedding`` (cosine of
    the rows of ``embed(texts)``).
    """
    if method not in ("ngram", "minhash", "embedding"):
        raise ValueError(f"unknown similarity method {method!r}; use ngram, minhash or embedding")
    keep: list[int] = []
    removed: list[tuple[int, int, float]] = []

    def decide(i: int, best_j: int, best: float) -> None:
        if best_j >= 0 and best >= threshold:
            removed.append((i, best_j, round(best, 4)))
        else:
            keep.append(i)

    if method == "embedding":
        if embed is None:
            raise ValueError("method 'embedding' needs an embed function")
        vec = np.asarray(embed(list(texts)), dtype=float)
        vec = vec / np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12)
        for i in range(len(texts)):
            if keep:
                cos = vec[keep] @ vec[i]
                k = int(np.argmax(cos))
                decide(i, keep[k], float(cos[k]))
            else:
                decide(i, -1, -1.0)
        return DedupResult(tuple(keep), tuple(removed))

    sets = [shingles(t, n) for t in texts]
    if method == "minhash":
        neighbours = _lsh_neighbours(sets)
        kept: set[int] = set()
        for i, s in enumerate(sets):
            best_j, best = -1, -1.0
            for j in sorted(neighbours[i] & kept):
                sim = jaccard(sets[j], s)
                if sim > best:
                    best_j, best = j, sim
            decide(i, best_j, best)
            if keep and keep[-1] == i:
                kept.add(i)
        return DedupResult(tuple(keep), tuple(removed))

    postings: dict[str, list[int]] = {}
    for i, s in enumerate(sets):
        counts: dict[int, int] = {}
        for sh in s:
            for j in postings.get(sh, ()):
                counts[j] = counts.get(j, 0) + 1
        best_j, best = -1, -1.0
        for j in sorted(counts):
            inter = counts[j]
            sim = inter / (len(sets[j]) + len(s) - inter)
            if sim > best:
                best_j, best = j, sim
        if not s and not counts:
            # empty text: identical to an earlier empty text
            best_j, best = next(((j, 1.0) for j in keep if not sets[j]), (-1, -1.0))
        decide(i, best_j, best)
        if keep and keep[-1] == i:
            for sh in s:
                postings.setdefault(sh, []).append(i)
    return DedupResult(tuple(keep), tuple(removed))
