"""A model that comes with another benchmark's code is refused naming the benchmarks that
run it (runner.prepare.check_model_benchmark), in a fresh process as in one that loaded every benchmark."""

import subprocess
import sys

import pytest

from socialbench.cli import main


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


def test_rule_based_on_roboteq_in_a_fresh_process_names_its_benchmarks(tmp_path):
    args = ["eval", "-b", "roboteq-bj", "-d", str(tmp_path), "-m", "baseline:rule-based", "-o", str(tmp_path / "r")]
    res = subprocess.run(
        [sys.executable, "-m", "socialbench", *args], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert res.returncode == 1 and "unknown model" not in res.stderr
    assert "baseline:rule-based is a model of socialnav-sim, socialnav-sub only" in res.stderr


def test_rule_based_on_roboteq_is_refused_after_socialnav_code_is_loaded(tmp_path, capsys):
    import socialbench.benchmarks.socialnav_sub.baselines  # noqa: F401  (registers baseline:rule-based)

    code = run_cli(
        "eval", "-b", "roboteq-sg", "-d", str(tmp_path), "-m", "baseline:rule-based", "-o", str(tmp_path / "r")
    )
    assert code == 1 and "not of -b roboteq-sg" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_a_model_of_no_benchmark_keeps_the_unknown_model_message(tmp_path, capsys):
    code = run_cli("eval", "-b", "roboteq-bj", "-d", str(tmp_path), "-m", "baseline:nothing", "-o", str(tmp_path / "r"))
    assert code == 1 and "unknown model 'baseline:nothing'" in capsys.readouterr().err
