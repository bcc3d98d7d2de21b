"""Run labels name what tells runs apart (issue 30): a sweep's cells that differ by an axis
value are ``model (variant, seed 2)``, not ``model (variant) #2``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.cli import main
from socialbench.report.labels import settings_of, telling_apart
from socialbench.report.loading import expand_run_folders, load_runs

FIXTURE = Path(__file__).parent / "fixtures" / "socialnav" / "gpt4o"


def _copies(tmp_path: Path, changes: list[dict]) -> list[Path]:
    out = []
    for i, change in enumerate(changes):
        d = tmp_path / f"run{i}"
        shutil.copytree(FIXTURE, d)
        run = json.loads((d / "run.json").read_text())
        (d / "run.json").write_text(json.dumps({**run, **change}))
        out.append(d)
    return out


def test_runs_differing_by_seed_are_named_by_it(tmp_path: Path) -> None:
    runs = load_runs(_copies(tmp_path, [{"seed": 0}, {"seed": 1}, {"seed": 2}]))
    assert [r.label for r in runs] == [f"gpt-4o (seed {s})" for s in range(3)]


def test_several_settings_that_differ_are_all_named(tmp_path: Path) -> None:
    changes = [
        {"seed": 0, "image_policy": {"max_side": 512}, "generation": {"temperature": 0.7}},
        {"seed": 0, "image_policy": {"max_side": 768}, "generation": {"temperature": 0.0}},
    ]
    labels = [r.label for r in load_runs(_copies(tmp_path, changes))]
    assert labels == [
        "gpt-4o (max-side 512, temperature 0.7)",
        "gpt-4o (max-side 768, temperature 0)",
    ]


def test_runs_with_the_same_settings_keep_a_number(tmp_path: Path) -> None:
    labels = [r.label for r in load_runs(_copies(tmp_path, [{"seed": 3}, {"seed": 3}]))]
    assert labels == ["gpt-4o", "gpt-4o #2"]


def test_a_setting_only_one_run_records_reads_as_its_default() -> None:
    assert telling_apart([{"seed": 0}, {"seed": 0, "epochs": 3}]) == ["epochs 1", "epochs 3"]


def test_settings_use_the_option_names_of_eval() -> None:
    run = {"seed": 1, "model_options": {"api_key_env": "K"}, "options": {"rag_k": 5}, "perturb": {"name": "blur"}}
    assert settings_of({**run, "perturb": {"name": "blur", "strength": 2.0}}) == {
        "seed": "1",
        "api-key-env": "K",
        "rag-k": "5",
        "perturb-strength": "2",
    }


def test_a_sweep_report_names_the_seed_of_each_cell(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "models: [baseline:random]\n"
        f"benchmarks: [{{name: socialnav-sub, data: '{bundled_demo_data()}'}}]\n"
        "axes: {seed: [0, 1, 2]}\n"
        "options: {limit: 1, no_cache: true, no_render_cache: true}\n"
    )
    with pytest.raises(SystemExit) as done:
        main(["sweep", str(plan), "--out", str(tmp_path / "out")])
        raise SystemExit(0)  # main returns when every cell ran
    assert done.value.code == 0
    labels = sorted(r.label for r in load_runs(expand_run_folders([tmp_path / "out"])))
    assert labels == [f"Random (seed {s})" for s in range(3)]


def test_runs_differing_only_by_base_url_are_named_by_it(tmp_path: Path) -> None:
    # issue 41: "gpt-4o" and "gpt-4o #2" did not say what differs
    changes = [{"model": "openai:gpt-4o@http://127.0.0.1:8001/v1"}, {"model": "openai:gpt-4o@http://127.0.0.1:8002/v1"}]
    runs = load_runs(_copies(tmp_path, changes))
    assert [r.label for r in runs] == [
        "gpt-4o (url http://127.0.0.1:8001/v1)",
        "gpt-4o (url http://127.0.0.1:8002/v1)",
    ]


def test_a_base_url_in_a_label_has_its_credentials_masked(tmp_path: Path) -> None:
    changes = [{"model": "openai:gpt-4o@http://bob:hunter2@h/v1"}, {"model": "openai:gpt-4o"}]
    labels = [r.label for r in load_runs(_copies(tmp_path, changes))]
    assert labels == ["gpt-4o (url http://bob:***@h/v1)", "gpt-4o (url default)"]


def test_runs_differing_only_by_backend_are_named_by_it(tmp_path: Path) -> None:
    changes = [{"model": "openai:gpt-4o"}, {"model": "azure:gpt-4o"}]
    assert [r.label for r in load_runs(_copies(tmp_path, changes))] == [
        "gpt-4o (backend openai)",
        "gpt-4o (backend azure)",
    ]


def test_a_run_without_limit_beside_a_limit_run_reads_limit_none(tmp_path: Path) -> None:
    runs = load_runs(_copies(tmp_path, [{"limit": None}, {"limit": 1}]))
    assert [r.label for r in runs] == ["gpt-4o (limit none)", "gpt-4o (limit 1)"]
