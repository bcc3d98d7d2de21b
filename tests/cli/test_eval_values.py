"""`eval --timeout` takes a positive, finite number of seconds (runner.eval_options.eval_value_problem, the
check sweep plans share): 0, NaN and infinity are refused before anything runs."""

import pytest

from socialbench.cli import main


@pytest.mark.parametrize("value, why", [("0", "more than 0 seconds"), ("nan", "finite"), ("inf", "finite")])
def test_eval_refuses_a_timeout_naming_it(tmp_path, capsys, value, why):
    with pytest.raises(SystemExit) as info:
        main(["eval", "-b", "socialnav-sim", "-m", "baseline:random", "--timeout", value, "-o", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert info.value.code == 1 and "--timeout must be" in err and why in err
    assert not (tmp_path / "r").exists()


def test_eval_refuses_a_first_byte_timeout_of_0(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(
            ["eval", "-b", "socialnav-sim", "-m", "baseline:random", "--first-byte-timeout", "0"]
            + ["-o", str(tmp_path / "r")]
        )
    assert info.value.code == 1 and "--first-byte-timeout must be more than 0 seconds" in capsys.readouterr().err


def test_the_first_byte_timeout_reaches_the_backend_and_run_json(small_socialnav, tmp_path):
    import json

    from socialbench.runner.eval_options import eval_defaults
    from socialbench.runner.prepare import prepare_eval
    from socialbench.testing.openai_server import ScriptedOpenAIServer

    with ScriptedOpenAIServer() as srv:
        flags = {"benchmark": "socialnav-sub", "data": small_socialnav, "model": f"openai:m@{srv.base_url}"}
        _, _, model, _ = prepare_eval({**eval_defaults(), **flags, "first_byte_timeout": 7.5})
        main(
            ["eval", "-b", "socialnav-sub", "-d", str(small_socialnav), "-m", f"openai:m@{srv.base_url}"]
            + ["--limit", "1", "--first-byte-timeout", "7.5", "-o", str(tmp_path / "r"), "--no-cache", "--no-progress"]
        )
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert model.first_byte_timeout_s == 7.5 and run["retry"]["first_byte_timeout_s"] == 7.5
