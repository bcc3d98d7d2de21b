"""The AIMD concurrency limit (runner/aimd.py)."""

from socialbench.runner.aimd import AimdLimit


def test_a_timeout_halves_the_limit():
    limit = AimdLimit(16)
    number = limit.sent()
    assert limit.timed_out(number) and limit.limit == 8


def test_timeouts_of_attempts_sent_together_cut_once():
    limit = AimdLimit(16)
    numbers = [limit.sent() for _ in range(16)]
    cuts = [limit.timed_out(n) for n in numbers]
    assert cuts.count(True) == 1 and limit.limit == 8


def test_an_attempt_sent_after_a_cut_can_cut_again():
    limit = AimdLimit(16)
    limit.timed_out(limit.sent())
    limit.timed_out(limit.sent())
    assert (limit.limit, limit.cuts) == (4, 2)


def test_the_limit_never_goes_below_one():
    limit = AimdLimit(4)
    for _ in range(5):
        limit.timed_out(limit.sent())
    assert (limit.limit, limit.lowest, limit.cuts) == (1, 1, 2)


def test_answers_raise_the_limit_by_about_one_per_limits_worth():
    limit = AimdLimit(16)
    limit.timed_out(limit.sent())  # 8
    for _ in range(8):
        limit.answered()
    assert 8.9 < limit.value < 9.1  # 8 answers of +1/limit each: one slot back


def test_answers_never_raise_the_limit_above_what_was_asked():
    limit = AimdLimit(3)
    for _ in range(100):
        limit.answered()
    assert limit.as_dict() == {"asked": 3, "lowest": 3, "end": 3, "cuts": 0}
