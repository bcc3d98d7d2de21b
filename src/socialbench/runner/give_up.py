"""When a run stops sending to a backend that keeps failing (a circuit breaker; docs/models.md).

Failed attempts are counted in *rounds*: a failure opens a new round only when its attempt
was sent after the previous round's failure came back, so the requests that were in flight
together (and fail together) count once, however high ``--concurrency`` is. When
``rounds`` rounds in a row failed with retryable errors (of any kinds: a dead backend mixes
500s, timeouts and connection errors) and no attempt was answered in between, the breaker opens: the engine sends nothing more in this session and records
every question still to ask as ``gave_up``, which a resumed run asks again. As with
:mod:`socialbench.runner.aimd`, counting by send order, not by clock, keeps this
independent of machine speed.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class GiveUp:
    """The run-level give-up rule: ``rounds`` rounds of failures with no answer (0: never)."""

    rounds: int
    #: The kind of the latest failure in a row, and how many rounds and failed attempts they span.
    kind: str | None = None
    kinds: dict[str, int] = field(default_factory=dict)
    streak: int = 0
    failures: int = 0
    #: Set once the breaker opened: what it saw (run.json's ``engine.gave_up``).
    opened: dict[str, object] = field(default_factory=dict)
    _mark: int = 0  # attempts sent when the streak last grew by a round

    @property
    def is_open(self) -> bool:
        """Whether the run gave up (nothing more is sent)."""
        return bool(self.opened)

    def failed(self, attempt_number: int, sent: int, kind: str, message: str) -> bool:
        """Attempt ``attempt_number`` (its place in send order) failed with the retryable
        ``kind``, with ``sent`` attempts sent so far; True when the breaker opens now."""
        if self.rounds <= 0 or self.is_open:
            return False
        self.kind = kind
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        self.failures += 1
        if self.streak == 0 or attempt_number > self._mark:
            self.streak += 1
            self._mark = sent
        if self.streak < self.rounds:
            return False
        self.opened = {
            "kind": kind,
            "kinds": dict(self.kinds),
            "rounds": self.streak,
            "failed_attempts": self.failures,
            "last_error": message,
        }
        return True

    def answered(self) -> None:
        """An attempt was answered (or refused for a reason of its own): the server lives."""
        if not self.is_open:
            self.kind, self.streak, self.failures, self.kinds = None, 0, 0, {}
