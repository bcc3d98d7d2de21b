"""The paper's third annotator label, ``invalid``, in a release's votes (issue 39.4): loaded
as one of the behavior's votes (never refused, never dropped), so the model's PA counts it
among the N_H annotators and the human rows count it as the paper's annotators do."""

from __future__ import annotations

import copy

import pytest

from roboteq_fixtures import JUDGMENT_ROWS
from socialbench.benchmarks.roboteq.loader import load_roboteq
from socialbench.benchmarks.roboteq.schema import TASK_BJ


def _rows(votes: object) -> list[dict]:
    rows = copy.deepcopy(JUDGMENT_ROWS)
    rows[0]["votes"] = votes
    return rows


@pytest.mark.parametrize(
    "votes",
    [
        [["proper", "proper", "invalid"], ["improper", "improper", "improper"]],
        [{"proper": 2, "Invalid": 1}, ["improper", "improper", "improper"]],
    ],
)
def test_an_invalid_vote_is_one_of_the_behaviors_votes(make_release, votes) -> None:
    item = load_roboteq(make_release(judgment=_rows(votes)), TASK_BJ, require_images=False).items[0]
    v = item.votes["b1"]
    assert v.n == 3 and v.counts() == {"proper": 2, "invalid": 1}
    assert v.probability("proper") == pytest.approx(2 / 3)


def test_a_vote_that_is_no_label_is_refused_naming_the_row(make_release, tmp_path) -> None:
    from socialbench.errors import DataError

    root = make_release(judgment=_rows([["proper", "proper", "maybe"], ["improper"] * 3]))
    with pytest.raises(DataError) as exc:
        load_roboteq(root, TASK_BJ, require_images=False)
    text = str(exc.value)
    assert "metadata.jsonl:1" in text and "'maybe' is not proper, improper or invalid" in text
