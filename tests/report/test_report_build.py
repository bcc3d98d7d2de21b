"""``socialbench report`` end to end on real runs of the baselines (tables, failure
analyses, bootstrap CIs, viewer data) and the ``report`` / ``compare`` commands."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
from socialbench.errors import UsageError
from socialbench.metrics.failure_analysis import failure_rate_by_attribute
from socialbench.metrics.failures import failure_summary
from socialbench.report.build import build_report, parse_formats
from socialbench.report.commands import register
from socialbench.report.compare import compare_runs
from socialbench.report.loading import load_runs
from socialbench.report.run_dataset import scoring_entries
from socialbench.report.viewer import viewer_payload


def _app() -> typer.Typer:
    app = typer.Typer(add_completion=False)

    @app.callback()
    def _root() -> None:  # keep subcommands named
        pass

    register(app)
    return app


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory, sn_runs: dict[str, Path]) -> Path:
    out = tmp_path_factory.mktemp("report-out")
    runs = load_runs([sn_runs["rule"], sn_runs["random"], sn_runs["first"]])
    build_report(runs, out, formats=["md", "csv", "tex"], n_boot=200)
    return out


def test_report_writes_every_table_in_every_requested_format(report_dir: Path) -> None:
    names = {
        "socialnav_table1",
        "socialnav_questions_baselines",
        "socialnav_failures_by_attribute",
        "socialnav_actions_q_robot_action",
        "socialnav_bootstrap_ci",
    }
    for n in names:
        for ext in ("md", "csv", "tex"):
            assert (report_dir / "tables" / f"{n}.{ext}").is_file(), f"{n}.{ext}"
    assert not list((report_dir / "tables").glob("*.html"))


def test_report_md_collects_all_tables(report_dir: Path) -> None:
    text = (report_dir / "report.md").read_text()
    assert "SocialNav-SUB Table 1" in text and "SocialNav-SUB Table 4" in text and "SocialNav-SUB Table 5" in text


def test_report_draws_figures_as_png_and_svg(report_dir: Path) -> None:
    for stem in ("radar_questions", "category_bars", "question_pa", "agreement_scatter"):
        png = report_dir / "plots" / f"{stem}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "<svg" in (report_dir / "plots" / f"{stem}.svg").read_text()


def test_table1_numbers_come_from_metrics_json(report_dir: Path, sn_runs: dict[str, Path]) -> None:
    m = json.loads((sn_runs["random"] / "metrics.json").read_text())
    pa = m["scores"]["model"]["All"]["PA"]
    rows = (report_dir / "tables" / "socialnav_table1.csv").read_text().splitlines()
    random_row = next(r for r in rows if ",Random," in r)
    assert random_row.split(",")[2] == f"{pa:.6f}"


def test_failure_table_uses_scene_attributes_from_sample_metadata(
    report_dir: Path, sn_runs: dict[str, Path], sn_data: Path
) -> None:
    # the attribute columns are the sample_metadata.json fields; the FRI matches the metric
    ds = load_socialnav(sn_data)
    run = load_runs([sn_runs["random"]])[0]
    entries = scoring_entries(ds, run.samples())
    meta = {i.item_id: i.metadata for i in ds.items}
    res = failure_rate_by_attribute(entries, [meta[e.item_id]["indoors"] for e in entries], "paper", "indoors")
    indoors = next(g for g in res["groups"] if g.value is True)
    csv_rows = (report_dir / "tables" / "socialnav_failures_by_attribute.csv").read_text().splitlines()
    header = csv_rows[0].split(",")
    assert {"indoors", "not indoors", "blind_corner", "not blind_corner"} <= set(header)
    row = next(r for r in csv_rows if r.startswith("Random,")).split(",")
    assert float(row[header.index("indoors")]) == pytest.approx(indoors.fri, abs=1e-6)
    assert float(row[header.index("Overall FR")]) == pytest.approx(failure_summary(entries)["failure_rate"], abs=1e-6)


def test_viewer_orders_confident_failures_first(sn_runs: dict[str, Path], sn_data: Path, tmp_path: Path) -> None:
    ds = load_socialnav(sn_data)
    runs = load_runs([sn_runs["random"], sn_runs["first"]])
    entries = [scoring_entries(ds, r.samples()) for r in runs]
    payload = viewer_payload(
        [r.label for r in runs],
        entries,
        {i.item_id: i for i in ds.items},
        "paper",
        tmp_path,
        featured=3,
        images="first-last",
    )
    recs = payload["records"]
    assert payload["shown"] == payload["total"] == len(entries[0])
    kinds = [r["sel"] for r in recs]
    assert kinds == sorted(kinds, key=["failure", "success", "other"].index)
    failures = [r for r in recs if r["sel"] == "failure"]
    assert [r["he"] for r in failures] == sorted(r["he"] for r in failures)
    assert sum(r["feat"] for r in recs) == min(3, len(failures)) + min(3, sum(r["sel"] == "success" for r in recs))
    # images copied into the report folder, first and last frame only
    rel = payload["images"][recs[0]["i"]][0]["src"]
    assert len(rel) == 2 and all((tmp_path / p).is_file() for p in rel)


def test_viewer_keeps_max_items_in_rule_order(sn_runs: dict[str, Path], sn_data: Path, tmp_path: Path) -> None:
    ds = load_socialnav(sn_data)
    run = load_runs([sn_runs["random"]])[0]
    entries = scoring_entries(ds, run.samples())
    full = viewer_payload([run.label], [entries], {i.item_id: i for i in ds.items}, "paper", tmp_path, images="none")
    cut = viewer_payload(
        [run.label], [entries], {i.item_id: i for i in ds.items}, "paper", tmp_path, max_items=10, images="none"
    )
    assert cut["shown"] == 10 and cut["total"] == full["total"]
    assert [(r["i"], r["k"]) for r in cut["records"]] == [(r["i"], r["k"]) for r in full["records"][:10]]


def test_report_without_labels_skips_item_level_parts_with_a_note(sn_runs: dict[str, Path], tmp_path: Path) -> None:
    runs = load_runs([sn_runs["random"]])
    res = build_report(runs, tmp_path / "r", formats=["md"], data=tmp_path / "nowhere", figures=False)
    assert any("labels not loaded" in n for n in res["notes"])
    assert res["tables"][0] == "socialnav_table1" and "socialnav_bootstrap_ci" not in res["tables"]


def test_parse_formats_rejects_unknown() -> None:
    assert parse_formats("md, tex,md") == ["md", "tex"]
    with pytest.raises(UsageError, match="--format"):
        parse_formats("md,pdf")


# --------------------------------------------------------------------------- compare


@pytest.fixture(scope="module")
def comparison(sn_runs: dict[str, Path]) -> dict:
    runs = load_runs([sn_runs["rule"], sn_runs["random"], sn_runs["first"]])
    return compare_runs(runs, seed=3, n_boot=300, n_perm=2000)


def test_compare_differences_are_paired_means(comparison: dict, sn_runs: dict[str, Path]) -> None:
    rule = json.loads((sn_runs["rule"] / "metrics.json").read_text())["scores"]["model"]["All"]
    rnd = json.loads((sn_runs["random"] / "metrics.json").read_text())["scores"]["model"]["All"]
    pair = comparison["pairs"][0]
    assert (pair["a"], pair["b"]) == ("Rule-Based", "Random")
    assert pair["PA"]["diff"] == pytest.approx(rule["PA"] - rnd["PA"])
    assert pair["CWPA"]["diff"] == pytest.approx(rule["CWPA"] - rnd["CWPA"])
    assert comparison["n"] == rule["n"] and comparison["n_clusters"] == 3


def test_compare_mcnemar_matches_scipy_binomial_test(comparison: dict) -> None:
    stats = pytest.importorskip("scipy.stats")
    c = comparison["pairs"][0]["correct"]
    expected = stats.binomtest(c["a_only"], c["a_only"] + c["b_only"], 0.5).pvalue
    assert c["p_mcnemar"] == pytest.approx(expected)


def test_compare_holm_adjusts_over_all_pairs(comparison: dict) -> None:
    from socialbench.metrics.ranking import holm

    raw = [p["PA"]["p_permutation"] for p in comparison["pairs"]]
    assert len(raw) == 3
    assert [p["PA"]["p_permutation_holm"] for p in comparison["pairs"]] == pytest.approx(holm(raw))


def test_compare_leaderboard_ranks_every_run(comparison: dict) -> None:
    pa = [e for e in comparison["leaderboard"] if e["metric"] == "PA"]
    assert sorted(e["run"] for e in pa) == ["Mock (first option)", "Random", "Rule-Based"]
    assert pa[0]["run"] == "Rule-Based" and pa[0]["rank"] == 1
    assert np.all(np.diff([e["score"] for e in pa]) <= 0)


def test_compare_is_seeded(sn_runs: dict[str, Path]) -> None:
    runs = load_runs([sn_runs["rule"], sn_runs["random"]])
    a = compare_runs(runs, seed=1, n_boot=100, n_perm=100)
    b = compare_runs(runs, seed=1, n_boot=100, n_perm=100)
    assert a["pairs"] == b["pairs"]


# --------------------------------------------------------------------------- CLI


def test_report_command_writes_requested_formats(sn_runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "rep"
    res = CliRunner().invoke(
        _app(), ["report", str(sn_runs["rule"]), "--out", str(out), "--format", "csv", "--no-plots"]
    )
    assert res.exit_code == 0, res.output
    assert (out / "tables" / "socialnav_table1.csv").is_file()
    assert not (out / "report.md").exists() and not (out / "plots").exists()


def test_compare_command_prints_and_writes_results(sn_runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    res = CliRunner().invoke(
        _app(),
        ["compare", str(sn_runs["rule"]), str(sn_runs["first"]), "--seed", "2", "--n-boot", "100", "--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    assert "Paired comparison — socialnav-sub on data folder 'data'" in res.output and "Rule-Based" in res.output
    data = json.loads((out / "compare.json").read_text())
    assert data["seed"] == 2 and len(data["pairs"]) == 1
    rows = (out / "compare.csv").read_text().splitlines()
    assert rows[0].startswith("run_a,run_b,measure,a,b,diff,low,high")
    assert [r.split(",")[2] for r in rows[1:]] == ["PA", "CWPA", "correct"]


def test_compare_command_needs_two_runs(sn_runs: dict[str, Path]) -> None:
    res = CliRunner().invoke(_app(), ["compare", str(sn_runs["rule"])])
    assert res.exit_code != 0
    assert "at least two" in str(res.exception) + res.output


def test_socialbench_cli_report_and_data_error(sn_runs: dict[str, Path], tmp_path: Path, capsys) -> None:
    from socialbench.cli import main

    main(["report", str(sn_runs["rule"]), "--out", str(tmp_path / "r"), "--format", "md", "--no-plots"])
    assert (tmp_path / "r" / "report.md").is_file()
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as exc:
        main(["report", str(tmp_path / "empty")])
    assert exc.value.code == 1
    err = capsys.readouterr().err
    assert "empty: not a run directory" in " ".join(err.split())
