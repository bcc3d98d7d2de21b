"""Nothing socialbench prints can drive the terminal: a run.json label with escape sequences
stays inert in report, compare and score (matplotlib's glyph warnings quoted it raw), and so
do log records and library warnings that reach stderr without a handler."""

import json
import shutil
import subprocess
import sys

import pytest

from socialbench.cli import main

EVIL = "baseline:ev\x1b[2J\x1b]0;owned\x07il"


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


def socialbench(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "socialbench", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


@pytest.fixture(scope="module")
def evil_runs(small_socialnav, tmp_path_factory):
    root = tmp_path_factory.mktemp("inert")
    args = ["eval", "-b", "socialnav-sub", "-d", str(small_socialnav), "-m", "baseline:random"]
    assert run_cli(*args, "-o", str(root / "a"), "--no-progress", "--no-cache") == 0
    shutil.copytree(root / "a", root / "b")
    for name in ("a", "b"):
        run = json.loads((root / name / "run.json").read_text())
        run["model"] = EVIL + name
        (root / name / "run.json").write_text(json.dumps(run))
    return root


@pytest.mark.parametrize(
    "command",
    [["report", "a", "-o", "rep"], ["compare", "a", "b"], ["score", "-b", "socialnav-sub", "-p", "a", "-o", "sc"]],
    ids=["report", "compare", "score"],
)
def test_a_label_with_escape_sequences_reaches_no_terminal(evil_runs, small_socialnav, command):
    if command[0] == "score":
        command = [*command, "-d", str(small_socialnav)]
    res = socialbench(*command, cwd=evil_runs)
    assert res.returncode == 0, res.stderr
    assert "\x1b" not in res.stdout and "\x1b" not in res.stderr and "\x07" not in res.stderr


def test_log_records_and_warnings_without_a_handler_are_inert(tmp_path):
    code = (
        "import logging, warnings\n"
        "from socialbench.messages import install_inert_stderr\n"
        "install_inert_stderr()\n"
        "logging.getLogger('socialbench.x').warning('server said \\x1b[2J')\n"
        "warnings.warn('label \\x1b]0;t\\x07')\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert "server said \\x1b[2J" in res.stderr and "label \\x1b]0;t\\x07" in res.stderr
    assert "\x1b" not in res.stderr and "\x07" not in res.stderr
