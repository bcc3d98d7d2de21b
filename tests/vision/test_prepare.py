"""Image preparation in worker processes: the same bytes as in-process, the render cache
consulted first, data errors carried back intact."""

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image

from socialbench.errors import DataError
from socialbench.types import EncodedImage
from socialbench.vision.images import ImagePolicy
from socialbench.vision.prepare import EncodeFiles, ImagePreparer, PerturbSpec, run_job
from socialbench.vision.render_cache import RenderCache


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ...]:
    root = tmp_path_factory.mktemp("pictures")
    out = []
    for i in range(3):
        img = Image.new("RGB", (300 + 40 * i, 200), (30 * i, 120, 200 - 40 * i))
        for x in range(0, img.width, 7):
            img.putpixel((x, (x * 3 + i) % img.height), (255, 255, 255))
        path = root / f"p{i}.png"
        img.save(path)
        out.append(str(path))
    return tuple(out)


def _prepare(preparer: ImagePreparer, job: object) -> tuple[EncodedImage, ...]:
    async def go() -> tuple[EncodedImage, ...]:
        return await preparer.prepare(job)  # type: ignore[arg-type]

    try:
        return asyncio.run(go())
    finally:
        preparer.shutdown()


def test_worker_processes_give_the_same_bytes_as_in_process(pictures: tuple[str, ...]) -> None:
    job = EncodeFiles(pictures, ImagePolicy(max_side=128))
    assert _prepare(ImagePreparer(workers=2), job) == run_job(job)


def test_perturbed_job_gives_the_same_bytes_in_a_worker(pictures: tuple[str, ...]) -> None:
    job = EncodeFiles(pictures, ImagePolicy(max_side=128), PerturbSpec("blur", 1.0, 3))
    assert _prepare(ImagePreparer(workers=1), job) == run_job(job)


def test_policy_limits_the_longest_side(pictures: tuple[str, ...]) -> None:
    assert max(max(im.width, im.height) for im in run_job(EncodeFiles(pictures, ImagePolicy(max_side=100)))) == 100


def test_a_data_error_in_a_worker_comes_back_with_its_problems(tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not an image")
    with pytest.raises(DataError) as info:
        _prepare(ImagePreparer(workers=1), EncodeFiles((str(broken),), ImagePolicy()))
    assert info.value.problems[0].file == str(broken)


@dataclass(frozen=True)
class CountingJob:
    """Returns a fixed, whole image and counts how often it really ran (in-process only).

    The image must be whole: the render cache re-renders an entry whose image is cut short."""

    source: str
    runs: list

    def cache_key(self) -> str:
        from socialbench.vision.render_cache import render_key

        return render_key("counting", {}, [self.source])

    def run(self) -> tuple[EncodedImage, ...]:
        self.runs.append(1)
        with Image.open(self.source) as picture:
            width, height = picture.size
        return (EncodedImage(Path(self.source).read_bytes(), "image/png", width, height),)


def test_a_cached_job_is_not_run_again(pictures: tuple[str, ...], tmp_path: Path) -> None:
    cache = RenderCache(tmp_path / "renders")
    runs: list = []
    first = run_job(CountingJob(pictures[0], runs), cache)
    second = run_job(CountingJob(pictures[0], runs), cache)
    assert (len(runs), second) == (1, first)


def test_a_changed_input_is_rendered_again(pictures: tuple[str, ...], tmp_path: Path) -> None:
    src = tmp_path / "input.png"
    src.write_bytes(Path(pictures[0]).read_bytes())
    cache = RenderCache(tmp_path / "renders")
    runs: list = []
    run_job(CountingJob(str(src), runs), cache)
    src.write_bytes(Path(pictures[1]).read_bytes())
    run_job(CountingJob(str(src), runs), cache)
    assert len(runs) == 2


def test_the_cache_is_filled_from_worker_processes(pictures: tuple[str, ...], tmp_path: Path) -> None:
    job = EncodeFiles(pictures, ImagePolicy(max_side=64))
    _prepare(ImagePreparer(workers=1, cache_dir=tmp_path / "renders"), job)
    assert RenderCache(tmp_path / "renders").get(job.cache_key()) == run_job(job)


_KILLED_RUN = """
import asyncio, os, sys
from socialbench.vision.prepare import ImagePreparer

async def main():
    preparer = ImagePreparer(workers=2)
    pids = set()
    while len(pids) < 2:  # the pool starts its workers on demand: ask until both answered
        pids |= set(await asyncio.gather(*(asyncio.get_running_loop().run_in_executor(preparer._executor, os.getpid) for _ in range(8))))
    print(" ".join(map(str, sorted(pids))), flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][:1] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_workers_exit_when_their_run_is_killed() -> None:
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-c", _KILLED_RUN], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    workers = [int(p) for p in proc.stdout.readline().split()]
    assert len(workers) == 2
    proc.send_signal(signal.SIGKILL)
    # End-of-file on the dead run's output means no worker still holds it open; the read
    # would block forever before the fix (the timeout only guards against that hang).
    done = []
    reader = __import__("threading").Thread(target=lambda: done.append(proc.stderr.read()), daemon=True)
    reader.start()
    reader.join(120)
    proc.wait()
    assert done, "a worker of the killed run still holds its stderr open"
    deadline = time.monotonic() + 120
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in workers)


def test_workers_run_at_a_lower_priority_than_the_run() -> None:
    import os

    from socialbench.vision.prepare import WORKER_NICENESS

    preparer = ImagePreparer(workers=1)

    async def go() -> int:
        return await asyncio.get_running_loop().run_in_executor(preparer._executor, os.nice, 0)

    try:
        worker = asyncio.run(go())
    finally:
        preparer.shutdown()
    assert worker == min(19, os.nice(0) + WORKER_NICENESS)


@pytest.mark.parametrize(("cores", "workers"), [(None, 1), (1, 1), (2, 1), (8, 7), (64, 16)])
def test_a_run_keeps_one_core_for_its_event_loop(cores: int | None, workers: int) -> None:
    from socialbench.vision.prepare import default_image_workers

    assert default_image_workers(cores) == workers


def test_workers_start_from_the_fork_server_under_a_short_temp_folder() -> None:
    from socialbench.vision.prepare import worker_start_method

    assert worker_start_method(["fork", "spawn", "forkserver"], "/tmp") == "forkserver"


def test_workers_are_spawned_when_the_fork_servers_socket_path_would_be_too_long() -> None:
    from socialbench.vision.prepare import worker_start_method

    assert worker_start_method(["fork", "spawn", "forkserver"], "/t" + "x" * 80) == "spawn"


def test_workers_are_spawned_where_there_is_no_fork_server() -> None:
    from socialbench.vision.prepare import worker_start_method

    assert worker_start_method(["spawn"], "/tmp") == "spawn"


def test_a_preparer_under_a_long_temp_folder_prepares_images(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    long_dir = tmp_path / ("t" * 90)
    long_dir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long_dir))
    frame = tmp_path / "frame.png"
    Image.new("RGB", (40, 30), (200, 10, 10)).save(frame)
    preparer = ImagePreparer(workers=1)
    try:
        (image,) = asyncio.run(preparer.prepare(EncodeFiles((str(frame),), ImagePolicy())))
    finally:
        preparer.shutdown()
    assert (image.width, image.height) == (40, 30)
