"""Start-up time of the command line: ``socialbench --help`` and ``import`` of the eval path.

Times, ``--repeats`` times each and interleaved (so machine load hits all alike), as fresh
processes:

* ``socialbench --help`` (``python -m socialbench --help``, output discarded), which
  ``socialbench/__main__.py`` prints from ``socialbench/command_index.py`` without importing
  typer, rich or the command line;
* ``socialbench eval --help`` (the eval flags come from every registered benchmark's options);
* ``import socialbench.cli`` plus building an ``openai:`` model (what ``eval`` pays before its
  first request), and whether that imported the ``openai`` SDK.

With ``--compare-src DIR`` the same commands run from another checkout's ``src`` (e.g. an
older commit: ``git archive COMMIT | tar -x -C DIR``; pass ``DIR/src``) in the same loop.
Prints min / median / max seconds.

Usage: ``python perf/cli_startup.py [--repeats 15] [--compare-src DIR/src]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

EVAL_PATH = (
    "import sys, socialbench.cli\n"
    "from socialbench.models.registry import ModelOptions, create_model\n"
    "create_model('openai:m@http://127.0.0.1:9/v1', ModelOptions())\n"
    "import socialbench.runner.run\n"
    "print('openai' in sys.modules)\n"
)


def timed(cmd: list[str], src: Path | None) -> tuple[float, str]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    env["COLUMNS"] = "100"
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return time.perf_counter() - t0, res.stdout.strip().splitlines()[-1] if res.stdout.strip() else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--compare-src", type=Path)
    args = ap.parse_args()
    trees: list[tuple[str, Path | None]] = [("this tree", None)]
    if args.compare_src is not None:
        trees.append((f"{args.compare_src}", args.compare_src.resolve()))
    checks = [
        ("socialbench --help", [sys.executable, "-m", "socialbench", "--help"]),
        ("socialbench eval --help", [sys.executable, "-m", "socialbench", "eval", "--help"]),
        ("eval path imports + openai model", [sys.executable, "-c", EVAL_PATH]),
    ]
    walls: dict[tuple[str, str], list[float]] = {}
    sdk: dict[str, str] = {}
    for _ in range(args.repeats):
        for tree, src in trees:
            for name, cmd in checks:
                wall, last = timed(cmd, src)
                walls.setdefault((tree, name), []).append(wall)
                if name.startswith("eval"):
                    sdk[tree] = last
    print(f"{os.cpu_count()} cores · {args.repeats} interleaved repeats · seconds min / median / max")
    for (tree, name), values in walls.items():
        extra = f" · imports the openai SDK: {sdk.get(tree)}" if name.startswith("eval") else ""
        print(f"{tree:30} {name:34} {min(values):6.3f} {statistics.median(values):6.3f} {max(values):6.3f}{extra}")


if __name__ == "__main__":
    main()
