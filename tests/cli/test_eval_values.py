"""`eval --timeout` takes a positive, finite number of seconds (cli.eval_value_problem, the
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
