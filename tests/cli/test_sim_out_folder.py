"""``sim socialnav --out DIR`` where DIR exists: one line naming the folder and the fix (a new
folder, or --overwrite for a dataset it wrote), never a traceback; --overwrite replaces it."""

import pytest

from socialbench.cli import main

SMALL = ["--scenes", "1", "--people", "2-3", "--noise-m", "0", "--no-progress"]


def run_cli(*args):
    with pytest.raises(SystemExit) as e:
        main(list(args))
        raise SystemExit(0)
    return e.value.code


def test_a_folder_it_wrote_is_refused_with_the_overwrite_fix(tmp_path, capsys):
    out = tmp_path / "sim"
    assert run_cli("sim", "socialnav", "--out", str(out), *SMALL) == 0
    capsys.readouterr()
    assert run_cli("sim", "socialnav", "--out", str(out), *SMALL) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "--overwrite" in err and str(out) in " ".join(err.split())


def test_overwrite_replaces_a_folder_it_wrote(tmp_path, capsys):
    out = tmp_path / "sim"
    assert run_cli("sim", "socialnav", "--out", str(out), *SMALL) == 0
    assert run_cli("sim", "socialnav", "--out", str(out), "--overwrite", *SMALL) == 0
    assert (out / "sample_info.json").is_file() or (out / "prompts" / "sample_info.json").is_file()


def test_a_foreign_non_empty_folder_is_refused_and_kept(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("keep me")
    assert run_cli("sim", "socialnav", "--out", str(tmp_path), "--overwrite", *SMALL) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "choose a new folder" in err
    assert (tmp_path / "notes.txt").read_text() == "keep me"


def test_a_file_as_out_is_refused_in_one_line(tmp_path, capsys):
    target = tmp_path / "file.txt"
    target.write_text("x")
    assert run_cli("sim", "socialnav", "--out", str(target), *SMALL) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "is a file" in err
