"""`report` and `compare` take a folder of run directories (a sweep folder) as well as runs."""

from socialbench.report.loading import expand_run_folders


def fake_run(path, scored=True):
    path.mkdir(parents=True)
    (path / "run.json").write_text("{}")
    if scored:
        (path / "metrics.json").write_text("{}")
    return path


def test_sweep_folder_becomes_its_scored_run_directories_in_order(tmp_path):
    b = fake_run(tmp_path / "sweep" / "bench" / "m2" / "cot")
    a = fake_run(tmp_path / "sweep" / "bench" / "m1" / "cot")
    fake_run(tmp_path / "sweep" / "bench" / "m3" / "cot", scored=False)
    assert expand_run_folders([tmp_path / "sweep"]) == [a, b]


def test_run_directory_is_kept_as_it_is(tmp_path):
    run = fake_run(tmp_path / "run")
    assert expand_run_folders([run]) == [run]


def test_epochs_inside_a_run_are_not_listed_again(tmp_path):
    run = fake_run(tmp_path / "sweep" / "bench" / "m" / "cot")
    fake_run(run / "epoch-1")
    assert expand_run_folders([tmp_path / "sweep"]) == [run]


def test_folder_without_runs_is_kept_for_load_run_to_explain(tmp_path):
    (tmp_path / "empty").mkdir()
    assert expand_run_folders([tmp_path / "empty"]) == [tmp_path / "empty"]
