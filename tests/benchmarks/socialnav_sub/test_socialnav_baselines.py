"""The ``baseline:rule-based`` model on items built from track and odometry files."""

import asyncio
import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

from socialbench.benchmarks.socialnav_sub.baselines import add_track_noise, item_rng
from socialbench.errors import UsageError
from socialbench.models.base import FatalModelError
from socialbench.models.registry import ModelOptions, create_model
from socialbench.types import Item, Question, Request

YES_NO = ("yes", "no")


def _q(key, base, options, kind="single", person=None):
    return Question(key=key, base_key=base, category="x", kind=kind, text="?", options=options, person=person)


def _item(tmp_path, item_id="1_Spot_1_3", crossing=True):
    n = 10
    person = [
        {
            "center_x": 5.0,
            "center_y": (3.0 - 0.7 * t) if crossing else 4.5,
            "yaw": 0,
            "timestep": t,
            "bbox": [600, 300, 650, 450],
            "pos_diff": 0.7 if crossing else 0.0,
        }
        for t in range(n)
    ]
    tp = tmp_path / f"{item_id}_tracks.json"
    tp.write_text(json.dumps({"track_id_to_object_trajectory": {"17": person}}))
    op = tmp_path / f"{item_id}_traj_data.pkl"
    th = np.radians(np.linspace(0, 60, 20))  # left arc: about 28 degrees over frames 3..12
    with op.open("wb") as f:  # test fixture: plain pickle.dump of numpy arrays
        pickle.dump({"position": np.stack([3 * np.sin(th), 3 * (1 - np.cos(th))], axis=1), "yaw": th}, f)
    questions = (
        _q(
            "q_robot_moving_direction",
            "q_robot_moving_direction",
            ("moving ahead", "turning left", "turning right"),
            kind="multi",
        ),
        _q("q_obstructing_path_p1", "q_obstructing_path", YES_NO, person=1),
        _q("q_goal_position_begin", "q_goal_position_begin", ("ahead", "to the left", "to the right")),
        _q(
            "q_human_future_action_prediction_p1",
            "q_human_future_action_prediction",
            ("avoid", "overtake", "not consider", "follow", "yield to"),
            person=1,
        ),
    )
    meta = {
        "n_people": 1,
        "sample_dir": str(tmp_path),
        "tracks_path": str(tp),
        "odometry_path": str(op),
        "frames": [str(tmp_path / f"{3 + t}.jpg") for t in range(n)],
        "first_frame": 3,
        "composites": [],
        "goal_xy": [12.0, 0.0],
    }
    return Item(item_id=item_id, questions=questions, votes={}, metadata=meta)


def _ask(model, item, key):
    gen = asyncio.run(model.generate(Request(prompt="", item=item, question=item.question(key))))
    return json.loads(gen.text)["answer"]


def test_model_answers_from_tracks_and_odometry(tmp_path):
    model = create_model("baseline:rule-based")
    item = _item(tmp_path)
    assert model.spec == "baseline:rule-based" and not model.cacheable and not model.needs_prompt
    assert _ask(model, item, "q_obstructing_path_p1") == "yes"
    assert _ask(model, item, "q_goal_position_begin") == "ahead"
    assert "turning left" in _ask(model, item, "q_robot_moving_direction")
    assert _ask(model, item, "q_human_future_action_prediction_p1") in ("avoid", "not consider")


def test_answers_parse_as_valid_choices(tmp_path):
    model = create_model("baseline:rule-based")
    item = _item(tmp_path, crossing=False)
    for q in item.questions:
        assert q.canonical(_ask(model, item, q.key)) is not None, q.key
    assert _ask(model, item, "q_obstructing_path_p1") == "no"


def test_answers_are_memoised_per_item(tmp_path):
    model = create_model("baseline:rule-based")
    item = _item(tmp_path)
    _ask(model, item, "q_obstructing_path_p1")
    (tmp_path / "1_Spot_1_3_tracks.json").unlink()
    assert _ask(model, item, "q_goal_position_begin") == "ahead"  # no second read of the files


def test_noise_is_seeded_and_deterministic(tmp_path):
    item = _item(tmp_path)
    opts = ModelOptions(seed=5, extra=(("noise_m", "0.67"),))
    a = create_model("baseline:rule-based", opts).answers_for(item)
    b = create_model("baseline:rule-based", opts).answers_for(item)
    assert a == b
    from socialbench.navigation.frames import load_scene

    people = load_scene(item.metadata).people
    n1 = add_track_noise(people, 0.67, item_rng(5, item.item_id))[1].positions()
    n2 = add_track_noise(people, 0.67, item_rng(6, item.item_id))[1].positions()
    assert not np.allclose(n1, n2)  # the seed matters
    err = np.linalg.norm(n1 - people[1].positions(), axis=1)
    assert 0.2 < err.mean() < 1.5


def test_noise_ade_matches_option():
    from socialbench.navigation.tracks import make_track

    people = {1: make_track("a", np.zeros((4000, 2)), timesteps=range(4000))}
    noisy = add_track_noise(people, 0.67, np.random.default_rng(0))[1].positions()
    assert np.linalg.norm(noisy, axis=1).mean() == pytest.approx(0.67, rel=0.05)


def test_missing_tracks_is_a_recorded_model_error(tmp_path):
    item = _item(tmp_path)
    meta = dict(item.metadata, tracks_path=None)
    bad = Item(item_id="x", questions=item.questions, votes={}, metadata=meta)
    with pytest.raises(FatalModelError) as e:
        _ask(create_model("baseline:rule-based"), bad, "q_obstructing_path_p1")
    assert e.value.kind == "missing_input"


def test_bad_options_are_usage_errors():
    with pytest.raises(UsageError, match="noise_m"):
        create_model("baseline:rule-based", ModelOptions(extra=(("noise_m", "lots"),)))
    with pytest.raises(UsageError, match="smooth"):
        create_model("baseline:rule-based", ModelOptions(extra=(("smooth", "maybe"),)))


def test_every_question_of_a_loaded_dataset_gets_a_valid_answer(small_socialnav):
    from socialbench.benchmarks.socialnav_sub.loader import load_socialnav

    model = create_model("baseline:rule-based")
    ds = load_socialnav(small_socialnav)
    for item in ds.items:
        for q in item.questions:
            assert q.canonical(_ask(model, item, q.key)) is not None, (item.item_id, q.key)


def test_smoothing_option_reduces_the_added_noise(tmp_path):
    pytest.importorskip("pykalman")
    item = _item(tmp_path)
    noisy = create_model("baseline:rule-based", ModelOptions(seed=1, extra=(("noise_m", "0.5"),)))
    smoothed = create_model("baseline:rule-based", ModelOptions(seed=1, extra=(("noise_m", "0.5"), ("smooth", "1"))))
    assert "smooth=1" in smoothed.identity()
    truth = create_model("baseline:rule-based").scene_for(item).people[1].positions()
    err_noisy = np.linalg.norm(noisy.scene_for(item).people[1].positions() - truth, axis=1).mean()
    err_smooth = np.linalg.norm(smoothed.scene_for(item).people[1].positions() - truth, axis=1).mean()
    assert err_smooth < err_noisy
    answers = smoothed.answers_for(item)
    assert all(q.canonical(answers[q.key]) is not None for q in item.questions)


def test_replay_reads_an_official_experiment_folder(tmp_path):
    exp = tmp_path / "experiment_1_gpt-4o"
    (exp / "1_Spot_1_3").mkdir(parents=True)
    (exp / "1_Spot_1_3" / "question_answers.json").write_text(json.dumps({"q_obstructing_path_p1": "yes"}))
    item = _item(tmp_path)
    assert _ask(create_model(f"replay:{exp}"), item, "q_obstructing_path_p1") == "yes"


def test_loading_the_benchmarks_registers_the_rule_based_baseline():
    code = (  # a fresh interpreter: nothing imported yet but what the CLI loads before creating a model
        "from socialbench.benchmarks.base import load_benchmark_code\n"
        "from socialbench.models.registry import backends\n"
        "load_benchmark_code()\n"
        "print(sorted(b.prefix for b in backends()))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "'baseline:rule-based'" in res.stdout
