"""The command line: exit codes, messages without tracebacks, score and validate."""

import json
import shutil

import pytest

from socialbench.cli import main
from socialbench.testing.openai_server import ScriptedOpenAIServer, status


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


def test_eval_baseline_exits_zero_and_writes_metrics(small_socialnav, tmp_path, capsys):
    code = run_cli(
        "eval",
        "-b",
        "socialnav-sub",
        "-d",
        str(small_socialnav),
        "-m",
        "baseline:random",
        "-o",
        str(tmp_path / "r"),
        "--no-progress",
        "--no-cache",
    )
    assert code == 0 and (tmp_path / "r" / "metrics.json").exists()
    assert "human:oracle" in capsys.readouterr().out


def test_eval_with_model_errors_exits_two(small_socialnav, tmp_path):
    with ScriptedOpenAIServer() as srv:
        srv.push(*[status(400)] * 3)
        code = run_cli(
            "eval",
            "-b",
            "socialnav-sub",
            "-d",
            str(small_socialnav),
            "-m",
            f"openai:m@{srv.base_url}",
            "-o",
            str(tmp_path / "r"),
            "--no-progress",
            "--no-cache",
            "--concurrency",
            "1",
            "--limit",
            "1",
        )
    assert code == 2


def test_bad_method_is_a_usage_error_without_traceback(small_socialnav, tmp_path, capsys):
    code = run_cli(
        "eval",
        "-b",
        "socialnav-sub",
        "-d",
        str(small_socialnav),
        "-m",
        "baseline:random",
        "--method",
        "magic",
        "-o",
        str(tmp_path / "r"),
    )
    err = capsys.readouterr().err
    assert code == 1 and "--method" in err and "Traceback" not in err


def test_eval_help_lists_every_benchmarks_options_with_their_defaults(capsys):
    assert run_cli("eval", "--help") == 0
    text = " ".join(capsys.readouterr().out.split())
    for flag in ("--method", "--images", "--strategy", "--per-behavior", "--rag-backend", "--rag-k", "--context"):
        assert flag in text
    assert "(independent)" in text and "(img-with-bev)" in text


def test_an_option_of_another_benchmark_is_one_line_naming_who_takes_it(small_socialnav, capsys):
    code = run_cli(
        "eval", "-b", "socialnav-sub", "-d", str(small_socialnav), "-m", "baseline:random", "--strategy", "cot"
    )
    err = capsys.readouterr().err.strip()
    assert (
        code == 1
        and err
        == "error: --strategy is a RobotEQ option: it applies to roboteq-bj, roboteq-sg only (not socialnav-sub)"
    )


def test_unknown_model_prefix_is_a_usage_error(small_socialnav, tmp_path, capsys):
    code = run_cli(
        "eval", "-b", "socialnav-sub", "-d", str(small_socialnav), "-m", "nosuch:model", "-o", str(tmp_path / "r")
    )
    assert code == 1 and "unknown model" in capsys.readouterr().err


def test_missing_data_option_for_release_benchmark(capsys):
    assert run_cli("eval", "-b", "socialnav-sub", "-m", "baseline:random") == 1
    assert "--data is required" in capsys.readouterr().err


def test_validate_ok_dataset(small_socialnav, capsys):
    assert run_cli("data", "validate", "-b", "socialnav-sub", "-d", str(small_socialnav)) == 0
    assert "OK" in capsys.readouterr().out


def test_validate_lists_problems_and_exits_one(small_socialnav, tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(small_socialnav, data)
    sample = json.loads((data / "prompts" / "sample_info.json").read_text())["samples"][0]["folderpath"]
    ca = data / "human_labels" / sample / "common_answers.json"
    obj = json.loads(ca.read_text())
    obj["q_goal_position_begin_probabilities"] = [0.9] * len(obj["q_goal_position_begin_probabilities"])
    del obj["q_goal_position_end_n_answers"]
    ca.write_text(json.dumps(obj))
    code = run_cli("data", "validate", "-b", "socialnav-sub", "-d", str(data))
    err = capsys.readouterr().err
    assert (
        code == 1 and "q_goal_position_begin" in err and "q_goal_position_end" in err and "common_answers.json" in err
    )


def test_score_samples_file_matches_eval_metrics(small_socialnav, tmp_path):
    run_cli(
        "eval",
        "-b",
        "socialnav-sub",
        "-d",
        str(small_socialnav),
        "-m",
        "baseline:random",
        "-o",
        str(tmp_path / "r"),
        "--no-progress",
        "--no-cache",
    )
    evaluated = json.loads((tmp_path / "r" / "metrics.json").read_text())["scores"]
    code = run_cli(
        "score",
        "-b",
        "socialnav-sub",
        "-d",
        str(small_socialnav),
        "-p",
        str(tmp_path / "r" / "samples.jsonl"),
        "-o",
        str(tmp_path / "s"),
    )
    assert code == 0 and json.loads((tmp_path / "s" / "metrics.json").read_text())["scores"] == evaluated


def test_score_of_a_limited_run_counts_what_its_eval_counted(small_socialnav, tmp_path):
    eval_args = ["-b", "socialnav-sub", "-d", str(small_socialnav), "-m", "baseline:random", "--no-progress"]
    run_cli("eval", *eval_args, "-o", str(tmp_path / "r"), "--no-cache", "--limit", "1")
    evaluated = json.loads((tmp_path / "r" / "metrics.json").read_text())
    code = run_cli(
        "score", "-b", "socialnav-sub", "-d", str(small_socialnav), "-p", str(tmp_path / "r"), "-o", str(tmp_path / "s")
    )
    scored = json.loads((tmp_path / "s" / "metrics.json").read_text())
    counted = ("n_scored", "n_missing", "scores", "failures")
    assert (code, *(scored[k] for k in counted)) == (0, *(evaluated[k] for k in counted))


def test_score_names_a_run_json_limit_that_is_not_a_count(small_socialnav, tmp_path, capsys):
    eval_args = ["-b", "socialnav-sub", "-d", str(small_socialnav), "-m", "baseline:random", "--no-progress"]
    run_cli("eval", *eval_args, "-o", str(tmp_path / "r"), "--no-cache", "--limit", "1")
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    (tmp_path / "r" / "run.json").write_text(json.dumps({**run, "limit": "one"}))
    code = run_cli("score", "-b", "socialnav-sub", "-d", str(small_socialnav), "-p", str(tmp_path / "r"))
    err = capsys.readouterr().err
    assert code != 0 and "run.json" in err and "limit" in err and "positive integer" in err


def test_score_of_predictions_for_other_questions_exits_non_zero_and_writes_nothing(small_socialnav, tmp_path, capsys):
    eval_args = ["-b", "socialnav-sub", "-d", str(small_socialnav), "-m", "baseline:random", "--no-progress"]
    run_cli("eval", *eval_args, "-o", str(tmp_path / "r"), "--no-cache", "--limit", "1")
    lines = [json.loads(x) for x in (tmp_path / "r" / "samples.jsonl").read_text().splitlines()]
    (tmp_path / "p").mkdir()
    foreign = "".join(json.dumps({**x, "item_id": "elsewhere"}) + "\n" for x in lines)
    (tmp_path / "p" / "samples.jsonl").write_text(foreign)
    code = run_cli("score", "-b", "socialnav-sub", "-d", str(small_socialnav), "-p", str(tmp_path / "p"))
    err = capsys.readouterr().err
    assert (code, sorted(p.name for p in (tmp_path / "p").iterdir())) == (1, ["samples.jsonl"])
    assert "nothing could be scored" in err and f"none of the {len(lines)} predictions" in err


def test_score_of_an_empty_predictions_file_names_it(small_socialnav, tmp_path, capsys):
    (tmp_path / "samples.jsonl").write_text("")
    code = run_cli("score", "-b", "socialnav-sub", "-d", str(small_socialnav), "-p", str(tmp_path / "samples.jsonl"))
    assert code == 1 and "samples.jsonl holds no predictions" in capsys.readouterr().err


def test_score_official_protocol_records_protocol(small_socialnav, tmp_path):
    run_cli(
        "eval",
        "-b",
        "socialnav-sub",
        "-d",
        str(small_socialnav),
        "-m",
        "baseline:random",
        "-o",
        str(tmp_path / "r"),
        "--no-progress",
        "--no-cache",
    )
    run_cli(
        "score",
        "-b",
        "socialnav-sub",
        "-d",
        str(small_socialnav),
        "-p",
        str(tmp_path / "r"),
        "--protocol",
        "official",
        "-o",
        str(tmp_path / "s"),
    )
    assert json.loads((tmp_path / "s" / "metrics.json").read_text())["protocol"] == "official"


def test_models_lists_backends(capsys):
    assert run_cli("models") == 0
    out = capsys.readouterr().out
    assert "openai:..." in out and "baseline:random" in out


def test_api_key_never_lands_in_the_run_directory(small_socialnav, tmp_path, monkeypatch):
    secret = "sk-test-SENTINEL-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    with ScriptedOpenAIServer() as srv:
        srv.push(status(401, body={"error": {"message": f"bad key {secret}"}}))
        run_cli(
            "eval",
            "-b",
            "socialnav-sub",
            "-d",
            str(small_socialnav),
            "-m",
            f"openai:m@{srv.base_url}",
            "-o",
            str(tmp_path / "r"),
            "--no-progress",
            "--cache",
            str(tmp_path / "c.sqlite"),
            "--limit",
            "1",
        )
    for f in (tmp_path / "r").iterdir():
        assert secret not in f.read_text(), f.name
    assert secret.encode() not in (tmp_path / "c.sqlite").read_bytes()


def test_score_reads_an_official_experiment_folder(small_socialnav, tmp_path):
    sample = json.loads((small_socialnav / "prompts" / "sample_info.json").read_text())["samples"][0]["folderpath"]
    exp = tmp_path / "experiment_1_gpt4o_cot" / sample
    exp.mkdir(parents=True)
    (exp / "question_answers.json").write_text(
        json.dumps({"q_robot_moving_direction": ["moving ahead"], "q_goal_position_begin": "INVALID"})
    )
    code = run_cli(
        "score",
        "-b",
        "socialnav-sub",
        "-d",
        str(small_socialnav),
        "-p",
        str(exp.parent),
        "--protocol",
        "official",
        "-o",
        str(tmp_path / "s"),
    )
    metrics = json.loads((tmp_path / "s" / "metrics.json").read_text())
    assert code == 0 and metrics["n_scored"] == 2 and metrics["scores"]["model"]["All"]["n"] == 2


def test_resume_with_different_model_options_is_refused(small_socialnav, tmp_path, capsys):
    args = [
        "eval",
        "-b",
        "socialnav-sub",
        "-d",
        str(small_socialnav),
        "-m",
        "baseline:rule-based",
        "-o",
        str(tmp_path / "r"),
        "--no-progress",
        "--no-cache",
    ]
    assert run_cli(*args, "--model-opt", "noise_m=2.0") == 0
    assert run_cli(*args, "--model-opt", "noise_m=0") == 1
    assert "model_options" in capsys.readouterr().err


def test_score_into_an_eval_run_keeps_its_metrics_json(small_socialnav, tmp_path):
    run_cli(
        "eval",
        "-b",
        "socialnav-sub",
        "-d",
        str(small_socialnav),
        "-m",
        "baseline:random",
        "-o",
        str(tmp_path / "r"),
        "--no-progress",
        "--no-cache",
    )
    before = (tmp_path / "r" / "metrics.json").read_text()
    assert (
        run_cli(
            "score",
            "-b",
            "socialnav-sub",
            "-d",
            str(small_socialnav),
            "-p",
            str(tmp_path / "r"),
            "--protocol",
            "official",
        )
        == 0
    )
    assert (tmp_path / "r" / "metrics.json").read_text() == before
    assert json.loads((tmp_path / "r" / "metrics.score-official.json").read_text())["protocol"] == "official"


def test_a_socialnav_sim_run_is_named_socialnav_sim_in_its_metrics_and_summary(tmp_path, capsys):
    args = ("-m", "baseline:random", "--limit", "1", "--no-progress", "--no-cache")
    assert run_cli("eval", "-b", "socialnav-sim", "-o", str(tmp_path / "r"), *args) == 0
    out = capsys.readouterr().out
    assert json.loads((tmp_path / "r" / "metrics.json").read_text())["benchmark"] == "socialnav-sim"
    assert "socialnav-sim — mean±SE" in out and "socialnav-sub" not in out


def test_score_names_the_benchmark_as_given(tmp_path):
    args = ("-m", "baseline:random", "--limit", "1", "--no-progress", "--no-cache")
    run_cli("eval", "-b", "socialnav-sim", "-o", str(tmp_path / "r"), *args)
    code = run_cli("score", "-b", "socialnav-sim", "-p", str(tmp_path / "r"), "-o", str(tmp_path / "s"))
    assert code == 0 and json.loads((tmp_path / "s" / "metrics.json").read_text())["benchmark"] == "socialnav-sim"


@pytest.mark.parametrize("flag, shown", [("--progress", True), ("--no-progress", False)])
def test_sim_socialnav_shows_its_progress_unless_told_not_to(tmp_path, capsys, flag, shown):
    code = run_cli("sim", "socialnav", "-o", str(tmp_path / "d"), "--scenes", "2", flag)
    err = capsys.readouterr().err
    assert (code, "2/2" in err) == (0, shown)
