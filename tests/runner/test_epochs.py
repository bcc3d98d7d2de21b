"""``eval --epochs N``: N seeded run directories and their mean ± SE across epochs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from socialbench.runner.epochs import combine_metrics, run_epochs


def test_numbers_are_averaged_and_standard_errors_are_across_epochs():
    out = combine_metrics([{"PA": 0.4, "PA_se": 0.01, "n": 10}, {"PA": 0.6, "PA_se": 0.01, "n": 10}])
    assert out["PA"] == pytest.approx(0.5) and out["n"] == 10
    assert out["PA_se"] == pytest.approx(0.1)  # std([0.4, 0.6], ddof=1) / sqrt(2)


def test_value_and_se_pairs_are_combined_the_same_way():
    out = combine_metrics([{"macro_f1": {"value": 0.2, "se": 0.5}}, {"macro_f1": {"value": 0.4, "se": 0.5}}])
    assert out["macro_f1"] == pytest.approx({"value": 0.3, "se": 0.1})


def test_text_is_kept_when_every_epoch_agrees_and_dropped_otherwise():
    out = combine_metrics([{"benchmark": "b", "note": "x"}, {"benchmark": "b", "note": "y"}])
    assert out == {"benchmark": "b", "note": None}


@dataclass
class FakeResult:
    metrics: dict
    interrupted: bool = False
    complete: bool = True


def fake_epoch(calls: list, interrupt_at: int = 0):
    def one(epoch: int, seed: int, run_dir: Path) -> FakeResult:
        calls.append((epoch, seed, run_dir.name))
        run_dir.mkdir(parents=True)
        status = "interrupted" if epoch == interrupt_at else "complete"
        (run_dir / "run.json").write_text(json.dumps({"model": "m", "status": status, "seed": seed}))
        return FakeResult({"scores": {"PA": 0.1 * epoch}, "run": {}}, interrupted=epoch == interrupt_at)

    return one


def test_each_epoch_gets_its_own_seed_and_folder(tmp_path):
    calls: list = []
    run_epochs(tmp_path / "out", 3, 7, fake_epoch(calls))
    assert calls == [(1, 7, "epoch-1"), (2, 8, "epoch-2"), (3, 9, "epoch-3")]


def test_the_combined_run_is_written_next_to_the_epochs(tmp_path):
    run_epochs(tmp_path / "out", 2, 0, fake_epoch([]))
    m = json.loads((tmp_path / "out" / "metrics.json").read_text())
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert m["scores"]["PA"] == pytest.approx(0.15) and len(m["epochs"]["per_epoch"]) == 2
    assert (run["epochs"], run["seeds"], run["status"]) == (2, [0, 1], "complete")


def test_an_interrupted_epoch_stops_the_rest(tmp_path):
    calls: list = []
    res = run_epochs(tmp_path / "out", 3, 0, fake_epoch(calls, interrupt_at=2))
    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert len(calls) == 2 and res.interrupted and run["status"] == "interrupted"


def test_cli_epochs_write_one_run_per_epoch(tmp_path):
    from socialbench.cli import main

    main(
        [
            "eval",
            "-b",
            "socialnav-sim",
            "-m",
            "baseline:random",
            "--limit",
            "1",
            "--epochs",
            "2",
            "--out",
            str(tmp_path / "r"),
            "--no-progress",
            "--no-cache",
            "--no-render-cache",
        ]
    )
    per_epoch = json.loads((tmp_path / "r" / "metrics.json").read_text())["epochs"]["per_epoch"]
    seeds = [json.loads((tmp_path / "r" / f"epoch-{e}" / "run.json").read_text())["seed"] for e in (1, 2)]
    assert len(per_epoch) == 2 and seeds == [0, 1]


def test_epochs_into_a_single_runs_folder_are_refused_and_it_is_kept(tmp_path):
    from socialbench.errors import UsageError

    out = tmp_path / "out"
    out.mkdir()
    (out / "samples.jsonl").write_text("{}\n")
    (out / "run.json").write_text('{"status": "complete"}')
    with pytest.raises(UsageError):
        run_epochs(out, 2, 0, fake_epoch([]))
    assert (out / "run.json").read_text() == '{"status": "complete"}'
