"""Nothing scored is said in words that match the cause: a run with no answer at all is not a
data mismatch; a ``--predictions .../samples.jsonl`` that is a folder is named as a folder."""

import pytest

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.errors import UsageError


def test_no_answers_at_all_is_not_called_a_mismatch(small_socialnav):
    bench, _ = get_benchmark("socialnav-sub")
    note = bench.score(load_socialnav(small_socialnav), [], "paper").to_json()["note"]
    assert "no answers were recorded" in note and "matched" not in note


@pytest.mark.parametrize("name", ["socialnav-sub", "socialnav-waypoint", "roboteq-bj"])
def test_a_folder_named_samples_jsonl_is_named_as_a_folder(tmp_path, name):
    bench, _ = get_benchmark(name)
    (tmp_path / "samples.jsonl").mkdir()
    with pytest.raises(UsageError, match="is a folder, not a samples.jsonl file"):
        bench.read_predictions(tmp_path / "samples.jsonl")
