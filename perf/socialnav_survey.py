"""Speed and size of the SocialNav-SUB survey round trip on a release-sized dataset.

Simulates ``--scenes`` scenes (``--people`` per scene, composites from 160x90 frames; not
timed), then times, each as a wall-clock median of ``--repeats`` runs, plus the Python heap's
peak in one more run under tracemalloc:

* ``build socialnav-survey`` (:func:`export_survey`, local-files image references) and the
  size of ``tasks.json``;
* an export made by ``--annotators`` scripted annotators
  (:mod:`socialbench.testing.label_studio_survey`), its size;
* ``build socialnav-answers`` (:func:`import_answers`) into a copy of the dataset.

Usage: ``python perf/socialnav_survey.py [--scenes 60] [--people 2-11] [--annotators 5] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from socialbench.benchmarks.socialnav_sub.simulated import simulate_dataset
from socialbench.construction.socialnav_survey.export import export_survey
from socialbench.construction.socialnav_survey.write import import_answers
from socialbench.testing.label_studio_survey import fake_export, plan


def _timed(fn: Callable[[int], float | None], repeats: int) -> tuple[float, float]:
    """(median seconds of ``repeats`` plain runs, heap peak in MiB of one more run under
    tracemalloc, which slows it down). ``fn(i)`` may return its own seconds."""
    times = []
    for i in range(repeats):
        t0 = time.perf_counter()
        own = fn(i)
        times.append(own if own is not None else time.perf_counter() - t0)
    tracemalloc.start()
    fn(repeats)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return statistics.median(times), peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=60)
    ap.add_argument("--people", default="2-11")
    ap.add_argument("--annotators", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.people.split("-"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data = simulate_dataset(
            root / "data", scenes=args.scenes, seed=0, people=(lo, hi), frame_size=(160, 90), write_composites=True
        )
        info = json.loads((data / "prompts" / "sample_info.json").read_text())["samples"]
        people = sum(s["n_people"] for s in info)
        questions = 3 * len(info) + 12 * people

        def exp(i: int) -> None:
            export_survey(data, root / f"survey{i}", annotators=args.annotators)

        t_exp, m_exp = _timed(exp, args.repeats)
        tasks = json.loads((root / "survey0" / "tasks.json").read_text())
        export = root / "export.json"
        export.write_text(json.dumps(fake_export(tasks, plan(tasks, args.annotators))))

        def imp(i: int) -> float:
            copy = root / f"data{i}"
            shutil.copytree(data, copy)
            t0 = time.perf_counter()
            import_answers(copy, [export])
            return time.perf_counter() - t0

        t_imp, m_imp = _timed(imp, args.repeats)
        mib = 2**20
        print(f"dataset: {len(info)} scenes, {people} people, {questions} questions, K = {args.annotators}")
        print(
            f"build socialnav-survey : {t_exp:.3f} s, heap peak {m_exp:.1f} MiB, "
            f"tasks.json {(root / 'survey0' / 'tasks.json').stat().st_size / mib:.2f} MiB"
        )
        print(
            f"export (scripted)      : {export.stat().st_size / mib:.2f} MiB, {args.annotators * len(info)} annotations"
        )
        print(f"build socialnav-answers: {t_imp:.3f} s (copy of the dataset not counted), heap peak {m_imp:.1f} MiB")


if __name__ == "__main__":
    main()
