"""Built-in baselines answer valid options from the item, deterministically."""

import asyncio
import json

import pytest

from socialbench.errors import DataError, UsageError
from socialbench.models import baselines
from socialbench.models.base import FatalModelError
from socialbench.models.registry import ModelOptions, create_model
from socialbench.types import HumanVotes, Item, Question, Request, SampleRecord

MULTI = Question(
    "q_robot_moving_direction",
    "q_robot_moving_direction",
    "Spatiotemporal reasoning",
    "multi",
    "The robot is",
    ("moving ahead", "turning left", "turning right"),
)
SINGLE = Question(
    "q_obstructing_path_p1", "q_obstructing_path", "Spatiotemporal reasoning", "single", "Is", ("yes", "no"), person=1
)
ITEM = Item(
    "s1",
    (MULTI, SINGLE),
    {
        MULTI.key: HumanVotes((("moving ahead", "turning left"), ("moving ahead",)), (0.6, 0.4), 5),
        SINGLE.key: HumanVotes(("no", "yes"), (0.5, 0.5), 4),
    },
)


def answer(spec, q, seed=0):
    m = create_model(spec, ModelOptions(seed=seed))
    return json.loads(asyncio.run(m.generate(Request(prompt="", item=ITEM, question=q))).text)["answer"]


def test_oracle_answers_the_mode():
    assert answer("human:oracle", MULTI) == ["moving ahead", "turning left"]


def test_oracle_breaks_ties_by_option_order():
    assert answer("human:oracle", SINGLE) == "yes"


def test_random_gives_valid_choices_for_multi_select():
    picks = {tuple(answer("baseline:random", MULTI, seed=s)) for s in range(40)}
    assert picks <= set(MULTI.choices) and len(picks) > 3


def test_random_is_deterministic_per_seed():
    assert answer("baseline:random", SINGLE, seed=3) == answer("baseline:random", SINGLE, seed=3)


def test_human_average_draws_only_human_answers():
    picks = {tuple(answer("human:average", MULTI, seed=s)) for s in range(30)}
    assert picks <= {("moving ahead", "turning left"), ("moving ahead",)}


def test_replay_returns_recorded_raw_text(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.write_text(
        json.dumps(
            {
                "item_id": "s1",
                "question_key": SINGLE.key,
                "raw": 'I think {"answer": "no"}',
                "parsed": "no",
                "error": None,
            }
        )
        + "\n"
    )
    m = create_model(f"replay:{p}")
    assert asyncio.run(m.generate(Request(prompt="", item=ITEM, question=SINGLE))).text == 'I think {"answer": "no"}'


def test_replay_missing_answer_is_a_recorded_error(tmp_path):
    p = tmp_path / "samples.jsonl"
    p.write_text("")
    m = create_model(f"replay:{p}")
    with pytest.raises(FatalModelError) as e:
        asyncio.run(m.generate(Request(prompt="", item=ITEM, question=SINGLE)))
    assert e.value.kind == "missing_answer"


def test_replay_of_missing_file_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError):
        create_model(f"replay:{tmp_path / 'nope.jsonl'}")


def _record(item_id, key, parsed):
    return SampleRecord(item_id, key, None, parsed, "json", None, 0.0, {})


def test_replay_reads_a_folder_with_a_registered_reader(tmp_path, monkeypatch):
    monkeypatch.setattr(baselines, "_FOLDER_READERS", [])
    baselines.register_replay_folder(lambda path: [_record("s1", SINGLE.key, "no")])
    m = create_model(f"replay:{tmp_path}")
    assert json.loads(asyncio.run(m.generate(Request(prompt="", item=ITEM, question=SINGLE))).text) == {"answer": "no"}


def test_replay_of_a_folder_no_reader_accepts_is_a_data_error(tmp_path, monkeypatch):
    def refuse(path):
        raise DataError.single(path, "", "not an experiment folder")

    monkeypatch.setattr(baselines, "_FOLDER_READERS", [refuse])
    with pytest.raises(DataError):
        create_model(f"replay:{tmp_path}")


def test_replay_of_a_folder_without_any_reader_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.setattr(baselines, "_FOLDER_READERS", [])
    with pytest.raises(UsageError):
        create_model(f"replay:{tmp_path}")
