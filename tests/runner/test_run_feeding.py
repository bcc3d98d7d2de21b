"""A run answers samples in dataset order, preparing only the next few samples' images
while the current one is answered (runner/feeding.py), not every sample's at once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset
from socialbench.models.mock import MockModel
from socialbench.runner.run import RunRequest, run_eval
from socialbench.vision.prepare import ImagePreparer


class SlowModel(MockModel):
    """Answers every question "a" after a few milliseconds, logging which item asked."""

    def __init__(self, log: list[tuple[str, str]]):
        super().__init__("mock:slow", lambda r: '{"answer": "a"}')
        self.log = log

    async def generate(self, request: Any) -> Any:
        await asyncio.sleep(0.002)
        self.log.append(("answer", request.item.item_id))
        return await super().generate(request)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_synthetic_dataset(
        tmp_path_factory.mktemp("feed") / "data", n_samples=5, people=[1, 2, 1, 2, 1], seed=3
    )


def test_only_the_next_samples_images_are_prepared_while_one_is_answered(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log: list[tuple[str, str]] = []
    prepare = ImagePreparer.prepare

    async def logged(self: ImagePreparer, job: Any) -> Any:
        log.append(("prepare", Path(job.paths[0]).parent.name))
        return await prepare(self, job)

    monkeypatch.setattr(ImagePreparer, "prepare", logged)
    bench = SocialNavSub()
    req = RunRequest(
        benchmark_name="socialnav-sub",
        data=data,
        model_spec="mock:slow",
        out=tmp_path / "run",
        options=EvalOptions(),
        show_progress=False,
        concurrency=2,
        image_workers=0,
    )
    run_eval(req, bench, SlowModel(log))
    items = bench.load(data, require_images=False, limit=None).items
    item_of_folder = {Path(item.metadata["composites"][0]).parent.name: item.item_id for item in items}
    order = [item.item_id for item in items]
    events = [(kind, item_of_folder.get(x, x)) for kind, x in log]
    assert [x for kind, x in events if kind == "prepare"] == order
    assert list(dict.fromkeys(x for kind, x in events if kind == "answer")) == order
    last_answer_of_first = max(i for i, e in enumerate(events) if e == ("answer", order[0]))
    # by then: the first item, the second (admitted as the first's last questions left the
    # queue) and the third getting ready (one worker thread: one item prefetched); not all 5
    assert len({x for kind, x in events[:last_answer_of_first] if kind == "prepare"}) <= 3
