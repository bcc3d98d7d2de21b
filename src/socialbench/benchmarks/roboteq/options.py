"""RobotEQ's options: the prompting strategy, its retrieval settings, and (behavior
judgment) one request per behavior."""

from __future__ import annotations

from dataclasses import dataclass

from socialbench.benchmarks.options import option, with_perturbation

STRATEGIES = ("standard", "cot", "no-image", "rag")
#: Retrievers of ``--strategy rag`` (see :mod:`socialbench.benchmarks.roboteq.rag`).
RAG_BACKENDS = ("bm25", "dense", "hybrid")
_RAG = ("strategy", "rag")


@dataclass(frozen=True)
class RobotEQOptions:
    """The options of both RobotEQ tasks (spatial grounding has no others)."""

    strategy: str = option("standard", choices=STRATEGIES, help="prompting strategy")
    rag_backend: str = option(
        "bm25",
        choices=RAG_BACKENDS,
        when=_RAG,
        detail=True,
        help="--strategy rag retriever (dense, hybrid: the dense extra)",
    )
    rag_k: int = option(2, min=1, when=_RAG, detail=True, label="k={value}", help="--strategy rag: documents per query")

    def variant(self, perturbation: str | None = None) -> str:
        """The strategy (``rag``), then the perturbation."""
        return with_perturbation(self.strategy, perturbation)


@dataclass(frozen=True)
class JudgmentOptions(RobotEQOptions):
    """Behavior judgment's options."""

    per_behavior: bool = option(False, label="per-behavior", help="judgment: one request per behavior")

    def variant(self, perturbation: str | None = None) -> str:
        """The strategy, ``-per-behavior`` with that option, then the perturbation."""
        return with_perturbation(self.strategy + ("-per-behavior" if self.per_behavior else ""), perturbation)
