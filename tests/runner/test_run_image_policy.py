"""A SocialNav-SUB run sends, by default, images as the official harness does (512×512,
squashed, JPEG quality 95); ``--image-size`` changes that, and the policy is part of the
run's record and of every request's cache key."""

from __future__ import annotations

import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from socialbench.benchmarks.base import get_benchmark
from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.models.mock import MockModel
from socialbench.runner.prepare import prepare_eval
from socialbench.runner.run import RunRequest, RunResult, run_eval
from socialbench.types import Request
from socialbench.vision.image_size import parse_image_size
from socialbench.vision.images import ImagePolicy


def _first(request: Request) -> str:
    q = request.question
    assert q is not None
    return json.dumps({"answer": [q.options[0]] if q.kind == "multi" else q.options[0]})


def _eval(
    out: Path, benchmark: str = "socialnav-sub", policy: ImagePolicy | None = None, cache: Path | None = None
) -> tuple[MockModel, RunResult]:
    model = MockModel("mock:first", _first)
    bench, _ = get_benchmark(benchmark)
    req = RunRequest(
        benchmark,
        bundled_demo_data(),
        model.spec,
        out,
        EvalOptions(limit=1),
        show_progress=False,
        image_workers=0,
        image_policy=policy,
        cache_path=cache,
    )
    return model, run_eval(req, bench, model)


def _opencv_q95_tables() -> dict[int, list[int]]:
    ok, data = cv2.imencode(".jpg", np.zeros((16, 16, 3), np.uint8))
    assert ok
    return dict(Image.open(io.BytesIO(data.tobytes())).quantization)


@pytest.mark.parametrize("benchmark", ["socialnav-sub", "socialnav-waypoint"])
def test_default_images_have_the_official_size_and_quality(benchmark: str, tmp_path: Path) -> None:
    model, _ = _eval(tmp_path / "run", benchmark)
    images = [Image.open(io.BytesIO(img.data)) for img in model.calls[0].images]
    assert {(im.format, im.size) for im in images} == {("JPEG", (512, 512))}
    assert all(dict(im.quantization) == _opencv_q95_tables() for im in images)


def test_run_json_records_the_official_policy(tmp_path: Path) -> None:
    _eval(tmp_path / "run")
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["image_policy"] == {
        "max_side": 0,
        "format": "JPEG",
        "quality": 95,
        "size": [512, 512],
        "resample": "opencv-linear",
    }


def test_image_size_keeps_the_aspect_ratio_when_asked(tmp_path: Path) -> None:
    model, _ = _eval(tmp_path / "run", policy=parse_image_size("320"))
    sizes = {Image.open(io.BytesIO(img.data)).size for img in model.calls[0].images}
    assert max(max(s) for s in sizes) == 320 and all(w != h for w, h in sizes)


def test_another_policy_is_not_answered_from_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite3"
    _eval(tmp_path / "a", cache=cache)
    _, again = _eval(tmp_path / "b", policy=parse_image_size("320"), cache=cache)
    assert again.stats["cache_hits"] == 0 and again.stats["requests"] > 0


def test_the_same_policy_is_answered_from_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite3"
    _, first = _eval(tmp_path / "a", cache=cache)
    _, again = _eval(tmp_path / "b", cache=cache)
    assert (again.stats["cache_hits"], again.stats["requests"]) == (first.stats["requests"], 0)


def _values(**given: object) -> dict[str, object]:
    from socialbench.runner.eval_options import eval_defaults

    values = eval_defaults()
    values.update({"benchmark": "socialnav-sim", "model": "mock:first-option", "data": None, **given})
    return values


def test_the_flag_reaches_the_run_request(tmp_path: Path) -> None:
    *_, req = prepare_eval(_values(image_size="768", out_dir=tmp_path / "run"))
    assert req.image_policy == ImagePolicy(max_side=768)


def test_both_size_flags_are_refused(tmp_path: Path) -> None:
    from socialbench.errors import UsageError

    with pytest.raises(UsageError, match=r"^give --image-size or --max-side, not both"):
        prepare_eval(_values(image_size="512x512", max_side=768, out_dir=tmp_path / "run"))


def test_resuming_under_another_policy_is_refused_naming_the_folders_policy(tmp_path: Path) -> None:
    from socialbench.errors import UsageError

    _eval(tmp_path / "run", policy=parse_image_size("768"))
    with pytest.raises(UsageError, match=r"longest side 768 px \(aspect kept\), JPEG quality 90; --image-size"):
        _eval(tmp_path / "run")
