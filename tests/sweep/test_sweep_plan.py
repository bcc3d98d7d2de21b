"""Sweep plans: the schema, refusals that name the key, and the cells a plan expands to."""

from pathlib import Path

import pytest

from socialbench.errors import UsageError
from socialbench.sweep.grid import expand
from socialbench.sweep.plan import load_plan


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "plan.yaml"
    path.write_text(text)
    return path


def test_minimal_plan_expands_to_models_times_methods(tmp_path):
    plan = load_plan(
        write(
            tmp_path,
            "models: [baseline:random, baseline:rule-based]\n"
            "benchmarks: [socialnav-sim]\naxes: {method: [independent, cot]}\n",
        )
    )
    names = sorted(c.name for c in expand(plan, tmp_path / "sweep"))
    assert names == sorted(
        f"socialnav-sim/{m}/{v}-img-with-bev"
        for m in ("baseline_random", "baseline_rule-based")
        for v in ("independent", "cot")
    )


def test_cells_carry_their_axis_values_as_eval_options(tmp_path):
    plan = load_plan(write(tmp_path, "models: [baseline:random]\nbenchmarks: [socialnav-sim]\naxes: {method: [cot]}\n"))
    (cell,) = expand(plan, tmp_path / "sweep")
    assert (cell.values["method"], cell.values["out_dir"]) == ("cot", cell.run_dir)


def test_axis_not_in_the_variant_name_is_added_to_the_directory(tmp_path):
    plan = load_plan(write(tmp_path, "models: [baseline:random]\nbenchmarks: [socialnav-sim]\naxes: {seed: [0, 1]}\n"))
    assert sorted(c.run_dir.name for c in expand(plan, tmp_path)) == [
        "independent-img-with-bev-seed-0",
        "independent-img-with-bev-seed-1",
    ]


def test_dashed_option_names_are_accepted(tmp_path):
    plan = load_plan(
        write(
            tmp_path,
            "models: [baseline:random]\nbenchmarks: [socialnav-sim]\n"
            "axes: {perturb: [blur]}\noptions: {perturb-strength: 2}\n",
        )
    )
    (cell,) = expand(plan, tmp_path)
    assert cell.values["perturb_strength"] == 2.0


def test_axis_a_benchmark_refuses_refuses_the_plan_naming_the_key(tmp_path):
    path = write(
        tmp_path,
        "models: [baseline:random]\nbenchmarks: [socialnav-sim, roboteq-bj]\naxes: {method: [independent, cot]}\n",
    )
    with pytest.raises(UsageError, match=r"axes\.method='cot': roboteq-bj refuses it .*ignore_axes: \[method\]"):
        expand(load_plan(path), tmp_path)


def test_ignored_axis_runs_that_benchmark_once_at_the_default(tmp_path):
    plan = load_plan(
        write(
            tmp_path,
            "models: [baseline:random]\n"
            "benchmarks: [socialnav-sim, {name: roboteq-bj, ignore_axes: [method]}]\n"
            "axes: {method: [independent, cot]}\n",
        )
    )
    cells = expand(plan, tmp_path)
    assert sorted(c.name for c in cells if c.benchmark == "roboteq-bj") == ["roboteq-bj/baseline_random/standard"]


def test_unknown_axis_is_refused_naming_it(tmp_path):
    path = write(tmp_path, "models: [baseline:random]\nbenchmarks: [socialnav-sim]\naxes: {top_k: [0, 1]}\n")
    with pytest.raises(UsageError, match=r"plan\.yaml:3: axes\.top_k: not an option of `socialbench eval`"):
        load_plan(path)


def test_a_mistyped_axis_names_its_line_and_the_nearest_option(tmp_path):
    text = "models: [baseline:random]\nbenchmarks: [socialnav-sim]\naxes:\n  method: [cot]\n  temprature: [0, 1]\n"
    with pytest.raises(UsageError, match=r"plan\.yaml:5: axes\.temprature: .*did you mean `temperature`\?"):
        load_plan(write(tmp_path, text))


def test_a_mistyped_option_names_its_line_and_the_nearest_option(tmp_path):
    text = "models: [baseline:random]\nbenchmarks: [socialnav-sim]\noptions:\n  limti: 1\n"
    with pytest.raises(UsageError, match=r"plan\.yaml:4: options\.limti: .*did you mean `limit`\?"):
        load_plan(write(tmp_path, text))


def test_a_mistyped_plan_key_names_its_line_and_the_nearest_key(tmp_path):
    text = "models: [baseline:random]\nbenchmarks: [socialnav-sim]\naxis:\n  method: [cot]\n"
    with pytest.raises(UsageError, match=r"plan\.yaml:3: axis: unknown key; did you mean `axes`\?"):
        load_plan(write(tmp_path, text))


def test_axis_value_of_the_wrong_type_is_refused(tmp_path):
    path = write(tmp_path, "models: [baseline:random]\nbenchmarks: [socialnav-sim]\naxes: {limit: [two]}\n")
    with pytest.raises(UsageError, match=r"axes\.limit: expects an integer"):
        load_plan(path)


def test_model_given_as_an_axis_is_refused_with_the_fix(tmp_path):
    path = write(tmp_path, "models: [baseline:random]\nbenchmarks: [socialnav-sim]\naxes: {model: [mock:echo]}\n")
    with pytest.raises(UsageError, match=r"axes\.model: not an axis; list models under `models:`"):
        load_plan(path)


def test_unknown_benchmark_is_refused(tmp_path):
    path = write(tmp_path, "models: [baseline:random]\nbenchmarks: [socialnav-xyz]\n")
    with pytest.raises(UsageError, match=r"benchmarks\[0\]\.name: unknown benchmark 'socialnav-xyz'"):
        load_plan(path)


def test_yaml_syntax_error_names_the_line(tmp_path):
    path = write(tmp_path, "models: [baseline:random\nbenchmarks: [socialnav-sim]\n")
    with pytest.raises(UsageError, match=r"plan\.yaml: line \d+: not valid YAML"):
        load_plan(path)


def test_model_resources_are_read(tmp_path):
    plan = load_plan(
        write(
            tmp_path,
            "models: [{spec: baseline:rule-based, num_gpus: 1, concurrency: 8, model_opt: {noise_m: 0.1}}]\n"
            "benchmarks: [socialnav-sim]\n",
        )
    )
    (cell,) = expand(plan, tmp_path)
    assert (cell.model.num_gpus, cell.values["concurrency"], cell.values["model_opt"]) == (1.0, 8, ["noise_m=0.1"])


def test_relative_data_is_read_from_the_plan_folder(tmp_path):
    plan = load_plan(write(tmp_path, "models: [baseline:random]\nbenchmarks: [{name: socialnav-sub, data: d}]\n"))
    assert plan.benchmarks[0].data == tmp_path / "d"


def test_an_axis_written_twice_is_refused_naming_both_lines(tmp_path):
    path = write(
        tmp_path,
        "models: [baseline:random]\nbenchmarks: [socialnav-sim]\naxes:\n  method: [cot]\n  method: [independent]\n",
    )
    with pytest.raises(UsageError, match=r"plan\.yaml:5: method is written twice \(lines 4 and 5\)"):
        load_plan(path)


def test_two_spellings_of_one_option_are_refused(tmp_path):
    path = write(tmp_path, "models: [baseline:random]\nbenchmarks: [roboteq-bj]\naxes:\n  rag-k: [1]\n  rag_k: [2]\n")
    with pytest.raises(UsageError, match=r"plan\.yaml:5: axes\.rag_k: the same option as `rag-k`"):
        load_plan(path)


def test_an_option_spelled_as_a_flag_beside_its_name_is_refused(tmp_path):
    path = write(tmp_path, "models: [baseline:random]\nbenchmarks: [socialnav-sim]\noptions: {limit: 1, --limit: 2}\n")
    with pytest.raises(UsageError, match=r"options\.--limit: the same option as `limit`"):
        load_plan(path)


def test_an_unknown_model_is_refused_before_any_cell_runs(tmp_path):
    path = write(tmp_path, "models: [baselin:random]\nbenchmarks: [socialnav-sim]\n")
    with pytest.raises(UsageError, match=r"plan\.yaml:1: models\[0\]: unknown model 'baselin:random'; did you mean"):
        load_plan(path)


def test_a_model_opt_key_the_backend_does_not_read_is_refused_naming_the_nearest(tmp_path):
    text = "models:\n  - spec: baseline:rule-based\n    model_opt: {nois_m: 1}\nbenchmarks: [socialnav-sim]\n"
    path = write(tmp_path, text)
    with pytest.raises(UsageError, match=r"plan\.yaml:3: models\[0\]: model_opt 'nois_m' .*did you mean 'noise_m'"):
        load_plan(path)


def test_a_model_url_without_a_host_is_refused_in_the_plan(tmp_path):
    path = write(tmp_path, 'models: ["openai:gpt-4o@http://"]\nbenchmarks: [socialnav-sim]\n')
    with pytest.raises(UsageError, match=r"models\[0\]: .*names no host"):
        load_plan(path)
