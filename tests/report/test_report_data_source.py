"""Every report table names the benchmark and the dataset its numbers come from."""

from __future__ import annotations

from pathlib import Path

from socialbench.benchmarks.options import EvalOptions
from socialbench.benchmarks.socialnav_sub import bundled_demo_data
from socialbench.benchmarks.socialnav_sub.simulated import CARD_TITLE
from socialbench.report.build import build_report
from socialbench.report.data_source import label_tables, run_source, source_caption
from socialbench.report.loading import load_runs
from socialbench.report.run_dir import RunDir
from socialbench.report.table import Table


def _run(benchmark: str, data: Path | None, label: str = "m", fingerprint: str = "ab" * 32) -> RunDir:
    run = {"benchmark": benchmark, "dataset_fingerprint": fingerprint, "model": "openai:m"}
    if data is not None:
        run["data"] = str(data)
    # metrics.json names the benchmark that scored the run: socialnav-sub for a socialnav-sim run
    return RunDir(Path(label), run, {"benchmark": "socialnav-sub"}, label=label)


def test_a_sim_run_is_named_socialnav_sim_on_the_bundled_scenes() -> None:
    src = run_source(_run("socialnav-sim", bundled_demo_data()))
    assert src.benchmark == "socialnav-sim" and src.dataset.startswith("the bundled simulated scenes")


def test_a_folder_written_by_the_simulator_is_called_simulated(tmp_path: Path) -> None:
    (tmp_path / "sim200").mkdir()
    (tmp_path / "sim200" / "README.md").write_text(CARD_TITLE + "\n\nbody\n")
    assert run_source(_run("socialnav-sub", tmp_path / "sim200")).dataset == (
        "simulated scenes in folder 'sim200' (synthetic labels)"
    )


def test_a_folder_built_from_a_recording_with_exact_answers_says_they_are_not_human(tmp_path: Path) -> None:
    from socialbench.benchmarks.socialnav_sub.release_writer import EXACT_ANSWERS_NOTE, RECORDING_CARD_TITLE

    for name, body, said in (
        ("own", f"{EXACT_ANSWERS_NOTE}: each ...", " (exact answers from true tracks, not human)"),
        ("surveyed", "There are no answers ...", ""),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "README.md").write_text(f"{RECORDING_CARD_TITLE}\n\nBuilt ...\n\n{body}\n")
        assert run_source(_run("socialnav-sub", tmp_path / name)).dataset == (
            f"scenarios built from a recording in folder '{name}'{said}"
        )


def test_a_release_folder_is_named_by_its_folder_name_only(tmp_path: Path) -> None:
    (tmp_path / "release").mkdir()
    src = run_source(_run("socialnav-sub", tmp_path / "release"))
    assert src.dataset == "data folder 'release'" and str(tmp_path) not in src.caption()


def test_a_run_without_a_recorded_data_folder_says_so() -> None:
    assert run_source(_run("roboteq-bj", None)).dataset == "a dataset run.json does not record"


def test_one_source_gives_one_caption_and_the_fingerprint() -> None:
    suffix, notes = source_caption([_run("socialnav-sim", bundled_demo_data())])
    assert suffix.startswith(" — socialnav-sim on the bundled simulated scenes")
    assert notes == (f"Data: {suffix[3:]}, dataset fingerprint {'ab' * 6}.",)


def test_two_sources_are_both_captioned_and_each_run_is_placed(tmp_path: Path) -> None:
    runs = [_run("socialnav-sim", bundled_demo_data(), "a"), _run("socialnav-sub", tmp_path, "b", "cd" * 32)]
    suffix, notes = source_caption(runs)
    assert "socialnav-sim on the bundled" in suffix and f"socialnav-sub on data folder '{tmp_path.name}'" in suffix
    assert [n.split(":")[0] for n in notes] == ["Data of a", "Data of b"]


def test_label_tables_adds_the_caption_to_each_title_and_keeps_its_notes() -> None:
    t = Table("t", "Title", ("Model",), (), (), notes=("own note",))
    (out,) = label_tables([t], [_run("socialnav-sim", bundled_demo_data())])
    assert out.title.startswith("Title — socialnav-sim on ") and out.notes[0] == "own note" and len(out.notes) == 2


def test_a_socialnav_sim_report_names_it_on_every_table(tmp_path: Path) -> None:
    from socialbench.benchmarks.base import get_benchmark
    from socialbench.models.registry import ModelOptions, create_model
    from socialbench.runner.run import RunRequest, run_eval

    bench, data = get_benchmark("socialnav-sim")
    assert data is not None
    req = RunRequest(
        "socialnav-sim", data, "baseline:random", tmp_path / "run", EvalOptions(limit=2), show_progress=False
    )
    run_eval(req, bench, create_model("baseline:random", ModelOptions()))
    build_report(load_runs([tmp_path / "run"]), tmp_path / "rep", formats=["md"], figures=False)
    titles = [line for line in (tmp_path / "rep" / "report.md").read_text().splitlines() if line.startswith("**")]
    assert titles and all("— socialnav-sim on the bundled simulated scenes" in t for t in titles)
