"""The agreement protocols of SocialNav-SUB as objects: ``paper`` and ``official`` (with
``official-gemini``, which reads replies as the official Gemini path does).

A protocol decides, for one :class:`~socialbench.metrics.agreement.ScoringEntry`, which
answer the model gave, how the model and the two human baselines score on the item (the
equations and the official code's behaviour: :mod:`socialbench.metrics.agreement`), and
which standard error the aggregates use: the sample std (ddof=1) for ``paper``
(:class:`PaperProtocol`), the population std (ddof=0) for ``official``
(:class:`OfficialProtocol`). An answer is *valid* (for failure rates) only when it names a
choice under the protocol's matching rules. A protocol is chosen once from its name
(:func:`protocol_named`) where the name enters (command line, ``run.json``,
``metrics.json``) and passed down as the object.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

from socialbench.errors import UsageError
from socialbench.metrics.agreement import (
    ItemScore,
    ScoringEntry,
    cwpa_paper,
    pa_paper,
    paper_item_scores,
)
from socialbench.metrics.official_agreement import (
    official_item_scores,
    official_match,
    official_parse,
    official_parse_gemini,
)
from socialbench.types import Answer

__all__ = [
    "ScoringProtocol",
    "PaperProtocol",
    "OfficialProtocol",
    "PAPER",
    "OFFICIAL",
    "OFFICIAL_GEMINI",
    "OfficialGeminiProtocol",
    "PROTOCOL_NAMES",
    "UnknownProtocolError",
    "protocol_named",
    "as_protocol",
    "ProtocolArg",
]

#: What every :meth:`ScoringProtocol.item_scores` maps: the model and the two human rows.
ItemScores = dict[str, ItemScore]


class UnknownProtocolError(UsageError, ValueError):
    """A protocol name that is none of :data:`PROTOCOL_NAMES` (a usage error)."""


@dataclass(frozen=True)
class ScoringProtocol(ABC):
    """How one protocol reads an answer and scores an item (see the module docstring)."""

    #: The name used on the command line and in ``metrics.json``.
    name: ClassVar[str]
    #: ddof of the standard deviation in every SE = std / sqrt(n) under this protocol.
    se_ddof: ClassVar[int]

    def __str__(self) -> str:
        return self.name

    @abstractmethod
    def valid_answer(self, entry: ScoringEntry) -> Answer | None:
        """The choice ``entry``'s answer names, or ``None`` (invalid answer or failed call)."""

    @abstractmethod
    def item_scores(self, entry: ScoringEntry) -> ItemScores:
        """PA / CWPA of ``"model"``, ``"human:average"`` and ``"human:oracle"`` on ``entry``.

        Raises ``ValueError`` when the votes cannot be scored (no answers, n <= 1 where the
        human baseline needs n >= 2, an answer outside the choices under ``official``).
        """

    @abstractmethod
    def model_score(self, entry: ScoringEntry) -> ItemScore | None:
        """PA / CWPA of the model alone on ``entry``, or ``None`` where the protocol leaves
        it undefined (``official``: fewer than 2 human answers)."""


@dataclass(frozen=True)
class PaperProtocol(ScoringProtocol):
    """Eq. 1 / Eq. 2 of the paper; invalid answers and failed calls score 0; ddof=1."""

    name: ClassVar[str] = "paper"
    se_ddof: ClassVar[int] = 1

    def valid_answer(self, entry: ScoringEntry) -> Answer | None:
        """``question.canonical(parsed)`` (order-insensitive multiple select)."""
        if entry.error is not None:
            return None
        return entry.question.canonical(entry.parsed)

    def item_scores(self, entry: ScoringEntry) -> ItemScores:
        """Eq. 1 and 2 for the model, the exact leave-one-out average human and the mode."""
        return paper_item_scores(entry.votes, self.valid_answer(entry), entry.question.key)

    def model_score(self, entry: ScoringEntry) -> ItemScore:
        """Eq. 1 and 2 of the model's answer (0 for an invalid answer or a failed call)."""
        answer = self.valid_answer(entry)
        return ItemScore(pa_paper(entry.votes, answer), cwpa_paper(entry.votes, answer))


@dataclass(frozen=True)
class OfficialProtocol(ScoringProtocol):
    """The official postprocessing (reference §e, §9); ddof=0. Replies are read as the
    official GPT path reads them: strict ``json.loads`` of the whole reply (the GPT wrapper
    returns the text unchanged), so a reply in a Markdown fence is ``INVALID``."""

    name: ClassVar[str] = "official"
    se_ddof: ClassVar[int] = 0
    #: How the official code reads a reply, in words (the report's notes).
    reading: ClassVar[str] = (
        "replies read as the official GPT path reads them (json.loads of the whole reply: "
        "a reply in a Markdown fence or with text around its JSON is INVALID)"
    )

    @staticmethod
    def parse(raw: str) -> object:
        """The official answer of reply text ``raw`` (:func:`official_parse`)."""
        return official_parse(raw)

    def answer_value(self, entry: ScoringEntry) -> object:
        """What the official code reads: :meth:`parse` of the raw text when it is known,
        else the stored ``parsed`` value (e.g. an official ``"INVALID"``)."""
        return self.parse(entry.raw) if entry.raw is not None else entry.parsed

    def valid_answer(self, entry: ScoringEntry) -> Answer | None:
        """:func:`~socialbench.metrics.official_agreement.official_match` of the value: an invalid
        answer is ``None`` here (a failure), not the first choice."""
        if entry.error is not None:
            return None
        return official_match(entry.question, self.answer_value(entry))

    def item_scores(self, entry: ScoringEntry) -> ItemScores:
        """:func:`~socialbench.metrics.official_agreement.official_item_scores`; a failed call scores
        0 for the model (the official code never sees one)."""
        scores = official_item_scores(entry.question, entry.votes, self.answer_value(entry))
        if entry.error is not None:
            scores["model"] = ItemScore(0.0, 0.0)
        return scores

    def model_score(self, entry: ScoringEntry) -> ItemScore | None:
        if entry.votes.n <= 1:
            return None
        return self.item_scores(entry)["model"]


@dataclass(frozen=True)
class OfficialGeminiProtocol(OfficialProtocol):
    """The official postprocessing with replies read as the official Gemini (and LLaVA)
    path reads them: the greedy ``{.*}`` (regex) match of the reply, then ``json.loads``
    (:func:`official_parse_gemini`). Everything else is :class:`OfficialProtocol`'s."""

    name: ClassVar[str] = "official-gemini"
    reading: ClassVar[str] = (
        "replies read as the official Gemini/LLaVA path reads them (the first '{' to the last '}' "
        "of the reply, then json.loads: a fenced reply is read)"
    )

    @staticmethod
    def parse(raw: str) -> object:
        """:func:`official_parse_gemini`."""
        return official_parse_gemini(raw)


PAPER = PaperProtocol()
OFFICIAL = OfficialProtocol()
OFFICIAL_GEMINI = OfficialGeminiProtocol()
_BY_NAME: dict[str, ScoringProtocol] = {p.name: p for p in (PAPER, OFFICIAL, OFFICIAL_GEMINI)}
#: The protocol names, default first.
PROTOCOL_NAMES: tuple[str, ...] = tuple(_BY_NAME)


def protocol_named(name: str) -> ScoringProtocol:
    """The protocol called ``name``; :class:`UnknownProtocolError` (a usage error and a
    ``ValueError``) listing the known names otherwise."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise UnknownProtocolError(f"unknown protocol {name!r}; use one of {', '.join(PROTOCOL_NAMES)}") from None


#: A protocol object or its name; functions that take one convert it once, at their top.
ProtocolArg = ScoringProtocol | str


def as_protocol(protocol: ProtocolArg) -> ScoringProtocol:
    """``protocol`` itself, or the protocol of that name (see :func:`protocol_named`)."""
    return protocol if isinstance(protocol, ScoringProtocol) else protocol_named(protocol)
