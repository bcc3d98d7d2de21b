"""Image preparation during a run: worker processes send what in-process preparation sends,
and the render cache is shared by runs of other methods and models."""

from pathlib import Path

import pytest

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset
from socialbench.models.registry import ModelOptions, create_model
from socialbench.runner.run import RunRequest, run_eval


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two samples with raw frames, tracks and odometry but no composites (rendered)."""
    root = write_synthetic_dataset(
        tmp_path_factory.mktemp("raw") / "data", n_samples=2, people=[1, 2], seed=11, frame_size=(320, 180)
    )
    for png in root.glob("prompts/*/sample_with_bev_*.png"):
        png.unlink()
    return root


def _run(
    data: Path,
    out: Path,
    *,
    workers: int | None,
    renders: Path | None = None,
    model: str = "mock:first-option",
    method: str = "independent",
) -> dict[tuple[str, str], str]:
    from socialbench.records import read_samples

    mdl = create_model(model, ModelOptions())
    req = RunRequest(
        benchmark_name="socialnav-sub",
        data=data,
        model_spec=model,
        out=out,
        options=EvalOptions(method=method),
        show_progress=False,
        render_cache=renders,
        image_workers=workers,
    )
    run_eval(req, SocialNavSub(), mdl)
    return {(r.item_id, r.question_key): r.request_hash for r in read_samples(out / "samples.jsonl")}


def test_worker_processes_send_the_same_images_as_a_thread(raw: Path, tmp_path: Path) -> None:
    assert _run(raw, tmp_path / "procs", workers=2) == _run(raw, tmp_path / "thread", workers=0)


def test_render_cache_is_filled_once_for_other_models_and_methods(raw: Path, tmp_path: Path) -> None:
    renders = tmp_path / "renders"
    _run(raw, tmp_path / "a", workers=1, renders=renders)
    entries = sorted(p.name for p in renders.rglob("*.img"))
    _run(raw, tmp_path / "b", workers=1, renders=renders, model="mock:echo", method="cot")
    assert (len(entries), sorted(p.name for p in renders.rglob("*.img"))) == (2, entries)


def test_cached_images_are_the_images_sent_before(raw: Path, tmp_path: Path) -> None:
    renders = tmp_path / "renders"
    first = _run(raw, tmp_path / "a", workers=1, renders=renders)
    assert _run(raw, tmp_path / "b", workers=1, renders=renders) == first


def _warm_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record, in order, when a run starts its image workers and when it loads its data."""
    from socialbench.vision.prepare import ImagePreparer

    calls: list[str] = []
    warm, load = ImagePreparer.warm, SocialNavSub.load

    def spy_warm(self: ImagePreparer) -> None:
        calls.append("warm")
        warm(self)

    def spy_load(self: SocialNavSub, *args: object, **kwargs: object) -> object:
        calls.append("load")
        return load(self, *args, **kwargs)

    monkeypatch.setattr(ImagePreparer, "warm", spy_warm)
    monkeypatch.setattr(SocialNavSub, "load", spy_load)
    return calls


def test_a_first_run_starts_its_workers_before_loading(
    raw: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _warm_calls(monkeypatch)
    _run(raw, tmp_path / "a", workers=1, renders=tmp_path / "renders")
    assert calls[:2] == ["warm", "load"]


def test_a_run_whose_images_are_all_cached_starts_no_workers(
    raw: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from socialbench.runner import load_snapshot

    monkeypatch.setattr(load_snapshot, "RACY_NS", 10**30)  # no dataset snapshot: both runs load
    renders = tmp_path / "renders"
    _run(raw, tmp_path / "a", workers=1, renders=renders)
    calls = _warm_calls(monkeypatch)
    _run(raw, tmp_path / "b", workers=1, renders=renders, model="mock:echo", method="cot")
    assert calls == ["load"]


def test_a_run_with_a_limit_leaves_the_data_unseen(raw: Path, tmp_path: Path) -> None:
    renders = tmp_path / "renders"
    req = RunRequest(
        benchmark_name="socialnav-sub",
        data=raw,
        model_spec="mock:first-option",
        out=tmp_path / "a",
        options=EvalOptions(limit=1),
        show_progress=False,
        render_cache=renders,
        image_workers=1,
    )
    run_eval(req, SocialNavSub(), create_model("mock:first-option", ModelOptions()))
    assert list((renders / "seen").glob("*")) == []
