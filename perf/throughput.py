"""SocialNav-SUB throughput: socialbench against the ideal bound and a bare client loop.

One command, one table. For each dataset kind it runs, interleaved (so machine load hits all
of them alike) and ``--repeats`` times, each as its own process:

* ``socialbench cold``   — ``socialbench eval`` with an empty render cache (first run: every
  image rendered, the data folder parsed and checked);
* ``socialbench cached`` — the same eval again, on the render cache the cold run filled
  (its images, and the snapshot of the loaded dataset:
  :mod:`socialbench.runner.load_snapshot`);
* ``bare loop``          — the fastest honest client we could write: images prepared on every
  core (the same renderer, at the size sent, no cache), each image's JSON part built once,
  request bodies spliced as bytes and posted over one aiohttp session with the same
  concurrency, each sample's questions sent as soon as its images are ready; no records,
  no scoring;
* ``floor (one body)``   — the first sample's request body, built once, posted as many
  times as there are questions at the same concurrency (its eval wall runs from the first
  post to the last answer): what the server and the loopback cost per request on this
  machine, for any client. No client can do better than this row;
* ``other checkout``     — with ``--compare-src``: another checkout's ``socialbench eval``
  (e.g. an earlier commit) with an empty render cache, like the cold row.

The scripted server elides image text before parsing bodies (see
:func:`socialbench.testing.openai_server.elide_inline_images`): a real model server
decodes images on its own machine, not on the client's.

Every run sends the full protocol (``independent`` method, every question) to
``python -m socialbench.testing.openai_server`` on 127.0.0.1, which answers after
``--delay-ms``. The response cache is off, so every question is a request. Two walls per
run, both against the ideal bound questions × delay / concurrency:

* **eval** — for socialbench, ``run_eval``: loading the data, images, requests, scoring and
  writing the run folder (the span the issue first measured, in-process); for the bare
  loop, loading the data to the last answer;
* **process** — the whole process: interpreter start, imports, command-line parsing, the
  eval, and exit (socialbench is run as ``socialbench eval`` through a small driver that
  also reports the eval wall).

Memory is sampled from /proc every 20 ms (Linux only): peak RSS of the main process, and the peak of the summed PSS (shared pages counted
once) of the main process plus its image workers and their fork server.

Dataset kinds (both generated here with :func:`write_synthetic_dataset`):

* ``release`` — release-sized: 60 samples, 399 people, 1280×720 raw JPEG frames, tracks and
  odometry in the release layout, **no** pre-rendered composites (socialbench renders them);
* ``light``   — the light fixture: 320×180 frames with pre-rendered 160×250 composites.

With ``--zero-delay`` the server answers at once and the table adds socialbench (cached)
against the bare loop in questions per second.

Usage: ``python perf/throughput.py [--kinds release,light] [--repeats 3] [--delay-ms 200]
[--concurrency 64] [--zero-delay]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

BENCH_MODEL = "bench-model"


# --------------------------------------------------------------------------- data


def make_data(kind: str, root: Path) -> Path:
    from socialbench.benchmarks.socialnav_sub.synthetic import fixture_people_counts, write_synthetic_dataset

    people = fixture_people_counts(60, 399)
    if kind == "light":
        return write_synthetic_dataset(root / "light", n_samples=60, people=people, seed=0)
    data = write_synthetic_dataset(root / "release", n_samples=60, people=people, seed=0, frame_size=(1280, 720))
    for png in data.glob("prompts/*/sample_with_bev_*.png"):
        png.unlink()  # the release-sized kind ships raw frames only: socialbench renders
    return data


# --------------------------------------------------------------------------- server


class Server:
    """The scripted server in its own process, so it does not share the clients' GIL."""

    def __init__(self, delay_ms: int):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "socialbench.testing.openai_server", "--port", "0", "--delay-ms", str(delay_ms)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if not line.startswith("READY "):
            raise RuntimeError(f"server did not start: {line!r}")
        self.url = line.split(" ", 1)[1]

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


# --------------------------------------------------------------------------- measuring


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _pss_kib(pid: int) -> int:
    """Proportional set size: shared pages (the workers share the fork server's imports)
    split between the processes that share them, so a sum over processes counts them once."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return _rss_kib(pid)


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.extend(int(c) for c in f.read().split())
    except OSError:
        pass
    return out


def timed_process(cmd: list[str], src: Path | None = None) -> dict[str, Any]:
    """Run ``cmd`` (with ``src`` first on PYTHONPATH); its wall time and peak RSS (main
    process; main plus descendants)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak = {"main": 0, "tree": 0}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            main = _rss_kib(proc.pid)
            tree, todo = _pss_kib(proc.pid), _children(proc.pid)
            while todo:
                c = todo.pop()
                tree += _pss_kib(c)
                todo.extend(_children(c))
            peak["main"] = max(peak["main"], main)
            peak["tree"] = max(peak["tree"], tree)
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - t0
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} ... failed ({proc.returncode}):\n{stderr[-2000:]}")
    evals = [float(line.split()[1]) for line in stdout.splitlines() if line.startswith("EVAL_WALL ")]
    return {
        "wall_s": wall,
        "eval_s": evals[-1] if evals else float("nan"),
        "rss_main_mib": peak["main"] / 1024,
        "rss_tree_mib": peak["tree"] / 1024,
        "stdout": stdout,
    }


def socialbench_cmd(data: Path, url: str, concurrency: int, out: Path, render_cache: Path | None) -> list[str]:
    """``socialbench eval`` (through :func:`_eval_driver`, which also times ``run_eval``)
    with the render cache in ``render_cache`` (None: the command's default)."""
    cmd = [
        sys.executable,
        __file__,
        "--eval-driver",
        "eval",
        "-b",
        "socialnav-sub",
        "-d",
        str(data),
        "-m",
        f"openai:{BENCH_MODEL}@{url}",
        "--concurrency",
        str(concurrency),
        "--no-cache",
        "--no-progress",
        "-o",
        str(out),
        "--timeout",
        "60",
        "--max-attempts",
        "3",
    ]
    return cmd + (["--render-cache", str(render_cache)] if render_cache is not None else [])


def bare_cmd(data: Path, url: str, concurrency: int) -> list[str]:
    return [sys.executable, __file__, "--bare", str(data), url, str(concurrency)]


def _eval_driver(argv: list[str]) -> None:
    """``socialbench ARGV`` as the command line runs it, printing on its last stdout line
    ``EVAL_WALL <s>``: the wall time of ``run_eval`` (load, images, requests, scoring and
    writing the run folder), the span the issue's targets were first measured on; the
    caller times the whole process as well."""
    import socialbench.runner.run as run_module

    inner = run_module.run_eval
    spans: dict[str, float] = {}

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spans["eval"] = time.perf_counter() - t0

    run_module.run_eval = timed  # the command line imports run_eval when it runs
    # The `socialbench` command's own entry point (its collector settings included); this
    # driver imported runner.run before it, at Python's default collector threshold, which
    # can only make the process wall longer.
    from socialbench.__main__ import main as entry_main

    sys.argv = ["socialbench", *argv]
    try:
        entry_main()
    finally:
        if "eval" in spans:
            print(f"EVAL_WALL {spans['eval']:.4f}", flush=True)


# --------------------------------------------------------------------------- the bare loop


def _bare_images(metadata: dict[str, Any], composites_ok: bool) -> list[str]:
    """One sample's images as ready JSON content parts (runs in a worker process)."""
    import base64

    from PIL import Image

    from socialbench.navigation.render import render_sample
    from socialbench.vision.images import ImagePolicy, prepare_image

    policy = ImagePolicy()
    if composites_ok:
        imgs = []
        for p in metadata["composites"]:
            with Image.open(p) as im:
                im.load()
                imgs.append(prepare_image(im, policy))
    else:
        imgs = [prepare_image(im, policy) for im in render_sample(metadata, max_side=policy.max_side)]
    return [
        json.dumps(
            {"type": "image_url", "image_url": {"url": f"data:{e.mime};base64," + base64.b64encode(e.data).decode()}}
        )
        for e in imgs
    ]


#: The chat-completions parameters socialbench sends for SocialNav-SUB (as the official
#: harness: no sampling setting or token limit; asking for a streamed reply, which the
#: scripted server answers whole), as the start of a JSON object.
_BODY_HEAD = json.dumps(
    {
        "model": BENCH_MODEL,
        "response_format": {"type": "json_object"},
        "stream": True,
        "stream_options": {"include_usage": True},
    }
)[:-1]


def _request_body(text_part: str, image_parts: str) -> bytes:
    """A request body from a text content part's JSON and ``,<part>,<part>...`` images."""
    return (_BODY_HEAD + ',"messages":[{"role":"user","content":[' + text_part + image_parts + "]}]}").encode()


async def _bare_main(data: Path, url: str, concurrency: int) -> int:
    from concurrent.futures import ProcessPoolExecutor

    import aiohttp

    from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
    from socialbench.benchmarks.socialnav_sub.prompts import build_prompt

    t0 = time.perf_counter()
    ds = load_socialnav(data, require_images=True)
    loop = asyncio.get_running_loop()
    sem = asyncio.Semaphore(concurrency)
    answered = 0
    conn = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(
        connector=conn, headers={"Content-Type": "application/json", "Authorization": "Bearer EMPTY"}
    ) as session:

        async def post(text: str, images: str) -> None:
            nonlocal answered
            async with sem:  # the body is built when a slot is free: ~0.5 MB each
                body = _request_body(text, images)
                async with session.post(url + "/chat/completions", data=body) as resp:
                    reply = await resp.json(content_type=None)
            json.loads(reply["choices"][0]["message"]["content"] or "{}")
            answered += 1

        async def sample(item: Any, pool: ProcessPoolExecutor) -> None:
            ok = all(Path(p).exists() for p in item.metadata["composites"])
            parts = await loop.run_in_executor(pool, _bare_images, dict(item.metadata), ok)
            images = "," + ",".join(parts)
            await asyncio.gather(
                *(
                    post(json.dumps({"type": "text", "text": build_prompt(ds.bank, q, None)}), images)
                    for q in item.questions
                )
            )

        with ProcessPoolExecutor(os.cpu_count() or 1) as pool:
            await asyncio.gather(*(sample(item, pool) for item in ds.items))
    print(f"EVAL_WALL {time.perf_counter() - t0:.4f}", flush=True)  # load to last answer
    return answered


async def _floor_main(data: Path, url: str, concurrency: int) -> int:
    """The floor: one ready request body (the first sample's images and first question)
    posted as many times as the dataset has questions, at the same concurrency, timed from
    the first post to the last answer. No loading, images, records or scoring in that span:
    what the server and the loopback take per request on this machine, for any client."""
    import aiohttp

    from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
    from socialbench.benchmarks.socialnav_sub.prompts import build_prompt

    ds = load_socialnav(data, require_images=True)
    item = ds.items[0]
    ok = all(Path(p).exists() for p in item.metadata["composites"])
    images = ",".join(_bare_images(dict(item.metadata), ok))
    text = json.dumps({"type": "text", "text": build_prompt(ds.bank, item.questions[0], None)})
    body = _request_body(text, "," + images)
    sem = asyncio.Semaphore(concurrency)
    answered = 0
    async with aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=concurrency), headers={"Content-Type": "application/json"}
    ) as session:

        async def post() -> None:
            nonlocal answered
            async with sem, session.post(url + "/chat/completions", data=body) as resp:
                await resp.read()
            answered += 1

        t0 = time.perf_counter()
        await asyncio.gather(*(post() for _ in range(ds.n_questions)))
        print(f"EVAL_WALL {time.perf_counter() - t0:.4f}", flush=True)
    return answered


def floor_cmd(data: Path, url: str, concurrency: int) -> list[str]:
    return [sys.executable, __file__, "--floor", str(data), url, str(concurrency)]


# --------------------------------------------------------------------------- the table


def _stats(values: list[float]) -> str:
    return f"{min(values):7.2f} {statistics.median(values):7.2f} {max(values):7.2f}"


def run_kind(
    kind: str,
    data: Path,
    tmp: Path,
    delay_ms: int,
    concurrency: int,
    repeats: int,
    n_questions: int,
    compare_src: Path | None = None,
) -> list[dict[str, Any]]:
    rows: dict[str, list[dict[str, Any]]] = {
        "socialbench cold": [],
        "socialbench cached": [],
        "bare loop": [],
        "floor (one body)": [],
    }
    if compare_src is not None:
        rows["other checkout"] = []
    with Server(delay_ms) as srv:
        for r in range(repeats):
            cache = tmp / f"renders-{kind}-{r}"
            jobs = [
                (
                    "socialbench cold",
                    lambda: socialbench_cmd(data, srv.url, concurrency, tmp / f"run-{kind}-{r}-cold", cache),
                ),
                (
                    "socialbench cached",
                    lambda: socialbench_cmd(data, srv.url, concurrency, tmp / f"run-{kind}-{r}-cached", cache),
                ),
                ("bare loop", lambda: bare_cmd(data, srv.url, concurrency)),
            ]
            # the cached run needs the cold one before it; the bare loop moves around them
            order = [jobs[0], jobs[1]]
            order.insert(r % 3, jobs[2])
            order.insert((r + 2) % 4, ("floor (one body)", lambda: floor_cmd(data, srv.url, concurrency)))
            if compare_src is not None:
                order.insert(
                    (r + 1) % 4,
                    (
                        "other checkout",
                        lambda: socialbench_cmd(
                            data, srv.url, concurrency, tmp / f"run-{kind}-{r}-other", tmp / f"renders-{kind}-{r}-other"
                        ),
                    ),
                )
            for name, cmd in order:
                res = timed_process(cmd(), compare_src if name == "other checkout" else None)
                rows[name].append(res)
                print(f"  [{kind}] repeat {r + 1}/{repeats} {name}: {res['wall_s']:.2f} s", file=sys.stderr, flush=True)
            shutil.rmtree(cache, ignore_errors=True)
    ideal = n_questions * delay_ms / 1000 / concurrency
    out = []
    for name, results in rows.items():
        walls = [x["wall_s"] for x in results]
        evals = [x["eval_s"] for x in results]
        out.append(
            {
                "data": kind,
                "runner": name,
                "delay_ms": delay_ms,
                "questions": n_questions,
                "ideal_s": ideal,
                "wall_s": walls,
                "ratio": [w / ideal for w in walls],
                "eval_s": evals,
                "eval_ratio": [w / ideal for w in evals],
                "rss_main_mib": [x["rss_main_mib"] for x in results],
                "rss_tree_mib": [x["rss_tree_mib"] for x in results],
            }
        )
    return out


def run_zero_delay(
    kind: str, data: Path, tmp: Path, concurrency: int, repeats: int, n_questions: int
) -> list[dict[str, Any]]:
    cache = tmp / f"renders-{kind}-zero"
    sb, bare = [], []
    with Server(0) as srv:
        timed_process(
            socialbench_cmd(data, srv.url, concurrency, tmp / f"run-{kind}-zero-warm", cache)
        )  # fill the cache
        for r in range(repeats):
            pair = [
                ("sb", socialbench_cmd(data, srv.url, concurrency, tmp / f"run-{kind}-zero-{r}", cache)),
                ("bare", bare_cmd(data, srv.url, concurrency)),
            ]
            for name, cmd in pair if r % 2 == 0 else pair[::-1]:
                res = timed_process(cmd)
                (sb if name == "sb" else bare).append(res["wall_s"])
                print(
                    f"  [{kind}, 0 ms] repeat {r + 1}/{repeats} {name}: {res['wall_s']:.2f} s",
                    file=sys.stderr,
                    flush=True,
                )
    shutil.rmtree(cache, ignore_errors=True)
    return [
        {
            "data": kind,
            "socialbench_cached_qps": [n_questions / w for w in sb],
            "bare_qps": [n_questions / w for w in bare],
        }
    ]


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] in ("--bare", "--floor"):
        client = _bare_main if sys.argv[1] == "--bare" else _floor_main
        print(asyncio.run(client(Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]))))
        return
    if len(sys.argv) > 2 and sys.argv[1] == "--eval-driver":
        _eval_driver(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kinds", default="release,light", help="comma-separated: release, light")
    ap.add_argument("--delay-ms", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--zero-delay", action="store_true", help="also compare questions/s at 0 ms delay")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument(
        "--compare-src",
        type=Path,
        help="also run `socialbench eval` from this checkout's src/ "
        "(e.g. an older commit: git archive COMMIT | tar -x -C DIR; pass DIR/src), interleaved",
    )
    args = ap.parse_args()

    from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
    from socialbench.runner.load_snapshot import RACY_NS

    tmp = Path(tempfile.mkdtemp(prefix="sb-throughput-"))
    results: list[dict[str, Any]] = []
    zero: list[dict[str, Any]] = []
    try:
        for kind in [k.strip() for k in args.kinds.split(",") if k.strip()]:
            if kind not in ("release", "light"):
                raise SystemExit(f"--kinds: unknown kind {kind!r} (release, light)")
            print(f"generating the {kind} dataset ...", file=sys.stderr, flush=True)
            data = make_data(kind, tmp)
            n_q = load_socialnav(data).n_questions
            # Files written less than RACY_NS ago leave no dataset snapshot (a file changed
            # within the file system's timestamp resolution could go unnoticed); a
            # researcher's data folder is older than that, so the runs start after it.
            time.sleep(RACY_NS / 1e9)
            results += run_kind(
                kind,
                data,
                tmp,
                args.delay_ms,
                args.concurrency,
                args.repeats,
                n_q,
                args.compare_src.resolve() if args.compare_src else None,
            )
            if args.zero_delay:
                zero += run_zero_delay(kind, data, tmp, args.concurrency, args.repeats, n_q)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(
        f"\nSocialNav-SUB throughput · delay {args.delay_ms} ms · concurrency {args.concurrency} · "
        f"{os.cpu_count()} cores · {args.repeats} interleaved repeats · min / median / max"
    )
    print(
        "data: release = 60 samples, 399 people, 1280x720 raw frames, no composites (rendered);"
        " light = 320x180 frames + 160x250 pre-rendered composites"
    )
    print(
        "eval = run_eval for socialbench (load, images, requests, scoring, run folder written), load to"
        " last answer for the bare loop; process = the whole process (interpreter, imports, CLI, exit)"
    )
    print(
        f"{'data':8} {'runner':19} {'bound s':>7} | {'eval s (min med max)':>23} | {'eval / bound':>23} | "
        f"{'process s':>23} | {'process / bound':>23} | {'RSS main MiB':>23} | {'PSS +workers MiB':>23}"
    )
    for row in results:
        print(
            f"{row['data']:8} {row['runner']:19} {row['ideal_s']:7.2f} | {_stats(row['eval_s'])} | "
            f"{_stats(row['eval_ratio'])} | {_stats(row['wall_s'])} | {_stats(row['ratio'])} | "
            f"{_stats(row['rss_main_mib'])} | {_stats(row['rss_tree_mib'])}"
        )
    for z in zero:
        print(
            f"0 ms delay, {z['data']}: socialbench (cached renders) {_stats(z['socialbench_cached_qps'])} q/s · "
            f"bare loop {_stats(z['bare_qps'])} q/s · ratio of medians "
            f"{statistics.median(z['socialbench_cached_qps']) / statistics.median(z['bare_qps']):.2f}"
        )
    if args.json:
        args.json.write_text(json.dumps({"rows": results, "zero_delay": zero}, indent=2) + "\n")


if __name__ == "__main__":
    main()
