"""``build socialnav`` on simulated recordings: track quality against the noise, and speed.

* ``quality``: for each noise scale (default 1, 2, 4 x the default :class:`BoxNoise`), a
  recording of ``--scenes`` scenes at 10 Hz is simulated and built (``--no-composites``;
  composites do not change the tracks), and the build report's ``ade_m``,
  ``recovered_share`` and ``id_switches`` are printed.
* ``speed``: a recording of ``--minutes`` minutes at 10 Hz (simulated, not timed), then
  ``socialbench build socialnav`` on it as a child process (composites written, as by
  default): wall time, source frames per second and the child's peak resident memory.

Usage: ``python perf/socialnav_build.py quality [--scenes 12] [--scales 1,2,4]``;
``python perf/socialnav_build.py speed [--minutes 10]``. Prints one JSON line per result.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from socialbench.construction.socialnav.pipeline import BuildOptions, build_socialnav
from socialbench.recording.ros_io import read_ros_recording
from socialbench.simulation.recording import BoxNoise, simulate_recording

SCENE_S = 6.2  # one simulated scene at 10 Hz lasts about this (679.6 s over 110 scenes, seed 0)


def quality(scenes: int, scales: list[float], seed: int) -> None:
    for k in scales:
        with tempfile.TemporaryDirectory() as tmp:
            rec = Path(tmp) / "rec"
            simulate_recording(rec, scenes=scenes, seed=seed, noise=BoxNoise().scaled(k))
            r = build_socialnav(
                read_ros_recording(rec / "recording.mcap"),
                rec / "boxes.txt",
                Path(tmp) / "data",
                truth_dir=rec / "truth",
                options=BuildOptions(composites=False),
            )
            keys = ("ade_m", "recovered_share", "id_switches", "false_tracks", "scenarios", "true_people_expected")
            print(json.dumps({"noise_scale": k, "scenes": scenes, **{x: r[x] for x in keys}}), flush=True)


def speed(minutes: float, seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rec = Path(tmp) / "rec"
        t0 = time.perf_counter()
        simulate_recording(rec, scenes=max(1, round(minutes * 60 / SCENE_S)), seed=seed)
        sim_s = time.perf_counter() - t0
        cmd = [
            sys.executable,
            "-m",
            "socialbench",
            "build",
            "socialnav",
            "--recording",
            str(rec / "recording.mcap"),
            "--boxes",
            str(rec / "boxes.txt"),
            "--truth",
            str(rec / "truth"),
            "--out",
            str(Path(tmp) / "data"),
        ]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        report = json.loads((Path(tmp) / "data" / "build_report.json").read_text())
        print(
            json.dumps(
                {
                    "recording_s": report["duration_s"],
                    "frames": report["frames"],
                    "scenarios": report["scenarios"],
                    "build_wall_s": round(wall, 1),
                    "frames_per_s": round(report["frames"] / wall, 1),
                    "peak_rss_mb": round(peak_kb / 1024, 1),
                    "mcap_mb": round((rec / "recording.mcap").stat().st_size / 2**20, 1),
                    "simulate_s": round(sim_s, 1),
                }
            ),
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("quality", "speed"))
    ap.add_argument("--scenes", type=int, default=12)
    ap.add_argument("--scales", default="1,2,4")
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.what == "quality":
        quality(a.scenes, [float(x) for x in a.scales.split(",")], a.seed)
    else:
        speed(a.minutes, a.seed)


if __name__ == "__main__":
    main()
