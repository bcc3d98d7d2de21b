"""How many requests the engine keeps in flight when a server is too slow: additive
increase, multiplicative decrease (AIMD, as TCP's congestion control; docs/models.md).

A timeout (or a 429 / overload: the engine's ``SLOW_DOWN_KINDS``) halves the limit (retries would only queue behind what the server is still
working on); each answer raises it by ``1 / limit``, back up to ``--concurrency``. Only an
attempt sent after the last cut can cut again, so a burst of simultaneous timeouts halves
the limit once; counting by send order, not by clock, keeps this independent of machine speed.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class AimdLimit:
    """The limit on requests in flight: starts at ``ceiling``, never below ``floor``."""

    ceiling: int
    floor: int = 1
    value: float = 0.0
    #: Times the limit was halved, and the lowest it went.
    cuts: int = 0
    lowest: int = 0
    _sent: int = 0  # attempts sent so far
    _cut_at: int = 0  # attempts sent when the limit was last cut

    def __post_init__(self) -> None:
        self.ceiling = max(1, self.ceiling)
        self.floor = max(1, min(self.floor, self.ceiling))
        self.value = float(self.ceiling)
        self.lowest = self.ceiling

    @property
    def limit(self) -> int:
        """Requests allowed in flight now."""
        return max(self.floor, int(self.value))

    @property
    def sent_count(self) -> int:
        """Attempts sent so far."""
        return self._sent

    def sent(self) -> int:
        """Count an attempt as sent; returns its number, for :meth:`timed_out`."""
        self._sent += 1
        return self._sent

    def timed_out(self, attempt_number: int) -> bool:
        """Attempt ``attempt_number`` (from :meth:`sent`) timed out: halve the limit unless
        the limit was cut after that attempt was sent. True when it was cut."""
        if attempt_number <= self._cut_at:
            return False
        self._cut_at = self._sent
        new = max(self.floor, self.limit // 2)
        if new == self.limit and self.value == float(new):
            return False
        self.value = float(new)
        self.cuts += 1
        self.lowest = min(self.lowest, new)
        return True

    def answered(self) -> None:
        """An attempt was answered: raise the limit by ``1 / limit``, up to the ceiling."""
        self.value = min(float(self.ceiling), self.value + 1.0 / max(1.0, self.value))

    def as_dict(self) -> dict[str, int]:
        """run.json's record: the limit asked for, the lowest it went, where it ended, cuts."""
        return {"asked": self.ceiling, "lowest": self.lowest, "end": self.limit, "cuts": self.cuts}
