"""The LLM stages' shared model options, declared once (construction/stage_options.py): every
LLM stage offers all of them with its own --timeout default, and a command line's values
reach the stage as one LLMOptions."""

import dataclasses
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from socialbench.construction.commands import build_app
from socialbench.construction.stage_options import LLMOptions, with_llm_options
from socialbench.errors import UsageError

#: Each LLM stage and the --timeout it defaults to (seconds).
LLM_STAGES = {
    "scenarios": 300.0,
    "image-prompts": 120.0,
    "review": 300.0,
    "behaviors": 180.0,
    "topics": 180.0,
    "grounding-questions": 180.0,
    "real-images": 120.0,
}


@pytest.mark.parametrize("stage, timeout", LLM_STAGES.items())
def test_each_llm_stage_ends_with_the_shared_options_and_its_timeout(stage, timeout):
    params = typer.main.get_group(build_app).commands[stage].params
    shared = [f.name for f in dataclasses.fields(LLMOptions)]
    assert [p.name for p in params[-len(shared) :]] == shared
    assert {p.name: p.default for p in params}["timeout"] == timeout


def test_the_command_line_values_reach_the_stage_as_one_llm_options():
    seen = []
    app = typer.Typer()

    @app.command()
    @with_llm_options(timeout=42.0)
    def stage(model: str = "m", *, llm: LLMOptions) -> None:
        seen.append((model, llm))

    res = CliRunner().invoke(app, ["--model", "x", "--concurrency", "3", "--model-opt", "a=1", "--no-cache"])
    assert res.exit_code == 0, res.output
    assert seen == [("x", LLMOptions(concurrency=3, timeout=42.0, no_cache=True, model_opt=["a=1"]))]


def test_settings_put_the_cache_in_the_work_folder_and_split_model_opts(tmp_path):
    s = LLMOptions(model_opt=["seed = 3"]).settings("openai:m", tmp_path, temperature=0.5, max_tokens=9)
    assert (s.cache, s.model_opts, s.temperature, s.max_tokens) == (
        tmp_path / "llm_cache.sqlite3",
        (("seed", "3"),),
        0.5,
        9,
    )


def test_no_cache_leaves_the_settings_without_a_cache():
    assert LLMOptions(no_cache=True).settings("openai:m", Path("w"), temperature=0.0, max_tokens=1).cache is None


def test_a_model_opt_without_a_value_is_refused_naming_the_flag():
    with pytest.raises(UsageError, match="--model-opt takes KEY=VALUE"):
        LLMOptions(model_opt=["seed"]).settings("openai:m", Path("w"), temperature=0.0, max_tokens=1)
