"""Core value types that flow through an evaluation run: ``Benchmark.load`` -> :class:`Item`
-> :class:`Request` -> model -> :class:`Outcome` -> parser -> :class:`SampleRecord` (one line
of ``samples.jsonl``) -> metrics.

A single-choice answer is the option string, a multiple-select one a tuple of option strings;
*canonical* answers list the options in the question's order without duplicates (a raw
answer is kept as given: the ``official`` protocol needs the given order).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Literal, TypeAlias, TypedDict

#: A canonical answer: the option string, or the chosen options of a multiple-select question.
Answer: TypeAlias = str | tuple[str, ...]
#: A parsed reply as recorded: the option string, the options of a multiple-select answer (a
#: list as parsed and as read back from JSON, a tuple when canonical), or None (invalid/failed).
ParsedAnswer: TypeAlias = str | list[str] | tuple[str, ...] | None
QuestionKind = Literal["single", "multi"]


@lru_cache(maxsize=256)
def ordered_subsets(options: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """All non-empty subsets of ``options``, by size then in option order: for 3 options the
    7 choices of SocialNav-SUB's multiple-select question, (a), (b), (c), (a, b), ..., (a, b, c)."""
    out: list[tuple[str, ...]] = []
    for size in range(1, len(options) + 1):
        out.extend(itertools.combinations(options, size))
    return tuple(out)


@dataclass(frozen=True)
class Question:
    """One question asked about one item (for SocialNav-SUB: one sample, maybe one person)."""

    key: str  # full key, e.g. "q_person_action_p3"
    base_key: str  # e.g. "q_person_action"
    category: str  # e.g. "Social reasoning"
    kind: QuestionKind
    text: str  # rendered question text, e.g. "Person 3 is most likely ____ the robot."
    options: tuple[str, ...]
    person: int | None = None
    depends_on: tuple[str, ...] = ()  # full keys of earlier questions (CoT)
    instruction_block: str = ""  # name of the instruction block in the prompt bank

    @property
    def choices(self) -> tuple[Answer, ...]:
        """The answer space: options, or the ordered non-empty subsets for multi-select."""
        if self.kind == "multi":
            return ordered_subsets(self.options)
        return self.options

    def canonical(self, answer: object) -> Answer | None:
        """Canonical form of ``answer`` for this question, or ``None`` if it is not valid.

        Multi-select answers are matched order-insensitively (the ``paper`` protocol): a
        string is a one-element selection, a list is a set of options.
        """
        if self.kind == "single":
            return answer if isinstance(answer, str) and answer in self.options else None
        if isinstance(answer, str):
            answer = [answer]
        if not isinstance(answer, (list, tuple)) or not answer:
            return None
        if not all(isinstance(a, str) and a in self.options for a in answer):
            return None
        chosen = set(answer)
        return tuple(o for o in self.options if o in chosen)


@dataclass(frozen=True)
class HumanVotes:
    """Distribution of human answers to one question.

    ``answers`` are canonical answers; ``probabilities`` are count / n for each. Answers
    not listed have probability 0.
    """

    answers: tuple[Answer, ...]
    probabilities: tuple[float, ...]
    n: int

    def probability(self, answer: Answer | None) -> float:
        if answer is None:
            return 0.0
        for a, p in zip(self.answers, self.probabilities):
            if a == answer:
                return p
        return 0.0

    def counts(self) -> dict[Answer, int]:
        """Integer vote counts, recovered as round(p * n)."""
        return {a: int(round(p * self.n)) for a, p in zip(self.answers, self.probabilities)}

    def mode(self, choices: Sequence[Answer]) -> Answer:
        """The most common answer; ties go to the earliest choice (official behaviour)."""
        best = max(self.probabilities)
        for c in choices:
            if self.probability(c) == best:
                return c
        return self.answers[self.probabilities.index(best)]


@dataclass(frozen=True)
class Item:
    """One unit of a benchmark (a SocialNav-SUB sample, a RobotEQ scene)."""

    item_id: str
    questions: tuple[Question, ...]
    votes: Mapping[str, HumanVotes]  # question key -> human answer distribution
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def question(self, key: str) -> Question:
        for q in self.questions:
            if q.key == key:
                return q
        raise KeyError(f"{self.item_id}: no question {key!r}")


@dataclass(frozen=True)
class EncodedImage:
    """An image ready to send: encoded bytes plus what the image policy did to it."""

    data: bytes
    mime: str  # "image/jpeg" or "image/png"
    width: int
    height: int

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @cached_property
    def b64(self) -> str:
        """Base64 text of the bytes, computed once (every question of a sample sends it)."""
        return base64.b64encode(self.data).decode("ascii")


#: Reasoning effort levels ``--reasoning-effort`` accepts (OpenAI's ``reasoning_effort``
#: values; ``none`` asks a model that can switch its reasoning off to do so).
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
#: The token limit of a backend that must send one when the run sets none (SocialNav-SUB
#: sends the API no limit, as the official harness does; local generation needs one).
FALLBACK_MAX_TOKENS = 1024


class GenerationSettings(TypedDict, total=False):
    """The decoding settings a run sets, in this order (:meth:`GenerationConfig.settings`;
    run.json's ``generation``)."""

    max_tokens: int
    temperature: float
    top_p: float
    reasoning_effort: str
    json_mode: bool


@dataclass(frozen=True)
class GenerationConfig:
    """Decoding settings; part of the cache key.

    A sampling setting that is ``None`` is not sent: the server's (provider's) default
    applies. ``max_tokens`` None: no limit is sent (a backend that must send one uses
    :meth:`max_tokens_or`). ``seed`` tells runs apart (each epoch has its own, so the cache
    does not answer one epoch from another) and seeds local samplers; API backends do not
    send it unless asked (``--model-opt send_seed=true``).
    """

    max_tokens: int | None = 1024
    temperature: float | None = 0.0
    json_mode: bool = True
    seed: int | None = None
    top_p: float | None = None
    #: One of :data:`REASONING_EFFORTS`, or None (not sent; the model's default).
    reasoning_effort: str | None = None

    def max_tokens_or(self, default: int | None = None) -> int:
        """``max_tokens``, or (when none is set) ``default``, else :data:`FALLBACK_MAX_TOKENS`:
        for backends that must give a limit (local generation, Anthropic's API)."""
        if self.max_tokens is not None:
            return self.max_tokens
        return FALLBACK_MAX_TOKENS if default is None else default

    @property
    def deterministic(self) -> bool:
        """Greedy decoding was asked for (temperature 0): repeated runs give the same answers."""
        return self.temperature == 0

    def settings(self) -> GenerationSettings:
        """The settings that are set (None ones left out), as run.json and reports show them.

        >>> GenerationConfig(max_tokens=None, temperature=None).settings()
        {'json_mode': True}
        """
        out: GenerationSettings = {}
        if self.max_tokens is not None:
            out["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            out["temperature"] = self.temperature
        if self.top_p is not None:
            out["top_p"] = self.top_p
        if self.reasoning_effort is not None:
            out["reasoning_effort"] = self.reasoning_effort
        out["json_mode"] = self.json_mode
        return out


@dataclass(frozen=True)
class Request:
    """One model call. ``item`` and ``question`` let baselines answer without a prompt; they
    are context, not part of the request identity (see :meth:`fingerprint`)."""

    prompt: str
    images: tuple[EncodedImage, ...] = ()
    config: GenerationConfig = GenerationConfig()
    system: str | None = None
    item: Item | None = field(default=None, compare=False, repr=False)
    question: Question | None = field(default=None, compare=False, repr=False)

    def fingerprint(self) -> str:
        """SHA-256 over the prompt, the system text, image bytes and generation settings."""
        return self._fingerprint

    @cached_property
    def _fingerprint(self) -> str:  # computed once: the cache key and the record both need it
        h = hashlib.sha256()
        h.update(b"system\0" + (self.system or "").encode())
        h.update(b"\0prompt\0" + self.prompt.encode())
        for img in self.images:
            h.update(b"\0image\0" + img.sha256.encode())
        c = self.config
        h.update(f"\0cfg\0{c.max_tokens}|{c.temperature}|{c.json_mode}|{c.seed}".encode())
        if c.top_p is not None:  # unset: the key of runs made before these settings existed
            h.update(f"|top_p={c.top_p}".encode())
        if c.reasoning_effort is not None:
            h.update(f"|reasoning_effort={c.reasoning_effort}".encode())
        return h.hexdigest()


@dataclass(frozen=True)
class Usage:
    """Token counts of one reply. ``reasoning_tokens`` are the part of ``completion_tokens``
    a reasoning model spent thinking (OpenAI's
    ``usage.completion_tokens_details.reasoning_tokens``; billed as completion tokens)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0

    def as_dict(self) -> dict[str, int]:
        """The counts; ``reasoning_tokens`` only when there are some."""
        out = {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}
        if self.reasoning_tokens:
            out["reasoning_tokens"] = self.reasoning_tokens
        return out


@dataclass(frozen=True)
class Generation:
    """What a model returns for a request when it succeeds: the answer ``text`` (what the
    answer parser reads) and, for a reasoning model whose reply shows its thinking, that
    ``reasoning`` apart (kept in the record, never parsed)."""

    text: str
    usage: Usage = Usage()
    reasoning: str | None = None
    #: Why the reply ended, as the server said it (OpenAI's ``finish_reason``: ``stop``,
    #: ``length`` = cut off at the token limit; Anthropic's ``stop_reason``: ``end_turn``,
    #: ``max_tokens``); None when the backend does not say.
    finish_reason: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What the engine returns for a request: text or an error kind, never both."""

    text: str | None
    error: str | None  # None, or an error kind such as "timeout", "rate_limit", "refusal"
    error_message: str | None = None
    latency_s: float = 0.0
    usage: Usage = Usage()
    attempts: int = 1
    cached: bool = False
    #: The reply's reasoning section, apart from ``text`` (:attr:`Generation.reasoning`).
    reasoning: str | None = None
    #: :attr:`Generation.finish_reason` of the reply (None: not said, a failure, or cached).
    finish_reason: str | None = None
    #: The error kind of each failed attempt before the last, in order (why it was retried).
    retry_causes: tuple[str, ...] = ()


#: Finish reasons that say the reply was cut off at the token limit (OpenAI's, Anthropic's).
TRUNCATED_FINISH_REASONS = frozenset({"length", "max_tokens"})


class _RecordFields(TypedDict):
    item_id: str
    question_key: str
    request_hash: str | None
    raw: str | None
    parsed: str | list[str] | None
    parse_method: str | None
    error: str | None
    error_message: str | None
    latency_s: float
    usage: dict[str, int]
    attempts: int
    cached: bool


class SampleRecordJson(_RecordFields, total=False):
    """One line of ``samples.jsonl`` as :meth:`SampleRecord.to_json` writes it: every field
    above, then these only when set."""

    extra: dict[str, object]
    reasoning: str
    finish_reason: str
    truncated: bool
    retry_causes: list[str]


@dataclass(frozen=True)
class SampleRecord:
    """One line of ``samples.jsonl``: one answered (or failed) question."""

    item_id: str
    question_key: str
    raw: str | None
    parsed: ParsedAnswer
    parse_method: str | None  # "json", "strict", "lenient", "human-mode", or None
    error: str | None
    latency_s: float
    usage: dict[str, int]
    request_hash: str | None = None
    error_message: str | None = None
    attempts: int = 0
    cached: bool = False
    #: What a benchmark records beside the answer (the waypoint task: the item's candidates);
    #: written as ``"extra"`` only when set, so other records keep their bytes.
    extra: Mapping[str, Any] | None = field(default=None, compare=False)
    #: A reasoning model's thinking, kept apart from ``raw`` (which the parser read); written
    #: as ``"reasoning"`` only when the reply had a reasoning section.
    reasoning: str | None = None
    #: Why the reply ended (:attr:`Generation.finish_reason`); written when known, with
    #: ``"truncated": true`` when the reply was cut off at the token limit.
    finish_reason: str | None = None
    #: The error kind of each failed attempt before the last (``timeout``, ``rate_limit``,
    #: ...), in order; written as ``"retry_causes"`` only when there were retries.
    retry_causes: tuple[str, ...] = ()

    @property
    def truncated(self) -> bool:
        """The reply was cut off at the token limit (``finish_reason`` ``length``, or
        Anthropic's ``max_tokens``): its answer may be missing or partial."""
        return self.finish_reason in TRUNCATED_FINISH_REASONS

    def to_json(self) -> SampleRecordJson:
        out: SampleRecordJson = {
            "item_id": self.item_id,
            "question_key": self.question_key,
            "request_hash": self.request_hash,
            "raw": self.raw,
            "parsed": list(self.parsed) if isinstance(self.parsed, tuple) else self.parsed,
            "parse_method": self.parse_method,
            "error": self.error,
            "error_message": self.error_message,
            "latency_s": self.latency_s,
            "usage": dict(self.usage),
            "attempts": self.attempts,
            "cached": self.cached,
        }
        if self.extra is not None:
            out["extra"] = dict(self.extra)
        if self.reasoning is not None:
            out["reasoning"] = self.reasoning
        if self.finish_reason is not None:
            out["finish_reason"] = self.finish_reason
            if self.truncated:
                out["truncated"] = True
        if self.retry_causes:
            out["retry_causes"] = list(self.retry_causes)
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SampleRecord:
        return cls(
            item_id=d["item_id"],
            question_key=d["question_key"],
            raw=d.get("raw"),
            parsed=d.get("parsed"),
            parse_method=d.get("parse_method"),
            error=d.get("error"),
            latency_s=float(d.get("latency_s") or 0.0),
            usage=dict(d.get("usage") or {}),
            request_hash=d.get("request_hash"),
            error_message=d.get("error_message"),
            attempts=int(d.get("attempts") or 0),
            cached=bool(d.get("cached", False)),
            extra=d["extra"] if isinstance(d.get("extra"), Mapping) else None,
            reasoning=d["reasoning"] if isinstance(d.get("reasoning"), str) else None,
            finish_reason=d["finish_reason"] if isinstance(d.get("finish_reason"), str) else None,
            retry_causes=tuple(str(k) for k in d.get("retry_causes") or ()),
        )
