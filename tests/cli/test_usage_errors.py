"""Command-line usage errors end in a usage message and exit 1, never in a traceback, with or
without the ``click`` package installed (typer 0.29 vendors click and no longer installs it)."""

import importlib.util
import subprocess
import sys

import pytest

# typer >= 0.29 vendors click (typer._click) and no longer installs it: there the command line
# runs with `import click` failing, as on a fresh install. Older typer imports click itself.
TYPER_VENDORS_CLICK = importlib.util.find_spec("typer._click") is not None
WITHOUT_CLICK = (
    "import sys; sys.modules['click'] = None; " if TYPER_VENDORS_CLICK else "import sys; "
) + "sys.argv[0] = 'socialbench'; from socialbench.__main__ import main; main()"

USAGE_ERRORS = {
    "missing --model (and --data)": ["eval", "-b", "roboteq-bj"],
    "unknown option": ["eval", "--bogus"],
    "missing --kind": ["build", "annotate", "export", "-w", "work"],
}


def run_without_click(args, cwd):
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_CLICK, *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


@pytest.mark.parametrize("args", USAGE_ERRORS.values(), ids=USAGE_ERRORS.keys())
def test_usage_error_without_click_exits_one_without_traceback(args, tmp_path):
    res = run_without_click(args, tmp_path)
    assert res.returncode == 1, res.stderr
    assert "Traceback" not in res.stderr and "Usage:" in res.stderr


def test_the_wrapper_blocks_click_where_typer_vendors_it(tmp_path):
    res = subprocess.run(
        [sys.executable, "-c", WITHOUT_CLICK.replace("sys.argv[0]", "import click; sys.argv[0]")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert ("ModuleNotFoundError" in res.stderr) == TYPER_VENDORS_CLICK


def test_usage_error_names_the_missing_option(tmp_path):
    res = run_without_click(USAGE_ERRORS["missing --kind"], tmp_path)
    assert "--kind" in res.stderr


def test_an_error_naming_a_long_path_is_one_line(tmp_path):
    deep = tmp_path.joinpath(*["a-folder-name-that-is-rather-long"] * 6) / "missing data"
    res = run_without_click(["data", "validate", "-b", "socialnav-sub", "-d", str(deep)], tmp_path)
    assert res.returncode == 1
    assert f"--data {deep} does not exist" in res.stderr.splitlines()[0]


def test_a_malformed_model_opt_is_echoed_without_url_credentials(tmp_path):
    res = run_without_click(
        ["eval", "-b", "socialnav-sim", "-m", "baseline:random", "--model-opt", "http://u:hunter2@h/v1"], tmp_path
    )
    assert res.returncode == 1 and "--model-opt takes KEY=VALUE" in res.stderr
    assert "hunter2" not in res.stderr
