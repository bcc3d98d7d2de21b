"""BM25 retrieval over the bundled social-norm knowledge base."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

from socialbench.benchmarks.roboteq.rag import BM25, Document, Retriever, load_knowledge_base, tokenize
from socialbench.benchmarks.roboteq.validate import FACETS


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
    assert (doc.doc_id, doc.title, doc.tags, doc.text) == ("note", "Lifts", ("elevator", "doors"), "Let people out first.")


@pytest.mark.skipif(importlib.util.find_spec("bm25s") is None, reason="bm25s (optional extra rag) is not installed")
def test_bm25s_backend_gives_the_same_ranking() -> None:
    docs = load_knowledge_base()
    fast = Retriever(docs, k=3, backend="bm25s")
    slow = Retriever(docs, k=3, backend="python")
    query = "a child runs toward the hot stove in the kitchen"
    assert [d.doc_id for d in fast.retrieve(query).documents] == [d.doc_id for d in slow.retrieve(query).documents]
