"""Plans and run-directory readers shared by the sweep tests."""

from __future__ import annotations

import json
from pathlib import Path

from socialbench.benchmarks.socialnav_sub import bundled_demo_data

#: Fields of samples.jsonl that describe the answer (latency and attempts describe the execution).
CONTENT = ("item_id", "question_key", "raw", "parsed", "parse_method", "error")


def grid_plan(tmp_path: Path, limit: int = 2, models: str = "[baseline:random, baseline:rule-based]") -> Path:
    """2 models x 2 benchmarks on the bundled data (socialnav-sim, and socialnav-sub given its
    folder) x 2 methods: 8 cells."""
    path = tmp_path / "plan.yaml"
    path.write_text(
        f"models: {models}\n"
        f"benchmarks: [socialnav-sim, {{name: socialnav-sub, data: '{bundled_demo_data()}'}}]\n"
        "axes: {method: [independent, cot]}\n"
        f"options: {{limit: {limit}, no_cache: true, no_render_cache: true}}\n"
    )
    return path


def run_dirs(root: Path) -> list[Path]:
    """Every run directory under ``root`` (a folder with run.json), sorted."""
    return sorted(p.parent for p in root.rglob("run.json"))


def answers(run_dir: Path) -> list[dict]:
    """The answer fields of every record of ``run_dir``'s samples.jsonl, in file order."""
    lines = (run_dir / "samples.jsonl").read_text().splitlines()
    return [{k: json.loads(x)[k] for k in CONTENT} for x in lines]


def sweep_answers(root: Path) -> dict[str, list[dict]]:
    """Answers of every cell, by its path below ``root``."""
    return {str(d.relative_to(root)): answers(d) for d in run_dirs(root)}
