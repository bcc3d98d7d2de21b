"""Retrieval of social-norm documents for the ``rag`` strategy (RobotEQ §6, Table 2).

The knowledge base is the Markdown files in ``roboteq/knowledge/`` (written for
socialbench): one per social facet, one per scene category, Hall's proxemic zones and
general HRI etiquette. A file starts with ``# Title``; an optional ``tags:`` line adds
retrieval keywords; the rest is the text put into the prompt.

Ranking is Okapi BM25 in its Lucene form. For query terms ``q`` and document ``d``::

    idf(t)   = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
    score(d) = sum_{t in q} idf(t) * tf(t, d) * (k1 + 1)
                             / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))

with ``k1 = 1.5``, ``b = 0.75``, ``N`` documents, ``df(t)`` documents containing ``t``,
``|d|`` the document length in tokens and ``avgdl`` the mean length. Title and tags count
as document text. A repeated query term counts once per occurrence. Ties keep knowledge
base order; documents with score 0 are never returned.

``bm25s`` (optional extra ``socialbench[rag]``) computes the same scores when installed and
is used then; the pure-Python implementation here is the fallback and the reference. Both
use :func:`tokenize` (lower-case words of letters/digits, English stop words removed, a
light plural/-ing/-ed suffix stripping).
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

__all__ = [
    "Document",
    "Retrieval",
    "BM25",
    "Retriever",
    "tokenize",
    "load_knowledge_base",
    "default_retriever",
    "KNOWLEDGE_DIR",
]

KNOWLEDGE_DIR = Path(__file__).resolve().parent / "knowledge"

_STOP = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto over under
    is are was were be been being am do does did done have has had having it its this that
    these those there here as not no nor so than too very can could should would will shall
    may might must you your yours i me my we our ours he him his she her they them their
    what which who whom whose when where why how all any each both few more most other some
    such only own same just also about above after again against before below between
    during out off up down further once while until because through""".split()
)


def _stem(word: str) -> str:
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + keep
    return word


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens without stop words, lightly stemmed."""
    return [_stem(w) for w in re.findall(r"[a-z0-9]+", text.casefold()) if w not in _STOP and len(w) > 1]


@dataclass(frozen=True)
class Document:
    doc_id: str  # file stem, e.g. "facet-privacy"
    title: str
    text: str  # body put into the prompt
    tags: tuple[str, ...] = ()

    @property
    def index_text(self) -> str:
        return " ".join([self.title, " ".join(self.tags), self.text])


def _parse_document(path: Path) -> Document:
    lines = path.read_text(encoding="utf-8").splitlines()
    title = path.stem
    tags: tuple[str, ...] = ()
    body: list[str] = []
    for line in lines:
        if line.startswith("# ") and title == path.stem and not body:
            title = line[2:].strip()
        elif line.casefold().startswith("tags:") and not tags:
            tags = tuple(t.strip() for t in line.split(":", 1)[1].split(",") if t.strip())
        else:
            body.append(line)
    return Document(path.stem, title, "\n".join(body).strip(), tags)


def load_knowledge_base(folder: Path | None = None) -> tuple[Document, ...]:
    """Documents of ``folder`` (default: the bundled knowledge base), sorted by file name."""
    folder = folder or KNOWLEDGE_DIR
    docs = tuple(_parse_document(p) for p in sorted(folder.glob("*.md")))
    if not docs:
        raise FileNotFoundError(f"no knowledge documents (*.md) in {folder}")
    return docs


class BM25:
    """Pure-Python Okapi BM25 (Lucene idf) over pre-tokenised documents."""

    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.tfs = [Counter(doc) for doc in corpus]
        self.lengths = [len(doc) for doc in corpus]
        self.n = len(corpus)
        self.avgdl = (sum(self.lengths) / self.n) if self.n else 0.0
        df: Counter[str] = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        self.idf = {t: math.log(1 + (self.n - c + 0.5) / (c + 0.5)) for t, c in df.items()}

    def scores(self, query: Sequence[str]) -> list[float]:
        out = []
        for tf, dl in zip(self.tfs, self.lengths):
            norm = self.k1 * (1 - self.b + self.b * dl / self.avgdl) if self.avgdl else self.k1
            s = 0.0
            for t in query:
                f = tf.get(t, 0)
                if f:
                    s += self.idf[t] * f * (self.k1 + 1) / (f + norm)
            out.append(s)
        return out


class _BM25S:
    """The same scores through the ``bm25s`` package (sparse matrices)."""

    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75):
        import bm25s  # optional extra

        self._model = bm25s.BM25(k1=k1, b=b, method="lucene", idf_method="lucene")
        self._model.index([list(doc) for doc in corpus], show_progress=False)
        self._vocab = self._model.vocab_dict

    def scores(self, query: Sequence[str]) -> list[float]:
        known = [t for t in query if t in self._vocab]
        if not known:
            return [0.0] * self._model.scores["num_docs"]
        return [float(x) for x in self._model.get_scores(known)]


@dataclass(frozen=True)
class Retrieval:
    """Documents retrieved for one query and the time it took."""

    documents: tuple[Document, ...]
    scores: tuple[float, ...]
    seconds: float


class Retriever:
    """Top-``k`` BM25 retrieval over a knowledge base.

    ``backend``: ``"auto"`` (bm25s when importable, else pure Python), ``"python"`` or
    ``"bm25s"``. The backend in use is :attr:`backend`.
    """

    def __init__(self, documents: Sequence[Document], k: int = 2, backend: str = "auto"):
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        self.documents = tuple(documents)
        self.k = k
        corpus = [tokenize(d.index_text) for d in self.documents]
        self.backend = "python"
        self._index: BM25 | _BM25S = BM25(corpus)
        if backend in ("auto", "bm25s"):
            try:
                fast = _BM25S(corpus)
                probe = [t for doc in corpus[:3] for t in doc[:5]]
                reference = self._index.scores(probe)
                if all(abs(a - b) <= 1e-3 * max(1.0, abs(b)) for a, b in zip(fast.scores(probe), reference)):
                    self._index = fast  # same scores as the reference implementation
                    self.backend = "bm25s"
                elif backend == "bm25s":
                    raise RuntimeError("bm25s scores differ from the reference BM25; use backend='python'")
            except Exception:  # not installed, or an incompatible version
                if backend == "bm25s":
                    raise
        elif backend != "python":
            raise ValueError(f"unknown BM25 backend {backend!r}; use auto, python or bm25s")

    def retrieve(self, query: str) -> Retrieval:
        t0 = time.perf_counter()
        scores = self._index.scores(tokenize(query))
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        top = [i for i in order[: self.k] if scores[i] > 0]
        seconds = time.perf_counter() - t0
        return Retrieval(tuple(self.documents[i] for i in top), tuple(scores[i] for i in top), seconds)


@lru_cache(maxsize=4)
def default_retriever(k: int = 2) -> Retriever:
    """The bundled knowledge base, indexed once per process."""
    return Retriever(load_knowledge_base(), k=k)
