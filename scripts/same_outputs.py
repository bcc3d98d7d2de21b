"""Behaviour fingerprint of a socialbench tree: run a fixed set of offline evals, scores and
reports, and write what they produced, minus what legitimately varies (times, paths, versions),
as one JSON document. Two trees behave the same on these inputs iff their documents are equal.

Inputs: the bundled scenes (``socialnav-sim``, ``socialnav-waypoint``), a simulated
SocialNav-SUB release (``sim socialnav``), and the tiny RobotEQ release the tests draw
(``tests/benchmarks/roboteq/roboteq_fixtures.py``). Models: the built-in baselines, the human
baselines and ``mock:first-option`` (no network, no weights).

Compared: every field of every ``samples.jsonl`` record except timings, ``metrics.json``
except timings, and the text of every report table (md, csv, tex).

Usage (the tree under test is the one on PYTHONPATH)::

    PYTHONPATH=src python scripts/same_outputs.py OUT.json
    python scripts/same_outputs.py --diff BEFORE.json AFTER.json
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Keys whose values are wall-clock measurements or locations, not behaviour.
VARYING_KEYS = re.compile(
    r"(latency|elapsed|duration|seconds|_s$|_us$|_s_per|time|created|started|finished|wall|path|dir|host|pid|version|python|platform|fingerprint_at|cache_file)",
    re.I,
)


def scrub(value: object) -> object:
    """``value`` with wall-clock and location fields dropped, recursively."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if not VARYING_KEYS.search(str(k))}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def without_time_columns(csv_text: str) -> str:
    """A CSV table without its measured-time columns (RobotEQ Table 2's seconds per query)."""
    rows = list(csv.reader(io.StringIO(csv_text)))
    if not rows:
        return csv_text
    keep = [i for i, name in enumerate(rows[0]) if "time" not in name.lower()]
    return "\n".join(",".join(row[i] for i in keep if i < len(row)) for row in rows)


def socialbench(*args: str, cwd: Path) -> None:
    cmd = [sys.executable, "-m", "socialbench", *args]
    # the runs happen in a scratch folder: a relative PYTHONPATH must keep naming the tree under test
    path = os.pathsep.join(str(Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    env = {**os.environ, "COLUMNS": "200", "PYTHONPATH": path}
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}")


def build_roboteq(root: Path) -> Path:
    sys.path.insert(0, str(REPO / "tests" / "benchmarks" / "roboteq"))
    import roboteq_fixtures  # type: ignore[import-not-found]

    return Path(roboteq_fixtures.build_release(root / "roboteq"))


def runs(work: Path) -> list[tuple[str, list[str]]]:
    roboteq = build_roboteq(work)
    sub = work / "sub_release"
    socialbench(
        "sim",
        "socialnav",
        "--out",
        str(sub),
        "--scenes",
        "6",
        "--seed",
        "3",
        "--annotators",
        "3",
        "--no-progress",
        cwd=work,
    )
    common = ["--no-progress", "--no-cache"]
    plan: list[tuple[str, list[str]]] = []
    for model in ("baseline:random", "baseline:rule-based", "human:oracle", "human:average", "mock:first-option"):
        plan.append((f"sim-{model}", ["-b", "socialnav-sim", "-m", model]))
    plan.append(("sim-rule-mirror", ["-b", "socialnav-sim", "-m", "baseline:rule-based", "--perturb", "mirror"]))
    plan.append(("sim-mock-cot", ["-b", "socialnav-sim", "-m", "mock:first-option", "--method", "cot"]))
    for model in ("baseline:random", "baseline:waypoint-nearest", "baseline:waypoint-toward-goal"):
        plan.append((f"wp-{model}", ["-b", "socialnav-waypoint", "-m", model]))
    for model in ("baseline:random", "baseline:rule-based", "human:oracle"):
        plan.append((f"sub-{model}", ["-b", "socialnav-sub", "-d", str(sub), "-m", model]))
    for extra in ([], ["--strategy", "no-image"], ["--strategy", "rag"], ["--per-behavior"], ["--strategy", "cot"]):
        name = "bj-mock" + "".join(extra).replace("--", "-")
        plan.append((name, ["-b", "roboteq-bj", "-d", str(roboteq), "-m", "mock:first-option", *extra]))
    plan.append(("bj-random", ["-b", "roboteq-bj", "-d", str(roboteq), "-m", "baseline:random"]))
    for model in ("mock:first-option", "baseline:random"):
        plan.append((f"sg-{model}", ["-b", "roboteq-sg", "-d", str(roboteq), "-m", model]))
    return [(name, [*args, *common]) for name, args in plan]


def collect(work: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    folders: dict[str, Path] = {}
    for name, args in runs(work):
        folder = work / "runs" / name.replace(":", "_")
        socialbench("eval", *args, "--out", str(folder), cwd=work)
        folders[name] = folder
        samples = [scrub(json.loads(line)) for line in (folder / "samples.jsonl").read_text().splitlines() if line]
        out[f"{name}/samples"] = samples
        out[f"{name}/metrics"] = scrub(json.loads((folder / "metrics.json").read_text()))
    groups = {
        "sim": [n for n in folders if n.startswith("sim-")],
        "wp": [n for n in folders if n.startswith("wp-")],
        "sub": [n for n in folders if n.startswith("sub-")],
        "bj": [n for n in folders if n.startswith("bj-")],
        "sg": [n for n in folders if n.startswith("sg-")],
    }
    for group, names in groups.items():
        report = work / "reports" / group
        socialbench(
            "report",
            *(str(folders[n]) for n in names),
            "--out",
            str(report),
            "-f",
            "md,csv,tex",
            "--no-plots",
            cwd=work,
        )
        for table in sorted(report.rglob("*")):
            if table.suffix in {".md", ".csv", ".tex"} and table.is_file():
                text = table.read_text().replace(str(work), "WORK")
                if table.suffix == ".csv":
                    text = without_time_columns(text)
                out[f"report-{group}/{table.relative_to(report)}"] = text
    return out


def diff(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    changed = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    for key in changed:
        print(f"differs: {key}")
    print(f"{len(a)} outputs before, {len(b)} after, {len(changed)} differ")
    return 1 if changed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--diff", action="store_true", help="compare two fingerprints")
    args = parser.parse_args()
    if args.diff:
        return diff(*args.paths)
    with tempfile.TemporaryDirectory(prefix="same_") as tmp:
        document = collect(Path(tmp))
    args.paths[0].write_text(json.dumps(document, indent=1, sort_keys=True))
    print(f"{len(document)} outputs written to {args.paths[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
