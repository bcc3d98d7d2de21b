"""run_ray's local cluster: shut down after the sweep, its session folder removed unless a
task died (then kept, for its logs, and named in a warning). A stand-in ``ray`` module checks
each path; one test starts a real local Ray."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from socialbench.sweep import executors  # noqa: E402
from socialbench.sweep.grid import expand  # noqa: E402
from socialbench.sweep.plan import load_plan  # noqa: E402


class FakeRay:
    """The part of ``ray`` run_ray uses: every task returns ``outcome`` (or raises ``fail``
    when it is an exception); ``wait`` raises ``interrupt`` when it is set."""

    def __init__(self, outcome: Any, interrupt: BaseException | None = None):
        self.outcome, self.interrupt = outcome, interrupt
        self.initialized = False
        self.calls: list[str] = []

    def is_initialized(self) -> bool:
        return self.initialized

    def init(self, **kwargs: Any) -> None:
        self.calls.append("init")
        self.initialized = True

    def shutdown(self) -> None:
        self.calls.append("shutdown")
        self.initialized = False

    def remote(self, **kwargs: Any) -> Any:
        class Task:
            def __init__(self, fn: Any):
                pass

            def options(self, **kwargs: Any) -> Task:
                return self

            def remote(self, values: Any) -> object:
                return object()

        return Task

    def cluster_resources(self) -> dict[str, float]:
        return {"CPU": 2.0}

    def wait(self, pending: list[Any], num_returns: int) -> tuple[list[Any], list[Any]]:
        if self.interrupt is not None:
            raise self.interrupt
        return pending[:1], pending[1:]

    def get(self, ref: Any) -> Any:
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


def one_cell(tmp_path: Path) -> list[Any]:
    plan = tmp_path / "plan.yaml"
    plan.write_text("models: [baseline:random]\nbenchmarks: [socialnav-sim]\noptions: {limit: 1, no_cache: true}\n")
    return expand(load_plan(plan), tmp_path / "out")


@pytest.fixture
def made_dirs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every folder run_ray asks local_ray_temp_dir for."""
    made: list[str] = []
    real = executors.local_ray_temp_dir

    def spy() -> str:
        made.append(real())
        return made[-1]

    monkeypatch.setattr(executors, "local_ray_temp_dir", spy)
    return made


def with_fake_ray(monkeypatch: pytest.MonkeyPatch, fake: FakeRay) -> FakeRay:
    monkeypatch.setattr(executors, "import_ray", lambda: fake)
    return fake


def done_outcome(cell: Any) -> dict[str, Any]:
    return {"run_dir": str(cell.run_dir), "status": "complete"}


def test_local_cluster_is_shut_down_and_its_folder_removed(tmp_path, monkeypatch, made_dirs):
    cells = one_cell(tmp_path)
    fake = with_fake_ray(monkeypatch, FakeRay(done_outcome(cells[0])))
    (outcome,) = executors.run_ray(cells)
    assert outcome.status == "complete"
    assert fake.calls == ["init", "shutdown"] and not Path(made_dirs[0]).exists()


def test_folder_is_kept_and_named_when_a_task_died(tmp_path, monkeypatch, made_dirs, caplog):
    cells = one_cell(tmp_path)
    fake = with_fake_ray(monkeypatch, FakeRay(RuntimeError("worker died")))
    with caplog.at_level(logging.WARNING, logger="socialbench.sweep.executors"):
        (outcome,) = executors.run_ray(cells)
    assert outcome.status == "failed" and "worker died" in (outcome.message or "")
    assert fake.calls == ["init", "shutdown"] and Path(made_dirs[0]).is_dir()
    assert made_dirs[0] in caplog.text
    executors.remove_ray_temp_dir(made_dirs[0])


def test_interrupted_sweep_still_shuts_the_cluster_down(tmp_path, monkeypatch, made_dirs):
    cells = one_cell(tmp_path)
    fake = with_fake_ray(monkeypatch, FakeRay(done_outcome(cells[0]), interrupt=KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        executors.run_ray(cells)
    assert fake.calls == ["init", "shutdown"] and not Path(made_dirs[0]).exists()


def test_a_cluster_joined_before_is_left_running(tmp_path, monkeypatch, made_dirs):
    cells = one_cell(tmp_path)
    fake = FakeRay(done_outcome(cells[0]))
    fake.initialized = True
    with_fake_ray(monkeypatch, fake)
    executors.run_ray(cells)
    assert fake.calls == [] and fake.initialized and made_dirs == []


def test_real_local_ray_leaves_no_folder_behind(tmp_path, made_dirs):
    ray = pytest.importorskip("ray", reason="ray (optional extra ray) is not installed")
    if ray.is_initialized():
        ray.shutdown()
    (outcome,) = executors.run_ray(one_cell(tmp_path))
    assert outcome.status == "complete"
    assert not ray.is_initialized() and not Path(made_dirs[0]).exists()
