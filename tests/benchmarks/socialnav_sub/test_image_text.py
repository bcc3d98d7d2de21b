"""The prompt says what ``--images`` sends: the paper's text for img-with-bev, one view for
img and bev (socialbench.benchmarks.socialnav_sub.image_text)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub.bank_file import load_bank
from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
from socialbench.benchmarks.socialnav_sub.image_text import COMPOSITE_SENTENCE, MODE_SENTENCES, bank_for_images
from socialbench.models.mock import MockModel, first_option_answer
from socialbench.runner.run import RunRequest, run_eval


def sent_prompts(data, out, images: str) -> list[str]:
    """Every prompt a run of ``--images images`` on the first sample sends."""
    model = MockModel("mock:first-option", lambda r: first_option_answer(r.prompt))
    req = RunRequest(
        "socialnav-sub", data, model.spec, out, EvalOptions(limit=1, extra={"images": images}), show_progress=False
    )
    run_eval(req, SocialNavSub(), model)
    return [c.prompt for c in model.calls]


def test_paper_mode_sends_the_banks_text_unchanged(small_socialnav, tmp_path):
    survey = "\n".join(load_bank().blocks["survey_instructions"]) + "\n"
    prompts = sent_prompts(small_socialnav, tmp_path / "r", "img-with-bev")
    assert COMPOSITE_SENTENCE in survey and all(p.startswith(survey) for p in prompts)


def test_img_prompts_describe_camera_views_and_no_birds_eye_view(small_socialnav, tmp_path):
    prompts = sent_prompts(small_socialnav, tmp_path / "r", "img")
    assert all(MODE_SENTENCES["img"] in p and "bird's-eye view (BEV) of the same" not in p for p in prompts)
    assert not any("In the bird's-eye view" in p or "marked G in the bird's-eye view" in p for p in prompts)


def test_bev_prompts_describe_birds_eye_views_and_no_camera_view(small_socialnav, tmp_path):
    prompts = sent_prompts(small_socialnav, tmp_path / "r", "bev")
    assert all(MODE_SENTENCES["bev"] in p and "camera view on top" not in p for p in prompts)


def test_paper_mode_keeps_the_bank_object():
    bank = load_bank()
    assert bank_for_images(bank, "img-with-bev") is bank


@pytest.mark.parametrize("mode", ["img", "bev"])
def test_a_bank_of_other_wording_gets_the_modes_sentence_last(mode):
    bank = load_bank()
    other = replace(bank, blocks={**bank.blocks, "survey_instructions": ("Look at the images.",)})
    assert bank_for_images(other, mode).blocks["survey_instructions"] == ("Look at the images.", MODE_SENTENCES[mode])
