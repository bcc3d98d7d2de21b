"""Hostile sweep plans (issue 29): deep or alias-heavy YAML, plans that are no regular file,
huge grids, option values eval refuses, colliding cell folders, and complete-looking cells
whose answers are gone."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from socialbench.cli import main
from socialbench.errors import UsageError
from socialbench.messages import EXIT_USAGE
from socialbench.sweep.cells import SAMPLES_MISSING, previous_status
from socialbench.sweep.grid import expand
from socialbench.sweep.plan import MAX_CELLS, load_plan
from socialbench.sweep.plan_yaml import MAX_PLAN_BYTES

BASE = "models: [baseline:random]\nbenchmarks: [socialnav-sim]\n"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "plan.yaml"
    path.write_text(text)
    return path


def test_yaml_nested_50000_levels_is_refused_without_a_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + "options: {limit: " + "[" * 50_000 + "]" * 50_000 + "}\n")
    with pytest.raises(UsageError, match=r"plan\.yaml: .*nested more than"):
        load_plan(path)


def test_billion_laughs_aliases_are_refused_with_a_short_message(tmp_path: Path) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{', '.join(['*' + prev] * 9)}]")
    path = write(tmp_path, "\n".join(lines) + "\n" + BASE + "axes: {method: *i}\n")
    with pytest.raises(UsageError, match="aliases") as info:
        load_plan(path)
    assert len(str(info.value)) < 500


def test_a_few_aliases_are_read_and_a_refusal_quotes_the_value_shortened(tmp_path: Path) -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]", "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]"]
    path = write(tmp_path, "\n".join(lines) + "\n" + BASE + "axes: {method: *b}\n")
    with pytest.raises(UsageError) as info:
        load_plan(path)
    assert len(str(info.value)) < 500


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "folder", "too_large"])
def test_a_plan_that_is_no_regular_file_or_too_large_is_refused(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "plan.yaml"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_text(BASE + "#" * MAX_PLAN_BYTES + "\n")
    with pytest.raises(UsageError, match=r"plan\.yaml: cannot be read as a plan"):
        load_plan(path)


def test_a_grid_over_the_cell_limit_is_refused_before_it_is_built(tmp_path: Path) -> None:
    seeds = ", ".join(str(i) for i in range(1000))
    path = write(tmp_path, BASE + f"axes: {{seed: [{seeds}], limit: [{seeds.replace('0, ', '1, ', 1)}]}}\n")
    with pytest.raises(UsageError, match=rf"1,000,000 cells .* more than {MAX_CELLS:,}"):
        load_plan(path)


def test_dry_run_refuses_a_grid_over_the_cell_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seeds = ", ".join(str(i) for i in range(200))
    path = write(tmp_path, BASE + f"axes: {{seed: [{seeds}], top_p: [{seeds}]}}\n")
    with pytest.raises(SystemExit) as info:
        main(["sweep", str(path), "--dry-run", "--out", str(tmp_path / "sweep")])
    assert info.value.code == EXIT_USAGE and "40,000 cells" in capsys.readouterr().err


@pytest.mark.parametrize(
    "option",
    [
        "concurrency: 0",
        "concurrency: -3",
        "limit: 0",
        "max-attempts: 0",
        "timeout: -1",
        "timeout: .nan",
        "timeout: 0",
        "max-side: -1",
        "epochs: 0",
        "perturb-strength: .inf",
    ],
)
def test_option_values_eval_refuses_are_refused_in_a_plan(tmp_path: Path, option: str) -> None:
    key = option.split(":")[0]
    with pytest.raises(UsageError, match=rf"plan\.yaml: options\.{key}: must be"):
        load_plan(write(tmp_path, BASE + f"options: {{{option}}}\n"))


def test_an_axis_value_eval_refuses_is_refused_naming_the_axis(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"plan\.yaml: axes\.concurrency: must be at least 1"):
        load_plan(write(tmp_path, BASE + "axes: {concurrency: [4, 0]}\n"))


def test_a_model_concurrency_eval_refuses_is_refused(tmp_path: Path) -> None:
    text = "models: [{spec: baseline:random, concurrency: 0}]\nbenchmarks: [socialnav-sim]\n"
    with pytest.raises(UsageError, match=r"models\[0\]\.concurrency"):
        load_plan(write(tmp_path, text))


def test_eval_refuses_a_timeout_that_is_not_positive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["eval", "-b", "socialnav-sim", "-m", "baseline:random", "--timeout", "-1", "-o", str(tmp_path / "r")])
    assert info.value.code == EXIT_USAGE and "--timeout must be more than 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    "specs",
    [
        ("openai:m@http://u:secret1@127.0.0.1:9/v1", "openai:m@http://u:secret2@127.0.0.1:9/v1"),
        ("openai:m@http://127.0.0.1:9/v1?key=a", "openai:m@http://127.0.0.1:9/v1?key=b"),
        ("openai:a b@http://127.0.0.1:9/v1", "openai:a_b@http://127.0.0.1:9/v1"),
    ],
)
def test_models_that_would_share_a_folder_get_folders_of_their_own(tmp_path: Path, specs: tuple[str, str]) -> None:
    models = ", ".join(json.dumps(s) for s in specs)
    plan = load_plan(write(tmp_path, f"models: [{models}]\nbenchmarks: [socialnav-sim]\n"))
    cells = expand(plan, tmp_path / "sweep")
    assert len(cells) == 2 and cells[0].run_dir != cells[1].run_dir
    assert not any(secret in str(c.run_dir) for c in cells for secret in ("secret1", "secret2"))


def test_models_with_distinct_folders_keep_their_plain_names(tmp_path: Path) -> None:
    plan = load_plan(write(tmp_path, "models: [baseline:random, baseline:rule-based]\nbenchmarks: [socialnav-sim]\n"))
    assert sorted(c.run_dir.parent.name for c in expand(plan, tmp_path / "sweep")) == [
        "baseline_random",
        "baseline_rule-based",
    ]


def _complete_run(run_dir: Path, answered: int, samples: int | None) -> None:
    run_dir.mkdir(parents=True)
    (run_dir / "run.json").write_text(json.dumps({"status": "complete", "answered": answered}))
    if samples is not None:
        (run_dir / "samples.jsonl").write_text("{}\n" * samples)


def test_a_complete_cell_whose_samples_are_gone_is_not_done(tmp_path: Path) -> None:
    _complete_run(tmp_path / "cell", answered=3, samples=None)
    assert previous_status(tmp_path / "cell") == SAMPLES_MISSING


def test_a_complete_cell_with_fewer_samples_than_answers_is_not_done(tmp_path: Path) -> None:
    _complete_run(tmp_path / "cell", answered=3, samples=1)
    assert previous_status(tmp_path / "cell") == SAMPLES_MISSING


def test_a_complete_cell_with_its_samples_is_done(tmp_path: Path) -> None:
    _complete_run(tmp_path / "cell", answered=3, samples=3)
    assert previous_status(tmp_path / "cell") == "complete"


def test_a_run_json_that_is_a_fifo_reads_as_no_run(tmp_path: Path) -> None:
    (tmp_path / "cell").mkdir()
    os.mkfifo(tmp_path / "cell" / "run.json")
    assert previous_status(tmp_path / "cell") is None


@settings(max_examples=60, deadline=None, database=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
        max_leaves=20,
    )
)
def test_a_plan_of_any_shape_is_loaded_or_refused_with_a_usage_error(tmp_path_factory, shape: object) -> None:
    import yaml

    path = tmp_path_factory.mktemp("plan") / "plan.yaml"
    path.write_text(yaml.safe_dump(shape))
    try:
        load_plan(path)
    except UsageError as exc:
        assert str(exc).startswith(str(path))
