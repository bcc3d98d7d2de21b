"""Ctrl-C at any moment of `socialbench eval`: exit 130, no traceback, run.json "interrupted"."""

import json
import signal
import subprocess
import sys
import time

import pytest

from socialbench.runner.interrupts import CtrlC
from socialbench.testing.openai_server import ScriptedOpenAIServer

if not hasattr(signal, "SIGKILL"):
    pytest.skip("POSIX signals", allow_module_level=True)


def eval_args(data, out, url):
    return [
        "eval",
        "--benchmark",
        "socialnav-sub",
        "--data",
        str(data),
        "--model",
        f"openai:test-model@{url}",
        "--out",
        str(out),
        "--no-cache",
        "--no-progress",
        "--concurrency",
        "4",
        "--timeout",
        "10",
    ]


#: First line of the child programs below: Ctrl-C as in a terminal. A test run started in the
#: background by a non-interactive shell (`make test &`, some CI runners) ignores SIGINT, and
#: children inherit that; the command line rightly keeps an ignored SIGINT ignored.
_AS_IN_A_TERMINAL = "signal.signal(signal.SIGINT, signal.default_int_handler)\n"


def run_with_ctrl_c_at(hook, args, cwd):
    """Run the command line with Ctrl-C (SIGINT to itself) delivered from inside ``hook``,
    a ``module:Class.method`` of the start-up path: deterministic, whatever the machine speed."""
    module, _, attr = hook.partition(":")
    cls, _, method = attr.partition(".")
    code = (
        "import importlib, os, signal, sys\n"
        f"{_AS_IN_A_TERMINAL}"
        f"cls = getattr(importlib.import_module({module!r}), {cls!r})\n"
        f"real = getattr(cls, {method!r})\n"
        "def hooked(*a, **k):\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    return real(*a, **k)\n"
        f"setattr(cls, {method!r}, hooked)\n"
        "sys.argv[0] = 'socialbench'\n"
        "from socialbench.__main__ import main\n"
        "main()\n"
    )
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_ctrl_c_while_loading_the_dataset_exits_130_without_traceback(small_socialnav, tmp_path):
    res = run_with_ctrl_c_at(
        "socialbench.benchmarks.socialnav_sub.benchmark:SocialNavSub.load",
        # no dataset snapshot, which an earlier run on this data may have left: the folder loads
        [*eval_args(small_socialnav, tmp_path / "run", "http://127.0.0.1:9/v1"), "--no-render-cache"],
        tmp_path,
    )
    assert res.returncode == 130 and "Traceback" not in res.stderr


def test_ctrl_c_after_run_json_is_written_marks_it_interrupted(small_socialnav, tmp_path):
    with ScriptedOpenAIServer() as srv:
        res = run_with_ctrl_c_at(
            "socialbench.runner.progress:RunProgress.__enter__",
            eval_args(small_socialnav, tmp_path / "run", srv.base_url),
            tmp_path,
        )
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert res.returncode == 130 and "Traceback" not in res.stderr and run["status"] == "interrupted"


def test_ctrl_c_after_every_question_is_answered_leaves_the_run_complete(small_socialnav, tmp_path):
    with ScriptedOpenAIServer() as srv:
        res = run_with_ctrl_c_at(
            "socialbench.runner.store:RunStore.compact",
            eval_args(small_socialnav, tmp_path / "run", srv.base_url),
            tmp_path,
        )
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert res.returncode == 0 and "Traceback" not in res.stderr and run["status"] == "complete"


def test_ctrl_c_while_python_imports_the_command_line_exits_130(tmp_path):
    code = (
        "import os, signal, sys\n"
        f"{_AS_IN_A_TERMINAL}"
        "class CtrlCOnImport:\n"  # Ctrl-C arrives while typer is being imported
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'typer':\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "        return None\n"
        "sys.meta_path.insert(0, CtrlCOnImport())\n"
        "from socialbench.__main__ import main\n"
        "main()\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code, "models"], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert res.returncode == 130 and "Traceback" not in res.stderr


def test_second_ctrl_c_exits_130_without_traceback(small_socialnav, tmp_path):
    out = tmp_path / "run"
    with ScriptedOpenAIServer(delay_s=0.05) as srv:
        proc = subprocess.Popen(
            [sys.executable, "-m", "socialbench", *eval_args(small_socialnav, out, srv.base_url)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        samples = out / "samples.jsonl"
        while not (samples.exists() and samples.read_text().count("\n") >= 5):
            assert proc.poll() is None, "run ended before 5 answers"
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        first = proc.stderr.readline()  # the run says it is stopping: Ctrl-C was taken
        proc.send_signal(signal.SIGINT)
        rest = proc.stderr.read()
        proc.wait(timeout=60)
    run = json.loads((out / "run.json").read_text())
    assert "stopping" in first
    assert proc.returncode == 130 and "Traceback" not in rest and run["status"] == "interrupted"


def test_first_ctrl_c_cancels_the_attached_task_and_the_third_quits():
    import asyncio

    quits = []

    async def run_until_cancelled(guard):
        guard.attach()
        signal.raise_signal(signal.SIGINT)
        await asyncio.sleep(30)

    with CtrlC(lambda: quits.append(True)) as guard:
        with pytest.raises(asyncio.CancelledError):
            asyncio.run(run_until_cancelled(guard))
        signal.raise_signal(signal.SIGINT)
        assert quits == []  # the second Ctrl-C lets the saving finish
        signal.raise_signal(signal.SIGINT)
    assert quits == [True] and guard.count == 3
